#pragma once
// Turning a TorchScript model (.pt, traced or scripted) into our Graph by running it once on
// random inputs, one per argument of forward (InputSpec.h). Only our types here: LibTorch stays
// inside core/torch's .cpp files.
//
// Vertices are the tensors operations allocate; ops that allocate nothing (views, reshapes,
// in-place updates, constants, list/tuple plumbing) fold into the vertex whose storage they
// use or into the consumers that read them. At module granularity the consecutive ops of one
// module call (a leaf Conv2d with its in-place ReLU, a BatchNorm2d, ...) merge into one vertex
// named by the module path ("layer2.1.conv2"). See docs/FORMAT.md for the metadata written.
#include "graph/Graph.h"
#include "torch/InputSpec.h"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace ckpt::torchx {

enum class Granularity { Op, Module };

struct ImportOptions {
    std::string modelPath;
    std::vector<InputSpec> inputs;  // one per forward argument
    // The dtype of inputs that name none; a float dtype is also the parameters' (an integer one,
    // from `--dtype int64` of single-input days, leaves them float32).
    std::string dtype = "float32";
    int batchDim = 0;  // the batch dimension of the inputs (graph metadata batch_dim)
    Granularity granularity = Granularity::Op;
    std::string device = "cpu";  // where the model runs: cpu, or cuda in a CUDA build (profiling)
};

// Bad input: the message is one line and starts with the model file.
struct TorchImportError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

Granularity parseGranularity(const std::string& text);  // "op" | "module"
std::string granularityName(Granularity granularity);

Graph importTorchScript(const ImportOptions& options);

}  // namespace ckpt::torchx
