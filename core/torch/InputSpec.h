#pragma once
// The tensors ckptx-torch feeds a model's forward, one per argument: `--input SHAPE[:DTYPE[:HIGH]]`
// ("1x3x224x224", "4x64:int64", "4x64:int64:50257"), and how graph metadata records them.
// Torch-free: the CLI parses and checks inputs without LibTorch.
#include "graph/Graph.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ckpt {
class GraphBuilder;
}

namespace ckpt::torchx {

struct InputSpec {
    std::vector<std::int64_t> shape;
    std::string dtype;  // "" = ImportOptions::dtype (the --dtype default)
    // Integer inputs are drawn uniformly from [0, high). 2 by default: valid for any embedding
    // table (of two rows or more), 0/1 masks and indices into any dimension of size two or more.
    std::int64_t high = 2;

    bool operator==(const InputSpec&) const = default;
};

// "1x3x224x224" -> {1, 3, 224, 224}; throws std::invalid_argument on anything else.
std::vector<std::int64_t> parseInputShape(const std::string& text);
std::string formatInputShape(const std::vector<std::int64_t>& shape);
// "4x64:int64:100"; throws std::invalid_argument naming the text and the problem (an unknown
// dtype, HIGH on a float input, HIGH < 1, a tensor of 2^63 bytes or more).
InputSpec parseInputSpec(const std::string& text);
// "4x64:int64" (the dtype always; HIGH when it is not the default).
std::string formatInputSpec(const InputSpec& input);
std::string formatInputSpecs(const std::vector<InputSpec>& inputs);  // joined by ", "

bool isFloatDtype(const std::string& dtype);    // float32, float64, float16, bfloat16
bool isIntegerDtype(const std::string& dtype);  // int64, int32
// Throws std::invalid_argument unless the dtype is a float or integer one of the above.
void checkDtype(const std::string& dtype);
// Each input's dtype, "" replaced by `defaultDtype` (--dtype).
std::vector<InputSpec> withDtypes(std::vector<InputSpec> inputs, const std::string& defaultDtype);

// Throws std::invalid_argument unless batchDim is a dimension of the first input.
void checkBatchDim(const std::vector<InputSpec>& inputs, int batchDim);

// Graph metadata written by ckptx-torch import: `inputs` ([{"shape", "dtype", "high"?}]),
// `input_shape` and `input_dtype` (of the first input, for older readers), `batch_dim` and
// `batch_size` (dimension batch_dim of the first input). Throws as checkBatchDim does.
void writeInputMetadata(GraphBuilder& builder, const std::vector<InputSpec>& inputs, int batchDim);
// The inputs a graph was imported with (`inputs`, or `input_shape`/`input_dtype` of graphs
// from before it); nullopt when it records none. Throws std::invalid_argument naming the key
// when they are malformed.
std::optional<std::vector<InputSpec>> importedInputs(const Graph& graph);

}  // namespace ckpt::torchx
