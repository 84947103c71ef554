#pragma once
// PRIVATE to core/torch (includes LibTorch; only core/torch/*.cpp include it).
//
// A TorchScript forward graph, inlined and cut into vertex groups, with a small interpreter
// that can run one group at a time. The importer writes the groups out as a Graph; the
// profiler re-creates the same program and runs its groups in any order a plan needs.
#include "TorchImport.h"

#include <torch/script.h>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <unordered_map>
#include <unordered_set>

namespace ckpt::torchx {

using torch::jit::Node;
using torch::jit::Value;
using Env = std::unordered_map<const Value*, c10::IValue>;

// One vertex of the imported graph: the ops that allocate its tensor(s) and the in-place ops
// on them, in execution order. The model's inputs come first, in argument order (an input the
// output does not read has no group).
struct OpGroup {
    std::string id;
    int input = -1;  // the forward argument (0-based, self not counted) an input group is; -1 for ops
    std::string module;  // innermost module path of its ops ("" = the top module)
    std::string op;      // its ops' kinds, "aten::_convolution+aten::relu_"
    std::vector<Node*> nodes;
    std::vector<const Value*> exports;  // its values that other groups (or the model output) read
    std::vector<int> deps;              // the groups whose exports it reads, ascending
    std::int64_t bytes = 0;             // distinct storages of its exported tensors
    std::int64_t parameterBytes = 0;    // parameters (storages) no later group reads
    // The parameters it reads that a later group reads too (a tied embedding): that group's backward
    // forms their gradient first and this one's adds into it (P23, P71).
    std::vector<at::Tensor> sharedParameters;
    std::int64_t savedBytes = 0;        // what autograd saves beyond inputs and outputs (findSavedTensors)
    // Filled by findSavedTensors(): the deps whose tensors its backward saves, and whether its
    // backward saves its own exported tensor (an in-place ReLU saves its result).
    std::vector<int> savedDeps;
    bool savesOutput = false;
    // And the deps its backward sends no gradient: read for their shape alone (an attention's
    // aten::size of k), or not differentiable (a boolean mask).
    std::vector<int> depsWithoutGradient;
    // Whether its tensors carry a gradient in a step (findGradientCarriers): computed from the
    // parameters, not from the inputs (P21) or from shapes and constants alone (MAE's mask of ones).
    bool carriesGradient = true;
    // And the deps it hands its own gradient unchanged (P15: an add's summands get the very tensor)
    // or a slice of it (P27: a concatenation's inputs), as autograd's engine does in a regular step.
    std::vector<int> depsPassedGradient;
    // Those of them it hands a view of its gradient that a leaf would keep as it is (P79).
    std::vector<int> depsPassedGradientView;
    std::vector<int> depsSlicedGradient;
    // And the groups of deps it hands one tensor that is not its own gradient (P53: an out-of-place
    // residual add under an in-place ReLU hands both summands the ReLU's input gradient).
    std::vector<std::vector<int>> depsFormedOneGradient;
    // The gradients it hands that are not contiguous, per dep: a slice of its own (P34: a
    // concatenation's along the channels, a view of `storageElements`) or a dense tensor laid out
    // otherwise (P68: a patch embedding's, back through a transpose).
    struct HandedLayout {
        std::vector<std::int64_t> sizes, strides;
        std::int64_t offset = 0, storageElements = 0;
        bool slice = false;
        // P85: a dense tensor that another dep, whose backward runs later, is handed too (an add's
        // gradient, passed to both summands), so the step holds it through this dep's backward.
        bool heldByLaterDep = false;
    };
    std::map<int, HandedLayout> handedLayouts;
    // Filled by findSavedTensors() too: the bytes its forward with autograd and its backward
    // allocate above what they leave allocated (operator scratch memory, rule P8).
    std::int64_t forwardWorkspaceBytes = 0;
    std::int64_t backwardWorkspaceBytes = 0;
    // Its forward without grad, as the executor's checkpointed step runs every vertex first (P17):
    // what autograd would save (an RMSNorm's squares) is scratch there.
    std::int64_t checkpointedForwardWorkspaceBytes = 0;
    // With its inputs autograd leaves (P24); none where the group writes into an input in place,
    // which autograd refuses on a leaf (ckptx-torch's executor could not run it either).
    std::optional<std::int64_t> leafInputsBackwardWorkspaceBytes;
    // That run's rise, frees counted, the weights' gradients in it (P82); not with a tied weight (P71).
    std::optional<std::int64_t> leafInputsBackwardRiseBytes;
    // As autograd's engine runs it in a regular step (P25).
    std::int64_t engineBackwardWorkspaceBytes = 0;
    // And with the inputs held by what saved them alone (P73), where it saves one.
    std::optional<std::int64_t> engineBackwardWorkspaceReleasedBytes;
    // That run's rise with the weights' gradients in it (P81).
    std::optional<std::int64_t> engineBackwardReleasedRiseBytes;
    // And up to the end of its first backward node (P77), where it exports one tensor.
    std::optional<std::int64_t> engineFirstNodeBytes;
    std::vector<std::int64_t> shape;    // of its first exported tensor
    std::string dtype;
    double compute = 0;  // FLOPs of conv/linear/matmul ops, element counts of the others
    // Its exported tensors are computed from the inputs' data (docs/FORMAT.md, batch_scaled); an
    // arange over a sequence length read from a shape, or a mask sliced from a buffer, is not.
    bool batchScaled = true;
};

class TorchProgram {
public:
    // Loads, checks, inlines, expands control flow and runs the model once (no grad) to find
    // the groups; throws TorchImportError naming the file for every kind of bad input.
    explicit TorchProgram(const ImportOptions& options);

