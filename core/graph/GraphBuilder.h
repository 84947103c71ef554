#pragma once
#include "graph/Graph.h"

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace ckpt {

// The most bytes a graph may declare, all byte fields of all vertices together (8 PiB): the memory
// models add each field a few times, and with this bound no sum or difference of them overflows.
inline constexpr std::int64_t kMaxGraphBytes = std::int64_t{1} << 53;

// Collects vertices and edges in input order and validates them into a Graph.
// Errors carry the JSON pointer of the offending input element (/vertices/N, /edges/N).
class GraphBuilder {
public:
    void setName(std::string name) { m_name = std::move(name); }
    void setMetadata(std::string key, std::string jsonValue);
    void addVertex(Vertex v) { m_vertices.push_back(std::move(v)); }
    void addEdge(std::string_view from, std::string_view to, std::string_view op = {});
    int vertexCount() const { return static_cast<int>(m_vertices.size()); }

    // Throws GraphError: duplicate ids, negative sizes, totals that overflow int64,
    // unknown edge endpoints, self-loops, cycles (one is named), disconnected parts.
    // The rvalue form moves the vertices into the graph (a builder used once: importers), where
    // copying them was a third of building a 300k-vertex graph.
    Graph build() const&;
    Graph build() &&;

private:
    Graph buildWith(std::vector<Vertex> vertices) const;
    // An edge's ids and op as indices into m_texts: a graph has millions of edges but only as many
    // distinct ids as vertices (and a few ops), so each text is stored and looked up once.
    struct PendingEdge {
        int from, to, op;
    };
    int intern(std::string_view text);

    std::string m_name;
    std::map<std::string, std::string> m_metadata;
    std::vector<Vertex> m_vertices;
    std::vector<PendingEdge> m_edges;
    std::vector<std::string> m_texts;
    // Looked up by string_view (transparent hash): an edge's ids are not copied to be found.
    struct TextHash {
        using is_transparent = void;
        std::size_t operator()(std::string_view text) const { return std::hash<std::string_view>{}(text); }
    };
    std::unordered_map<std::string, int, TextHash, std::equal_to<>> m_textIndex;
};

// The same graph (name, metadata, edges) with every vertex but the virtual ones passed through
// `change` first; the builder adds the virtual ones again. Throws GraphError as build() does.
Graph withChangedVertices(const Graph& graph, const std::function<void(Vertex&)>& change);
// The same graph with metadata added or replaced (values are JSON texts), vertices changed by `change`.
Graph withMetadata(const Graph& graph, const std::map<std::string, std::string>& metadata,
                   const std::function<void(Vertex&)>& change = {});

}  // namespace ckpt
