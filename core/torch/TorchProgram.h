#pragma once
// PRIVATE to core/torch (includes LibTorch; only core/torch/*.cpp include it).
//
// A TorchScript forward graph, inlined and cut into vertex groups, with a small interpreter
// that can run one group at a time. The importer writes the groups out as a Graph; the
// profiler re-creates the same program and runs its groups in any order a plan needs.
#include "TorchImport.h"

#include <torch/script.h>

#include <functional>
#include <memory>
#include <unordered_map>
#include <unordered_set>

namespace ckpt::torchx {

using torch::jit::Node;
using torch::jit::Value;
using Env = std::unordered_map<const Value*, c10::IValue>;

// One vertex of the imported graph: the ops that allocate its tensor(s) and the in-place ops
// on them, in execution order. Group 0 is the model input.
struct OpGroup {
    std::string id;
    std::string module;  // innermost module path of its ops ("" = the top module)
    std::string op;      // its ops' kinds, "aten::_convolution+aten::relu_"
    std::vector<Node*> nodes;
    std::vector<const Value*> exports;  // its values that other groups (or the model output) read
    std::vector<int> deps;              // the groups whose exports it reads, ascending
    std::int64_t bytes = 0;             // distinct storages of its exported tensors
    std::int64_t parameterBytes = 0;    // parameters (storages) no earlier group reads
    std::int64_t savedBytes = 0;        // what autograd saves beyond inputs and outputs (max-pool indices)
    // Filled by findSavedTensors(): the deps whose tensors its backward saves, and whether its
    // backward saves its own exported tensor (an in-place ReLU saves its result).
    std::vector<int> savedDeps;
    bool savesOutput = false;
    // Filled by findSavedTensors() too: the bytes its forward with autograd and its backward
    // allocate above what they leave allocated (operator scratch memory, rule P8).
    std::int64_t forwardWorkspaceBytes = 0;
    std::int64_t backwardWorkspaceBytes = 0;
    std::vector<std::int64_t> shape;    // of its first exported tensor
    std::string dtype;
    double compute = 0;  // FLOPs of conv/linear/matmul ops, element counts of the others
};

class TorchProgram {
public:
    // Loads, checks, inlines and runs the model once (no grad) to find the groups; throws
    // TorchImportError naming the file for every kind of bad input.
    explicit TorchProgram(const ImportOptions& options);

    const ImportOptions& options() const { return m_options; }
    const std::vector<OpGroup>& groups() const { return m_groups; }
    int sinkGroup() const { return m_sink; }
    torch::jit::Module& module() { return m_module; }
    std::int64_t parameterBytes() const { return m_parameterBytes; }
    std::int64_t bufferBytes() const { return m_bufferBytes; }
    const Value* inputValue() const { return m_graph->inputs()[1]; }
    const Value* outputValue() const { return m_graph->outputs()[0]; }

    // Finds what autograd keeps for each group's backward (OpGroup::savedDeps, savesOutput) by
    // running every group once more with autograd, and measures that run's and its backward's
    // scratch memory; toGraph() then writes Vertex::savedBy and the workspace bytes.
    void findSavedTensors();
    Graph toGraph() const;
    torch::Tensor randomInput() const;
    c10::Device device() const;

    // Re-runs the ops computed from parameters and constants alone with autograd on, so
    // gradients reach parameters through them (the analysis ran them without).
    void refreshStatics();
    // Runs group g: reads the exports of its deps from `env`, adds its own exports to it.
    // Group 0 only runs the in-place ops on the input, if any.
    void runGroup(int g, Env& env) const;
    // The model output, from the sink group's exports in `env`.
    c10::IValue output(Env& env) const;

private:
    enum class NodeKind { Static, Allocating, InPlace, Transparent };
    using Lookup = std::function<c10::IValue(const Value*)>;

    void load();
    void analyse();
    void mergeModuleCalls(std::vector<int>& groupOfNode, int groupCount) const;
    void buildGroups(const std::vector<int>& groupOfNode, const Env& env);
    std::vector<const Value*> dependencies(Node* node) const;
    const std::vector<const Value*>& producers(const Value* value) const;
    std::vector<c10::IValue> execute(Node* node, const Lookup& lookup) const;
    std::vector<c10::IValue> runBlock(torch::jit::Block* block, std::vector<c10::IValue> inputs,
                                      const Lookup& outer) const;
    c10::IValue lazyValue(const Value* value, const Env& env, Env& local) const;
    [[noreturn]] void fail(const std::string& problem) const;
    std::string modulePath(const Node* node) const;

    ImportOptions m_options;
    torch::jit::Module m_module;
    std::shared_ptr<torch::jit::Graph> m_graph;
    std::vector<Node*> m_nodes;  // top-level nodes in execution order
    std::unordered_map<const Node*, int> m_position;
    std::unordered_map<const Node*, NodeKind> m_kind;
    Env m_statics;  // constants, parameters and what is computed from them alone
    std::vector<OpGroup> m_groups;
    int m_sink = 0;
    std::int64_t m_parameterBytes = 0, m_bufferBytes = 0;
    bool m_savedKnown = false;
    mutable std::unordered_map<const Node*, torch::jit::Operation> m_operations;
    mutable std::unordered_map<const Value*, std::vector<const Value*>> m_producers;
    mutable std::unordered_map<std::string, std::string> m_pathCache;
};

// "FILE: problem" as a TorchImportError; c10 messages are cut to their first line.
[[noreturn]] void failImport(const std::string& file, const std::string& problem);
std::string firstLine(const std::string& message);
std::string dtypeName(c10::ScalarType type);
// All tensors inside an IValue (tensors, lists, tuples).
void collectTensors(const c10::IValue& value, std::vector<at::Tensor>& out);

}  // namespace ckpt::torchx
