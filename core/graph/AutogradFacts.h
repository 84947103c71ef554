#pragma once
// What an importer learned of how autograd treats one tensor (vertex): the parameters whose
// gradients its backward forms, what it saves, the scratch memory of its forward and backward, and
// where its gradient goes. Only the `pytorch` memory model (docs/MEMORY-MODEL.md) reads it; graphs
// from published files have none (every field at its default).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ckpt {

// Rule P44: values a vertex's statics make that the later vertices `readers` read too.
struct StaticValue {
    std::int64_t bytes = 0;
    // Of them, those the making vertex's own backward keeps (an einsum saving a decay matrix): its
    // savedBytes counts them while it runs plainly, so the plain copy holds only the rest.
    std::int64_t savedBytes = 0;
    // What the statics these need save for their own nodes (an exp of the decays a matrix is made of):
    // a plain reader after a first one that runs in a checkpointed function makes them again and
    // keeps that, and savedBytes of the values, to its backward (P47).
    std::int64_t remadeSavedBytes = 0;
    std::vector<std::string> readers;

    bool operator==(const StaticValue&) const = default;
};

// Rule P52: one of the tensors a vertex of several outputs is made of, where they are read or saved
// apart (a max-pooling's values, which a convolution saves, and its indices, which an unpooling does).
struct OutputTensor {
    std::int64_t bytes = 0;
    std::vector<std::string> readBy;   // the successors that read it
    std::vector<std::string> savedBy;  // of the vertex's savedBy, those whose backward keeps it

    bool operator==(const OutputTensor&) const = default;
};

