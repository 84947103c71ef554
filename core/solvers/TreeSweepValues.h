#pragma once
// Alg. 5's result size under any max term C — S(C), the least checkpoint bytes, and the largest
// segment left — without walking the division tree, so that the C sweep of Alg. 6 costs
// O(log |V|) per C instead of a walk as deep as the IS nest.
//
// A vertex is added by exactly one node: the one whose own splitting or connecting vertex it is
// (or the root, for the graph's source and sink). So S(C) is a sum over the nodes Alg. 5 breaks
// down — those with segmentCost > C, as segment costs shrink down the tree — of what each adds
// inside itself, and the largest segment a max over them (TreeCheckpointSearch::outcome). A node
// with few members adds a step function of C whose steps lie at its members' and runs' costs:
// those are tabulated once, as sums of steps and a max over intervals. A Linear node with many
// members (a long chain, whose runs have O(k^2) costs) is solved when asked, O(k) per C.
#include "solvers/MaxTermSweep.h"
#include "solvers/TreeCheckpointSearch.h"

#include <cstdint>
#include <vector>

namespace ckpt {

class TreeSweepValues {
public:
    TreeSweepValues(const Graph& graph, const DivisionTree& tree, const TreeCheckpointSearch& search);

    // S(c) and the largest segment of the plan Alg. 5 finds under c (no checkpoint list).
    SweepPoint at(std::int64_t c) const;

    // Whether every node that can be broken down is solved per C (a plain chain): then a walk
    // costs what a value does, and gives the checkpoints too.
    bool tabulatesNothing() const { return m_tabulated == 0; }

    // Linear nodes with more members than this are solved per C instead of tabulated.
    static constexpr int kTabulatedMembers = 8;

private:
    void tabulate(int node, std::vector<std::int64_t>& scratch);

    const DivisionTree& m_tree;
    const TreeCheckpointSearch& m_search;
    std::int64_t m_endBytes = 0;  // the graph's source and sink
    // Tabulated nodes' bytes: S is the sum of the deltas at positions <= C.
    std::vector<std::pair<std::int64_t, std::int64_t>> m_steps;  // (position, delta), sorted
    std::vector<std::int64_t> m_stepSums;                        // running sums of the deltas
    // Tabulated nodes' largest segments: intervals [from, to) of C with a value, their max at
    // C in a segment tree over the elementary intervals between the sorted distinct bounds.
    struct Interval {
        std::int64_t from, to, value;
    };
    std::vector<Interval> m_intervals;
    std::vector<std::int64_t> m_bounds;
    std::vector<std::int64_t> m_maxTree;
    std::vector<int> m_solvedPerC;
    int m_tabulated = 0;  // the Linear nodes with more than kTabulatedMembers members
};

}  // namespace ckpt
