#include "solvers/TreeCheckpointSearch.h"

#include "util/RadixSort.h"

#include <algorithm>
#include <limits>

namespace ckpt {

struct TreeCheckpointSearch::Walk {
    std::int64_t c = 0;
    Result result;
    std::vector<int>& chosen;
    int stamp;

    void add(VertexIndex v, const Graph& graph)
    {
        if (chosen[v] == stamp)
            return;
        chosen[v] = stamp;
        result.checkpoints.push_back(v);
        result.bytes += graph.bytes(v);
    }
    void leave(std::int64_t segmentCost) { result.maxSegment = std::max(result.maxSegment, segmentCost); }
};

TreeCheckpointSearch::TreeCheckpointSearch(const Graph& graph, const DivisionTree& tree)
    : m_graph(graph), m_tree(tree), m_chainOf(tree.size(), -1)
{
    for (int n = 0; n < tree.size(); ++n) {
        const DivisionNode& node = tree.node(n);
        if (node.type != SegmentType::Linear)
            continue;
        std::vector<VertexIndex> xs{node.source};
        std::vector<std::int64_t> bytes{graph.bytes(node.source)}, cost, segmentCost;
        for (int child : node.children) {
            const DivisionNode& member = tree.node(child);
            xs.push_back(member.target);
            bytes.push_back(graph.bytes(member.target));
            cost.push_back(member.cost);
            segmentCost.push_back(member.segmentCost);
        }
        m_chainOf[n] = static_cast<int>(m_chains.size());
        m_chains.emplace_back(std::move(bytes), std::move(cost), std::move(segmentCost));
        m_chainVertices.push_back(std::move(xs));
    }
}

std::vector<std::int64_t> TreeCheckpointSearch::maxTerms() const
{
    // A chain of k members has k(k+1)/2 runs but usually far fewer distinct costs, so new
    // values are merged into the sorted distinct list whenever they outnumber it: memory
    // stays in O(distinct values + k), not O(k^2).
    std::vector<std::int64_t> terms;
    std::size_t sorted = 0;
    auto compact = [&terms, &sorted] {
        radixSort(std::span(terms).subspan(sorted));
        std::inplace_merge(terms.begin(), terms.begin() + sorted, terms.end());
        terms.erase(std::unique(terms.begin(), terms.end()), terms.end());
        sorted = terms.size();
    };
    for (const DivisionNode& node : m_tree.nodes())
        terms.push_back(node.segmentCost);
    compact();
    for (const ConstrainedChain& chain : m_chains)
        for (int p = 0; p < chain.length(); ++p) {
            chain.appendSegmentCostsFrom(p, terms);
            if (terms.size() - sorted > sorted + 4096)
                compact();
        }
    compact();
    return terms;
}

std::int64_t TreeCheckpointSearch::maxTermEnumeration() const
{
    std::int64_t count = m_tree.size();
    for (const ConstrainedChain& chain : m_chains)
        count += static_cast<std::int64_t>(chain.length()) * (chain.length() + 1) / 2;
    return count;
}

TreeCheckpointSearch::Walk TreeCheckpointSearch::startWalk(std::int64_t c) const
{
    if (m_chosenStamp.empty() || m_stamp == std::numeric_limits<int>::max()) {
        m_chosenStamp.assign(m_graph.vertexCount(), 0);
        m_stamp = 0;
    }
    return Walk{c, {}, m_chosenStamp, ++m_stamp};
}

TreeCheckpointSearch::Result TreeCheckpointSearch::solve(std::int64_t c) const
{
    Walk walk = startWalk(c);
    walk.add(m_graph.source(), m_graph);
    walk.add(m_graph.sink(), m_graph);
    const DivisionNode& root = m_tree.node(m_tree.root());
    if (root.segmentCost <= c)
        walk.leave(root.segmentCost);
    else
        breakDown(m_tree.root(), walk);
    auto& cps = walk.result.checkpoints;
    std::sort(cps.begin(), cps.end(), [this](VertexIndex a, VertexIndex b) {
        return m_graph.topologicalPosition(a) < m_graph.topologicalPosition(b);
    });
    return std::move(walk.result);
}

TreeCheckpointSearch::NodeOutcome TreeCheckpointSearch::outcome(int node, std::int64_t c) const
{
    Walk walk = startWalk(c);
    walk.chosen[m_tree.node(node).source] = walk.stamp;
    walk.chosen[m_tree.node(node).target] = walk.stamp;
    std::vector<int> exceeding;
    divideUnder(node, walk, exceeding);
    return {walk.result.bytes, walk.result.maxSegment};
}

int TreeCheckpointSearch::linearLength(int node) const
{
    return m_chainOf[node] < 0 ? 0 : m_chains[m_chainOf[node]].length();
}

void TreeCheckpointSearch::appendRunCosts(int node, std::vector<std::int64_t>& out) const
{
    if (m_chainOf[node] < 0)
        return;
    const ConstrainedChain& chain = m_chains[m_chainOf[node]];
    for (int p = 0; p < chain.length(); ++p)
        chain.appendSegmentCostsFrom(p, out);
}

// Alg. 5 for an IS whose source and target are checkpoints and that leaves a segment
// larger than C. "Cost of s" in its step 1 is read as the largest segment s leaves with
// only its ends as checkpoints (segmentCost): for a Branch IS that is its largest branch,
// because branches are re-forwarded one after the other; Alg. 5's own Branch step agrees (it
// adds nothing but v_i, v_j and recurses only into branches that exceed C).
// The paper's recursion becomes a work list (the tree can be as deep as the graph is long):
// what a node adds does not depend on the order in which nodes are broken down.
void TreeCheckpointSearch::breakDown(int top, Walk& walk) const
{
    std::vector<int>& pending = m_pending;
    pending.assign(1, top);
    std::vector<int> exceeding;
    while (!pending.empty()) {
        const int index = pending.back();
        pending.pop_back();
        exceeding.clear();
        divideUnder(index, walk, exceeding);
        pending.insert(pending.end(), exceeding.begin(), exceeding.end());
    }
}

void TreeCheckpointSearch::divideUnder(int index, Walk& walk, std::vector<int>& exceeding) const
{
    const DivisionNode& node = m_tree.node(index);
    if (node.type == SegmentType::Linear) {
        // Steps 4–10: members exceeding C are broken down with both ends as checkpoints;
        // the runs of members between them are LCG problems under C (Fig. 6). The last
        // run (after the last broken member) is solved the same way.
        const ConstrainedChain& chain = m_chains[m_chainOf[index]];
        const auto& xs = m_chainVertices[m_chainOf[index]];
        auto solveRun = [&](int from, int to) {
            if (from >= to)
                return;
            const ConstrainedChain::Solution& s = chain.solve(from, to, walk.c, m_work);
            for (int x : s.chosen)
                walk.add(xs[x], m_graph);
            walk.leave(s.maxSegment);
        };
        int from = 0;
        for (int m = 0; m < chain.length(); ++m) {
            const int member = node.children[m];
            if (m_tree.node(member).segmentCost <= walk.c)
                continue;
            solveRun(from, m);
            walk.add(xs[m], m_graph);
            walk.add(xs[m + 1], m_graph);
            exceeding.push_back(member);
            from = m + 1;
        }
        solveRun(from, chain.length());
        return;
    }
    // Steps 12–15 (Branch and Complicate IS): every member's ends become checkpoints;
    // members still exceeding C are broken down.
    for (int member : node.children) {
        const DivisionNode& m = m_tree.node(member);
        walk.add(m.source, m_graph);
        walk.add(m.target, m_graph);
        if (m.segmentCost > walk.c)
            exceeding.push_back(member);
        else if (!m.isSingleEdge())
            walk.leave(m.segmentCost);
    }
}

}  // namespace ckpt
