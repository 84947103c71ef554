#pragma once
// Independent Segments (Feng & Huang §5.1, Def. 1; supplementary Def. 1) and linear
// splitting vertices (Def. 2).
//
// An IS s_pq is a subgraph with source p and target q whose interior vertices (all but p
// and q) have no edge to any vertex outside it. Its edges are all edges between its
// vertices, except that the direct edge p->q may be left out (supp. Def. 1, property 2):
// a branch of a Branch IS does not own the direct edge. Its cost l(s_pq) is the sum of
// the interior vertices' bytes.
#include "graph/Graph.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace ckpt {

struct IndependentSegment {
    VertexIndex source = 0;
    VertexIndex target = 0;
    std::vector<VertexIndex> vertices;  // source, interior..., target in topological order
    bool hasDirectEdge = false;         // owns the edge source->target
    std::int64_t cost = 0;              // sum of the interior vertices' bytes

    int interiorSize() const { return static_cast<int>(vertices.size()) - 2; }
    bool isSingleEdge() const { return vertices.size() == 2; }
};

// Whether the graph has an edge from -> to (binary search over the sorted successors).
bool hasEdge(const Graph& graph, VertexIndex from, VertexIndex to);

// The largest interior that forms an IS with p and q inside a starting set of vertices
// between them: vertices are peeled off until no edge leaves the set except out of p or
// into q. `candidate[v]` marks the starting set; on return it marks the result. Returns
// the interior (in the starting order).
std::vector<VertexIndex> peelToIndependent(const Graph& graph, VertexIndex p, VertexIndex q,
                                           std::vector<VertexIndex> candidates, std::vector<char>& candidate);

// The largest IS between p and q (supp. Def. 1: the union of every IS between them,
// including the direct edge when there is one), or nothing when p and q form no IS.
std::optional<IndependentSegment> largestIndependentSegment(const Graph& graph, VertexIndex p, VertexIndex q);

// Whether (vertices, p, q) satisfies Def. 1: every vertex lies on a path p -> q inside the
// set and no interior vertex has an edge leaving the set.
bool isIndependentSegment(const Graph& graph, const std::vector<VertexIndex>& vertices, VertexIndex p,
                          VertexIndex q);

// The linear splitting vertices of an IS (Def. 2), in topological order. v splits s_pq
// iff every path p -> q passes through v, i.e. (inside an IS, whose vertices all lie on
// such paths) iff no edge of the IS jumps over v's topological position — one sweep
// instead of Alg. 2's O(|V|^3) test of every vertex.
std::vector<VertexIndex> linearSplittingVertices(const Graph& graph, const IndependentSegment& segment);
// The same with caller-owned scratch: `position` has one entry per graph vertex, all -1,
// and is left that way (lets the division tree avoid O(|V|) work per node).
std::vector<VertexIndex> linearSplittingVertices(const Graph& graph, const IndependentSegment& segment,
                                                 std::vector<int>& position);

}  // namespace ckpt