    const ImportOptions& options() const { return m_options; }
    const std::vector<OpGroup>& groups() const { return m_groups; }
    int sinkGroup() const { return m_sink; }
    torch::jit::Module& module() { return m_module; }
    std::int64_t parameterBytes() const { return m_parameterBytes; }
    std::int64_t bufferBytes() const { return m_bufferBytes; }
    int inputCount() const { return static_cast<int>(m_options.inputs.size()); }
    const Value* inputValue(int i) const { return m_graph->inputs()[static_cast<std::size_t>(i) + 1]; }
    // The vertex id of input i: "input" for a model of one argument, else "input.NAME".
    std::string inputId(int i) const;
    const Value* outputValue() const { return m_graph->outputs()[0]; }

    // Finds what autograd keeps for each group's backward (OpGroup::savedDeps, savesOutput) by
    // running every group once more with autograd, and measures that run's and its backward's
    // scratch memory; toGraph() then writes Vertex::savedBy and the workspace bytes.
    void findSavedTensors();
    // Sets OpGroup::carriesGradient by running each group once with autograd, its deps' tensors
    // detached, requiring a gradient where theirs do. The parameters require one.
    void findGradientCarriers();
    Graph toGraph() const;
    // One tensor per input, the same on every call (a fixed seed): floats standard normal,
    // integers uniform in [0, high). Control flow was expanded for these values.
    std::vector<torch::Tensor> randomInputs() const;
    c10::Device device() const;

    // Re-runs the ops computed from parameters and constants alone with autograd on, so
    // gradients reach parameters through them (the analysis ran them without).
    void refreshStatics();
    // P20 as the module's own forward runs: the statics autograd computes from the parameters (weight
    // norm's weights, with what they save for their backward) made anew, in the current grad mode,
    // just before group g runs, those it reads first (`firstOnly`, a forward) or all it reads (a run
    // of g alone); their nodes then run right after g's backward. Known once refreshStatics() ran
    // with autograd on. Returns the bytes of the values made.
    std::int64_t refreshStaticsReadBy(int g, bool firstOnly);
    // Runs group g: reads the exports of its deps from `env`, adds its own exports to it.
    // An input group only runs the in-place ops on its input, if any.
    void runGroup(int g, Env& env) const;
    // The model output, from the sink group's exports in `env`.
    c10::IValue output(Env& env) const;

private:
    enum class NodeKind { Static, Allocating, InPlace, Transparent };
    using Lookup = std::function<c10::IValue(const Value*)>;

    void load();
    void findTrackedStatics();
    std::vector<int> dependencyOrder() const;
    // The values of g's deps in `values`, copied; those that carry a gradient require one unless
    // None: leaves (as ckptx-torch's executor has them) or outputs of a node (as a step has them,
    // which in-place ops may write).
    enum class DepGradient { None, Leaf, NonLeaf };
    Env depValues(const OpGroup& group, const Env& values, DepGradient gradient) const;
    void expandControlFlow();
    std::vector<Value*> expand(Node* node, Env& env);
    std::vector<Value*> inlineBlock(torch::jit::Block* block, Node* before, const std::vector<Value*>& inputs, Env& env);
    void analyse();
    int groupOfValue(const Value* value, const std::vector<int>& groupOfNode) const;
    void mergeModuleCalls(std::vector<int>& groupOfNode, int groupCount) const;
    void buildGroups(const std::vector<int>& groupOfNode, const Env& env,
                     const std::unordered_set<const Value*>& fromData);
    const std::vector<const Value*>& producers(const Value* value) const;
    std::vector<c10::IValue> execute(Node* node, const Lookup& lookup) const;
    c10::IValue lazyValue(const Value* value, const Env& env, Env& local) const;
    [[noreturn]] void fail(const std::string& problem) const;
    // The model threw running `node`: out of memory, or the model's own complaint, named with the op
    // that threw and where the model's source has it.
    [[noreturn]] void failAt(const std::string& problem, const std::string& message, const Node* node) const;
    // The same, running the inputs.
    [[noreturn]] void rejectInput(const std::string& message, const Node* node) const;
    std::string modulePath(const Node* node) const;

    ImportOptions m_options;  // inputs with their dtypes filled in
    std::vector<std::string> m_argumentNames;  // forward's, self not counted
    torch::jit::Module m_module;
    std::shared_ptr<torch::jit::Graph> m_graph;
    std::vector<Node*> m_nodes;  // top-level nodes in execution order
    std::unordered_map<const Node*, int> m_position;
    std::unordered_map<const Node*, NodeKind> m_kind;
    Env m_statics;  // constants, parameters and what is computed from them alone
    // Per group, the static nodes with a gradient function whose values it reads (in order), and the
    // first group to read each; empty until refreshStatics() ran with autograd on.
    std::vector<std::vector<Node*>> m_trackedStaticsReadBy;
    std::unordered_map<const Node*, int> m_firstReaderOf;
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
[[noreturn]] void failTorch(const ImportOptions& options, const std::string& message);
// Runs `work`, turning what LibTorch throws (a c10::Error with its backtrace, std::bad_alloc)
// into one TorchImportError line naming the model and, when memory ran out, the inputs.
template <class Work>
auto reportingTorchErrors(const ImportOptions& options, Work work)
{
    try {
        return work();
    } catch (const c10::Error& e) {
        failTorch(options, e.what_without_backtrace());
    } catch (const std::bad_alloc&) {
        failTorch(options, "std::bad_alloc");
    }
}
std::string firstLine(const std::string& message);
std::string dtypeName(c10::ScalarType type);
// All tensors inside an IValue (tensors, lists, tuples).
void collectTensors(const c10::IValue& value, std::vector<at::Tensor>& out);

}  // namespace ckpt::torchx
