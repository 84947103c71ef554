#pragma once
// The computation graph: vertices are tensors (with byte sizes), edges are operations.
// A Graph is immutable once built (see GraphBuilder) and always has exactly one
// source and one sink; several of either are joined by a virtual 0-byte vertex.

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace ckpt {

using VertexIndex = std::int32_t;
using EdgeIndex = std::int32_t;

struct Vertex {
    std::string id;
    std::string name;
    std::string op;
    std::int64_t bytes = 0;
    std::optional<std::vector<std::int64_t>> shape;
    std::string dtype;
    std::optional<double> compute;
    std::string module;
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
    // The backward's scratch memory when the tensors it saved are freed as autograd frees them,
    // mid-backward (the Python exporter; rule P14): what the peak is when nothing else holds them.
    std::optional<std::int64_t> backwardWorkspaceReleasedBytes;
    // The backward's scratch memory when its inputs are autograd leaves, as ckptx-torch's executor
    // makes them in a checkpointed step (rule P24): a leaf's AccumulateGrad runs as soon as a gradient
    // reaches it and copies one that another input's node still holds (an add hands one to both).
    std::optional<std::int64_t> leafInputsBackwardWorkspaceBytes;
    // The backward's scratch memory as autograd's engine runs it in a regular step (rule P25): the
    // output's gradient made inside the engine and freed once the first node has read it, the output
    // held by nothing but what saved it, so an in-place ReLU's output goes before the convolution
    // under it back-propagates (ckptx-torch import).
    std::optional<std::int64_t> engineBackwardWorkspaceBytes;
    // The inputs (ids of predecessors) whose gradient the backward forms as this vertex's own
    // gradient, the same tensor (an add passes it to both summands; rule P15).
    std::vector<std::string> passesGradientTo;
    // The inputs (ids of predecessors) whose gradient the backward forms as a slice of this vertex's
    // gradient, a view that keeps all of it alive (a concatenation; rule P27).
    std::vector<std::string> slicesGradientTo;
    // The inputs (ids of predecessors) it reads without a gradient flowing back to them: only their
    // shape (aten::size), say. Its backward forms no gradient for them (ckptx-torch import; P13).
    std::vector<std::string> readsWithoutGradient;
    // Computed from the model inputs' data, so its bytes, saved and workspace bytes grow in
    // proportion to the batch size (docs/FORMAT.md); false for what parameters, constants or
    // shapes alone make (a position index, a causal mask). True when unknown.
    bool batchScaled = true;
    // Autograd tracks it: false for a tensor no gradient reaches (a dropout's mask, a causal mask made
    // in the forward; the Python exporter), whose backward forms nothing (rule P19).
    bool requiresGrad = true;
    // Its forward draws random numbers (a dropout's mask; the Python exporter): apply_plan runs such
    // vertices in the model's order, so that a plan draws the masks the model draws (rule P29).
    bool drawsRandom = false;
    // The model returns it though other vertices read it too (nanoGPT's logits beside its loss):
    // apply_plan keeps it out of its checkpointed functions, as it does the sinks.
    bool output = false;
    bool isVirtual = false;  // added to join several sources or sinks; never written out
    bool backward = false;   // a gradient node of a training graph (Checkmate *_train_nx.json)

    bool operator==(const Vertex&) const = default;
};

struct Edge {
    VertexIndex from = 0;
    VertexIndex to = 0;
    std::string op;

    bool operator==(const Edge&) const = default;
};

class Graph {
public:
    const std::string& name() const { return m_name; }
    int vertexCount() const { return static_cast<int>(m_vertices.size()); }
    int edgeCount() const { return static_cast<int>(m_edges.size()); }
    const Vertex& vertex(VertexIndex v) const { return m_vertices[v]; }
    const std::vector<Vertex>& vertices() const { return m_vertices; }
    const Edge& edge(EdgeIndex e) const { return m_edges[e]; }
    const std::vector<Edge>& edges() const { return m_edges; }
    std::int64_t bytes(VertexIndex v) const { return m_vertices[v].bytes; }

    // Distinct neighbours (parallel edges collapse), in ascending topological position.
    std::span<const VertexIndex> successors(VertexIndex v) const;
    std::span<const VertexIndex> predecessors(VertexIndex v) const;
    // Edge indices leaving / entering v, parallel edges included.
    std::span<const EdgeIndex> outEdges(VertexIndex v) const;
    std::span<const EdgeIndex> inEdges(VertexIndex v) const;

    VertexIndex source() const { return m_source; }
    VertexIndex sink() const { return m_sink; }
    // A tensor the training step is given: the source, or each source a virtual one joins (token
    // ids and a padding mask). The training loop holds them through the whole step.
    // Inline: the simulators ask per edge, and most graphs have a real source.
    bool isInput(VertexIndex v) const
    {
        return v == m_source || (m_vertices[m_source].isVirtual && isJoinedSource(v));
    }
    std::int64_t inputBytes() const;  // of every input
    // A topological order; stable: ties keep the order the vertices were given in.
    const std::vector<VertexIndex>& topologicalOrder() const { return m_topo; }
    int topologicalPosition(VertexIndex v) const { return m_topoPos[v]; }

    std::optional<VertexIndex> find(const std::string& id) const;
    // Every vertex has at most one distinct successor and one distinct predecessor.
    bool isChain() const;
    std::int64_t totalBytes() const { return m_totalBytes; }
    // All vertices reachable from `from` (including it), as a membership mask.
    std::vector<bool> reachableFrom(VertexIndex from) const;
    std::vector<bool> reaching(VertexIndex to) const;
    bool hasVirtualVertices() const;

    // Free-form graph metadata; values are JSON texts, kept verbatim for round trips.
    const std::map<std::string, std::string>& metadata() const { return m_metadata; }
    // Whether metadata `key` holds exactly the JSON text `json`.
    bool metadataIs(const std::string& key, const std::string& json) const
    {
        const auto it = m_metadata.find(key);
        return it != m_metadata.end() && it->second == json;
    }

private:
    friend class GraphBuilder;
    std::vector<bool> flood(VertexIndex start, bool forward) const;
    bool isJoinedSource(VertexIndex v) const;  // the virtual source is v's only predecessor
    std::string m_name;
    std::vector<Vertex> m_vertices;
    std::vector<Edge> m_edges;
    std::vector<int> m_succStart, m_predStart, m_outStart, m_inStart;
    std::vector<VertexIndex> m_succ, m_pred;
    std::vector<EdgeIndex> m_out, m_in;
    std::vector<VertexIndex> m_topo;
    std::vector<int> m_topoPos;
    std::map<std::string, VertexIndex> m_index;
    std::map<std::string, std::string> m_metadata;
    VertexIndex m_source = 0;
    VertexIndex m_sink = 0;
    std::int64_t m_totalBytes = 0;
};

}  // namespace ckpt
