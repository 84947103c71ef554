#pragma once
// Feng & Huang Alg. 5: the checkpoints of least total bytes under a max term C, found by
// walking the division tree, plus the max-term list of Alg. 6 step 1.
#include "graph/Graph.h"
#include "theory/ConstrainedChain.h"
#include "theory/DivisionTree.h"

#include <cstdint>
#include <vector>

namespace ckpt {

class TreeCheckpointSearch {
public:
    TreeCheckpointSearch(const Graph& graph, const DivisionTree& tree);

    // Alg. 6 step 1, deduplicated and ascending: every cost a segment of an IS plan can
    // have. By the completeness of the division tree (Theorem 1) such a segment is a node
    // left whole (for a Branch IS: one branch) or a run of consecutive members of a Linear
    // IS with its inner splitting vertices. The paper lists "all possible IS", which adds
    // values no IS plan's max can take (e.g. two branches together); those C never win
    // (the plan found under them has a smaller max that is on this list), so they are
    // left out.
    std::vector<std::int64_t> maxTerms() const;
    // How many values maxTerms() enumerates before deduplication: nodes plus the runs of
    // every Linear node's members (k(k+1)/2 for k members).
    std::int64_t maxTermEnumeration() const;

    struct Result {
        std::vector<VertexIndex> checkpoints;  // topological order, with source and sink
        std::int64_t bytes = 0;                // their total bytes
        std::int64_t maxSegment = 0;           // the largest segment they leave
        std::int64_t objective() const { return bytes + maxSegment; }
    };
    // Alg. 5 from the root with C = c; c >= 0. Reuses buffers of this object: one search
    // per thread.
    Result solve(std::int64_t c) const;

    // What Alg. 5 does inside one node it breaks down under c (segmentCost > c): the bytes of
    // the checkpoints it adds there (not the node's own ends, which its parent added) and the
    // largest segment it leaves there (0 if none). Alg. 5's result under c is the sum and the max
    // of these over the nodes with segmentCost > c (TreeSweepValues), the root's ends included.
    struct NodeOutcome {
        std::int64_t bytes = 0;
        std::int64_t leftover = 0;
    };
    NodeOutcome outcome(int node, std::int64_t c) const;
    // A Linear node's members (0 for other nodes), and the segment costs a run of its members can
    // have: where the node's outcome can change as c moves.
    int linearLength(int node) const;
    void appendRunCosts(int node, std::vector<std::int64_t>& out) const;

private:
    struct Walk;
    void breakDown(int node, Walk& walk) const;
    // Steps 4–15 of Alg. 5 at one node: adds checkpoints and leaves segments to the walk, and
    // lists the members that still exceed C.
    void divideUnder(int node, Walk& walk, std::vector<int>& exceeding) const;
    Walk startWalk(std::int64_t c) const;

    const Graph& m_graph;
    const DivisionTree& m_tree;
    std::vector<int> m_chainOf;  // per node: index into m_chains for Linear nodes, else -1
    std::vector<ConstrainedChain> m_chains;
    std::vector<std::vector<VertexIndex>> m_chainVertices;  // x_0..x_k of each chain
    mutable ConstrainedChain::Workspace m_work;
    mutable std::vector<int> m_pending;  // nodes still to break down
    mutable std::vector<int> m_chosenStamp;  // == m_stamp: already a checkpoint in this solve
    mutable int m_stamp = 0;
};

}  // namespace ckpt