struct AutogradFacts {
    // Bytes of the model parameters this vertex's operation reads first (its weights): their
    // gradients appear at its backward. 0 when unknown (published graphs) or none.
    std::int64_t parameterBytes = 0;
    // Bytes of the gradients its backward forms for values parameters alone compute (a position
    // bias, a weight transposed at every time step) that other vertices read too, beyond those
    // parameters' own gradients: held until autograd runs the nodes that made those values, at the
    // end of the backward of `staticGradientUntil` (their first reader), or of the whole backward
    // where that is empty (rule P20; the Python exporter). 0 when none.
    std::int64_t staticGradientBytes = 0;
    std::string staticGradientUntil;
    // P62: some of those gradients are its own gradient or slices of it (a concatenation with a static
    // branch), no bytes of their own: they hold its gradient tensor as long as P20 holds theirs.
    bool slicesGradientToStatics = false;
    // The values parameters alone compute that apply_plan makes just before this vertex, their first
    // reader, and that later vertices read too (a position bias every block reads, a causal mask),
    // one entry per set of readers: the plain vertices share one copy and each checkpointed function
    // makes its own, each held from the first to the last of its readers (rule P44; the Python
    // exporter). Empty when none.
    std::vector<StaticValue> staticValues;
    // Of parameterBytes, those of weights earlier vertices read too (a tied embedding and output
    // layer): autograd's engine sums every reader's gradient before the weight's AccumulateGrad
    // runs, at the end of the backward of `tiedParameterUntil`, the first reader. Only a step that
    // accumulates into kept gradients (rule P33) frees the rest earlier. 0 when none.
    std::int64_t tiedParameterBytes = 0;
    std::string tiedParameterUntil;
    // A weight it reads that `addsWeightGradientTo` owns (P23's other reader; rule P59): the bytes of
    // the gradient its backward forms for those weights, and what adding that into the sum of the
    // readers' gradients allocates beyond it (torch 1.13: the sum, out of place). Where a plan runs
    // the owner before this vertex and this vertex's backward is the first of the readers', no sum
    // is made there, and the owner adds its own into this vertex's. Empty/0 when none.
    std::string addsWeightGradientTo;
    std::int64_t sharedWeightGradientBytes = 0;
    std::int64_t sharedWeightSumBytes = 0;
    // Of the vertex's bytes, those of the outputs autograd tracks, the size of its gradient where
    // it has outputs of both kinds (a max-pool's values beside its integer indices; rule P50). nullopt:
    // all of them (P42).
    std::optional<std::int64_t> gradientBytes;
    // The tensors it is made of, where they are read or saved apart (P52); their bytes sum to the
    // vertex's. Empty: one tensor, or all read and saved alike.
    std::vector<OutputTensor> tensors;
    // Bytes autograd saves for this vertex's backward beyond its inputs and output (max-pool
    // indices); live from the vertex's forward with autograd to its backward. 0 when unknown.
    std::int64_t savedBytes = 0;
    // The vertices whose backward autograd keeps this tensor for: consumers whose backward
    // saves it as an input (a convolution, a BatchNorm; not an add or a concatenation) and
    // the vertex itself when its own backward saves its output (an in-place ReLU). Ids of the
    // vertex or its successors; empty = nobody keeps it; nullopt = unknown (published graphs).
    std::optional<std::vector<std::string>> savedBy;
    // Its backward unpacks a tensor autograd saved that is no vertex's (a weight, a constant, a
    // stochastic-depth mask made from shapes alone): what savedBy and savedBytes cannot say, and
    // what decides when a checkpointed function is re-forwarded and released (rules P9, P12).
    bool savesOther = false;
    // Operator scratch memory: the bytes this vertex's forward (re-forward) and its backward
    // allocate above what they leave allocated (a convolution's unfolded input), freed within
    // the phase, so they count in its peak only. 0 when unknown (published graphs) or none.
    std::int64_t forwardWorkspaceBytes = 0;
    std::int64_t backwardWorkspaceBytes = 0;
    // The forward's scratch memory inside a checkpointed function, where autograd keeps nothing it
    // saves (the Python exporter; rule P17): a softmax's scores, a dropout's mask are scratch there.
    std::optional<std::int64_t> checkpointedForwardWorkspaceBytes;
    // The same where the function makes its own copy of the statics an earlier vertex's are made for,
    // just before this vertex, the first of its readers there (the Python exporter; rule P49): an RWKV
    // block's decay matrix, whose chain peaks at twice its size.
    std::optional<std::int64_t> copiedStaticsForwardWorkspaceBytes;
    // The backward's scratch memory when the tensors it saved are freed as autograd frees them,
    // mid-backward (the Python exporter; rule P14): what the peak is when nothing else holds them.
    std::optional<std::int64_t> backwardWorkspaceReleasedBytes;
    // That measure's whole rise, the output's gradient and the weights' gradients in it (rule P81).
    std::optional<std::int64_t> backwardReleasedRiseBytes;
    // The same measure up to the end of the backward's first node (the Python exporter, where the
    // vertex saved its own output; rule P43): an in-place ReLU's gradient formed beside its output,
    // before the weight gradients the whole measure subtracts exist.
    std::optional<std::int64_t> firstBackwardNodeBytes;
    // The released measure with the inputs named in backwardWorkspaceHeldInputs held through the
    // backward, where those outlive it and another it saved does not (the Python exporter; rule P48):
    // gMLP's product frees the half it alone saved while the other half's norm keeps its own.
    std::optional<std::int64_t> backwardWorkspacePartlyReleasedBytes;
    std::vector<std::string> backwardWorkspaceHeldInputs;
    // The backward's scratch memory when its inputs are autograd leaves, as ckptx-torch's executor
    // makes them in a checkpointed step (rule P24): a leaf's AccumulateGrad runs as soon as a gradient
    // reaches it and copies one that another input's node still holds (an add hands one to both).
    std::optional<std::int64_t> leafInputsBackwardWorkspaceBytes;
    // That run's rise above the backward's start, frees counted and the weights' gradients in it
    // (rule P82): below them, its nodes let go of what they saved before the weights' gradients came.
    std::optional<std::int64_t> leafInputsBackwardRiseBytes;
    // The backward's scratch memory as autograd's engine runs it in a regular step (rule P25): the
    // output's gradient made inside the engine and freed once the first node has read it, the output
    // held by nothing but what saved it, so an in-place ReLU's output goes before the convolution
    // under it back-propagates (ckptx-torch import).
    std::optional<std::int64_t> engineBackwardWorkspaceBytes;
    // The same with the inputs held by nothing but what saved them, read as the rise above the
    // backward's start with the inputs' gradients in it, the weights' left out (rule P73): counted
    // where the backward is the last to hold every input it saved.
    std::optional<std::int64_t> engineBackwardWorkspaceReleasedBytes;
    // That run's rise with the weights' gradients in it (rule P81): below them and the output's
    // gradient, its nodes let go of what they saved before the node that forms the weights' gradients.
    std::optional<std::int64_t> engineBackwardReleasedRiseBytes;
    // The engine measure's rise up to the end of the backward's first node, the output's gradient
    // inside it (rule P77): where that gradient is the last slice of another's, the engine lets the
    // whole tensor go after that node, before the later nodes form the inputs' gradients.
    std::optional<std::int64_t> engineFirstNodeBytes;
    // The inputs (ids of predecessors) whose gradient the backward forms as this vertex's own
    // gradient, the same tensor (an add passes it to both summands; rule P15).
    std::vector<std::string> passesGradientTo;
    // Those of them it hands a view of that gradient, a tensor object of its own over the same storage,
    // laid out as the input is (a permute back to a channels-last layer norm's layout): an autograd
    // leaf holding no gradient keeps such a view as its gradient, with no copy (ckptx-torch import;
    // rule P79).
    std::vector<std::string> passesGradientViewTo;
    // The inputs (ids of predecessors) whose gradient the backward forms as a slice of this vertex's
    // gradient, a view that keeps all of it alive (a concatenation; rule P27).
    std::vector<std::string> slicesGradientTo;
    // Groups of inputs (ids of predecessors) whose gradients the backward forms as one tensor, not this
    // vertex's gradient: an add whose sum a ReLU of the same vertex reads hands the ReLU's input
    // gradient to both summands (rule P53).
    std::vector<std::vector<std::string>> formsOneGradientFor;
    // The inputs (ids of predecessors) it reads without a gradient flowing back to them: only their
    // shape (aten::size), say. Its backward forms no gradient for them (ckptx-torch import; P13).
    std::vector<std::string> readsWithoutGradient;

    bool operator==(const AutogradFacts&) const = default;
};

}  // namespace ckpt
