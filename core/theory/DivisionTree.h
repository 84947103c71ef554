#pragma once
// IS types, their divisions and the division tree (Feng & Huang §5.2–5.3).
//
//  - Linear IS (Def. 3): has linear splitting vertices; its division is the IS between
//    consecutive splitting vertices (Alg. 2).
//  - Branch IS (Def. 4): no splitting vertex, several branches sharing only source and
//    target; its division is the branches, the direct edge source->target being one (Alg. 3).
//  - Complicate IS (Def. 5): neither; its division is its maximal proper member IS (Def. 6,
//    Alg. 4).
//  - Leaf: a single edge, the smallest IS.
// The tree (Fig. 5) has the whole graph as its root and the division of each node as its
// children; it is unique and complete (Theorem 1).
#include "graph/Graph.h"
#include "theory/IndependentSegment.h"

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace ckpt {

enum class SegmentType { Linear, Branch, Complicate, Leaf };
// "linear", "branch", "complicate", "leaf"
std::string segmentTypeName(SegmentType type);

struct Division {
    SegmentType type = SegmentType::Leaf;
    // Linear: in order from source to target. Branch: the direct edge first, then the
    // branches by their first vertex. Complicate: by (source, target) position. Leaf: none.
    std::vector<IndependentSegment> members;
};

// The type of an IS and its division (Alg. 2, 3, 4). The paper's algorithms are O(|V|^3)
// per IS; these are near-linear for Linear and Branch IS (see the .cpp).
Division divide(const Graph& graph, const IndependentSegment& segment);

struct DivisionNode {
    SegmentType type = SegmentType::Leaf;
    VertexIndex source = 0;
    VertexIndex target = 0;
    bool hasDirectEdge = false;  // owns the edge source->target
    std::int64_t cost = 0;       // l(s): the sum of the interior vertices' bytes
    int interiorSize = 0;        // how many interior vertices
    // The largest segment the IS leaves when only its source and target are checkpoints:
    // its cost, except for a Branch IS, whose branches are re-forwarded one after the other
    // (each is its own IS), where it is the largest branch.
    std::int64_t segmentCost = 0;
    std::vector<int> children;  // node indices of the division's members, in Division order
    int parent = -1;

    bool isSingleEdge() const { return interiorSize == 0; }
};

class DivisionTree {
public:
    // The root is the whole graph: the IS from the graph's source to its sink. Memory is
    // O(|V| + |E|) however deep the IS nest: a node keeps its ends and sizes, and each vertex
    // names the deepest node it is interior to (see the .cpp for how the division avoids
    // re-reading the vertices of the largest member at every level).
    static DivisionTree build(const Graph& graph);

    int root() const { return 0; }
    int size() const { return static_cast<int>(m_nodes.size()); }
    const DivisionNode& node(int index) const { return m_nodes[index]; }
    const std::vector<DivisionNode>& nodes() const { return m_nodes; }
    // Whether any node is a Complicate IS.
    bool hasComplicate() const;
    // A node's interior vertices in topological order, and the node as an IS with its vertex
    // list: built on demand in O(k log k) for an interior of k vertices.
    std::vector<VertexIndex> interior(int index) const;
    // The interior vertices no child of the node has (each vertex is held by one node).
    std::span<const VertexIndex> held(int index) const
    {
        return {m_held.data() + m_heldStart[index], m_held.data() + m_heldStart[index + 1]};
    }
    IndependentSegment segment(int index) const;

private:
    const Graph* m_graph = nullptr;
    std::vector<DivisionNode> m_nodes;
    // The vertices each node holds itself (a Linear IS's splitting vertices, a Complicate IS's
    // connecting vertices): node k's are m_held[m_heldStart[k] .. m_heldStart[k + 1]).
    std::vector<int> m_heldStart;
    std::vector<VertexIndex> m_held;
};

}  // namespace ckpt
