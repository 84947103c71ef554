#include "solvers/TreeSweepValues.h"

#include <algorithm>
#include <limits>

namespace ckpt {

TreeSweepValues::TreeSweepValues(const Graph& graph, const DivisionTree& tree, const TreeCheckpointSearch& search)
    : m_tree(tree), m_search(search)
{
    m_endBytes = graph.bytes(graph.source()) + (graph.sink() != graph.source() ? graph.bytes(graph.sink()) : 0);
    std::vector<std::int64_t> scratch;
    for (int node = 0; node < tree.size(); ++node) {
        if (tree.node(node).segmentCost <= 0)
            continue;  // never broken down (C >= 0)
        if (search.linearLength(node) > kTabulatedMembers)
            m_solvedPerC.push_back(node);
        else {
            tabulate(node, scratch);
            ++m_tabulated;
        }
    }
    std::sort(m_steps.begin(), m_steps.end());
    m_stepSums.reserve(m_steps.size());
    std::int64_t sum = 0;
    for (const auto& step : m_steps)
        m_stepSums.push_back(sum += step.second);

    for (const Interval& i : m_intervals) {
        m_bounds.push_back(i.from);
        m_bounds.push_back(i.to);
    }
    std::sort(m_bounds.begin(), m_bounds.end());
    m_bounds.erase(std::unique(m_bounds.begin(), m_bounds.end()), m_bounds.end());
    const std::size_t n = m_bounds.size();
    m_maxTree.assign(2 * n, 0);
    auto slot = [this](std::int64_t c) {
        return static_cast<std::size_t>(std::lower_bound(m_bounds.begin(), m_bounds.end(), c) - m_bounds.begin());
    };
    for (const Interval& i : m_intervals)
        for (std::size_t l = slot(i.from) + n, r = slot(i.to) + n; l < r; l >>= 1, r >>= 1) {
            if (l & 1) {
                m_maxTree[l] = std::max(m_maxTree[l], i.value);
                ++l;
            }
            if (r & 1) {
                --r;
                m_maxTree[r] = std::max(m_maxTree[r], i.value);
            }
        }
    m_intervals = {};
}

void TreeSweepValues::tabulate(int node, std::vector<std::int64_t>& scratch)
{
    const DivisionNode& x = m_tree.node(node);
    const std::int64_t top = x.segmentCost;
    auto add = [this](std::int64_t from, std::int64_t to, const TreeCheckpointSearch::NodeOutcome& o) {
        if (o.bytes != 0) {
            m_steps.push_back({from, o.bytes});
            m_steps.push_back({to, -o.bytes});
        }
        if (o.leftover > 0)
            m_intervals.push_back({from, to, o.leftover});
    };
    if (m_search.linearLength(node) == 0) {
        // Branch and Complicate IS (Alg. 5 steps 12–15) add every member's ends whatever C is, and
        // leave each member that fits: the largest member segment <= C.
        add(0, top, {m_search.outcome(node, 0).bytes, 0});
        for (int child : x.children)
            if (const std::int64_t c = m_tree.node(child).segmentCost; !m_tree.node(child).isSingleEdge() && c < top)
                add(c, top, {0, c});
        return;
    }
    // A short Linear IS: its outcome is constant between consecutive values at which a member or a
    // run of members stops fitting C, so it is asked once per such interval below its segment cost.
    scratch.assign(1, 0);
    for (int child : x.children)
        scratch.push_back(m_tree.node(child).segmentCost);
    m_search.appendRunCosts(node, scratch);
    std::erase_if(scratch, [top](std::int64_t c) { return c >= top; });
    std::sort(scratch.begin(), scratch.end());
    scratch.erase(std::unique(scratch.begin(), scratch.end()), scratch.end());
    for (std::size_t k = 0; k < scratch.size(); ++k)
        add(scratch[k], k + 1 < scratch.size() ? scratch[k + 1] : top, m_search.outcome(node, scratch[k]));
}

SweepPoint TreeSweepValues::at(std::int64_t c) const
{
    SweepPoint p;
    p.bytes = m_endBytes;
    const DivisionNode& root = m_tree.node(m_tree.root());
    if (root.segmentCost <= c) {
        p.maxSegment = root.segmentCost;
        return p;
    }
    const auto steps = std::upper_bound(m_steps.begin(), m_steps.end(), std::pair{c, std::numeric_limits<std::int64_t>::max()}) - m_steps.begin();
    if (steps > 0)
        p.bytes += m_stepSums[static_cast<std::size_t>(steps - 1)];
    const std::size_t n = m_bounds.size();
    const auto after = static_cast<std::size_t>(std::upper_bound(m_bounds.begin(), m_bounds.end(), c) - m_bounds.begin());
    if (after > 0)
        for (std::size_t j = after - 1 + n; j > 0; j >>= 1)
            p.maxSegment = std::max(p.maxSegment, m_maxTree[j]);
    for (int node : m_solvedPerC)
        if (m_tree.node(node).segmentCost > c) {
            const TreeCheckpointSearch::NodeOutcome o = m_search.outcome(node, c);
            p.bytes += o.bytes;
            p.maxSegment = std::max(p.maxSegment, o.leftover);
        }
    return p;
}

}  // namespace ckpt
