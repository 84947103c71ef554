#pragma once
// Turning a TorchScript model (.pt, traced or scripted) into our Graph by running it once on
// a random input. Only our types here: LibTorch stays inside core/torch's .cpp files.
//
// Vertices are the tensors operations allocate; ops that allocate nothing (views, reshapes,
// in-place updates, constants, list/tuple plumbing) fold into the vertex whose storage they
// use or into the consumers that read them. At module granularity the consecutive ops of one
// module call (a leaf Conv2d with its in-place ReLU, a BatchNorm2d, ...) merge into one vertex
// named by the module path ("layer2.1.conv2"). See docs/FORMAT.md for the metadata written.
#include "graph/Graph.h"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace ckpt::torchx {

enum class Granularity { Op, Module };

struct ImportOptions {
    std::string modelPath;
    std::vector<std::int64_t> inputShape;  // e.g. {1, 3, 224, 224}
    std::string dtype = "float32";         // float32, float64, float16, bfloat16
    Granularity granularity = Granularity::Op;
    std::string device = "cpu";  // where the model runs: cpu, or cuda in a CUDA build (profiling)
};

// Bad input: the message is one line and starts with the model file.
struct TorchImportError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// "1x3x224x224" -> {1, 3, 224, 224}; throws std::invalid_argument on anything else.
std::vector<std::int64_t> parseInputShape(const std::string& text);
std::string formatInputShape(const std::vector<std::int64_t>& shape);
Granularity parseGranularity(const std::string& text);  // "op" | "module"
// Throws std::invalid_argument unless the dtype is one ImportOptions takes.
void checkDtype(const std::string& dtype);
std::string granularityName(Granularity granularity);

Graph importTorchScript(const ImportOptions& options);

}  // namespace ckpt::torchx
