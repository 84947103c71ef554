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

#include "graph/AutogradFacts.h"
#include "graph/OutOfLine.h"

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
    // What the `pytorch` memory model reads beyond `bytes` (AutogradFacts.h); out of line, so that
    // the vertices of a graph without it (published graphs, 1M-vertex benchmarks) stay small.
    OutOfLine<AutogradFacts> autograd;
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
    // Metadata `key` as a byte count: its non-negative integer, 0 where absent or anything else.
    std::int64_t metadataBytes(const std::string& key) const;

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
