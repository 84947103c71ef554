#include "theory/DivisionTree.h"

#include <algorithm>
#include <numeric>
#include <unordered_set>

namespace ckpt {

std::string segmentTypeName(SegmentType type)
{
    switch (type) {
    case SegmentType::Linear:
        return "linear";
    case SegmentType::Branch:
        return "branch";
    case SegmentType::Complicate:
        return "complicate";
    case SegmentType::Leaf:
        break;
    }
    return "leaf";
}

namespace {

// Divides IS of one graph, keeping graph-sized scratch arrays between calls so that each
// division costs time in the size of the IS, not of the graph.
class Divider {
public:
    explicit Divider(const Graph& graph)
        : m_graph(graph), m_local(graph.vertexCount(), -1), m_mark(graph.vertexCount(), 0)
    {
    }

    Division divide(const IndependentSegment& s)
    {
        Division d;
        if (s.isSingleEdge())
            return d;
        if (std::vector<VertexIndex> splits = linearSplittingVertices(m_graph, s, m_local); !splits.empty()) {
            d.type = SegmentType::Linear;
            d.members = linearMembers(s, splits);
            return d;
        }
        d.members = branches(s);
        if (d.members.size() >= 2) {
            d.type = SegmentType::Branch;
            return d;
        }
        d.type = SegmentType::Complicate;
        d.members = maximalMembers(s);
        return d;
    }

private:
    IndependentSegment makeSegment(VertexIndex p, VertexIndex q, std::vector<VertexIndex> vertices, bool direct) const
    {
        IndependentSegment out;
        out.source = p;
        out.target = q;
        out.hasDirectEdge = direct;
        out.vertices = std::move(vertices);
        for (std::size_t k = 1; k + 1 < out.vertices.size(); ++k)
            out.cost += m_graph.bytes(out.vertices[k]);
        return out;
    }

    // Alg. 2: the IS between consecutive splitting vertices. Every vertex is an ancestor or
    // a descendant of each splitting vertex, so the members are contiguous runs of the
    // IS's topological order.
    std::vector<IndependentSegment> linearMembers(const IndependentSegment& s, const std::vector<VertexIndex>& splits)
    {
        std::vector<IndependentSegment> out;
        std::size_t from = 0;
        for (std::size_t k = 0; k <= splits.size(); ++k) {
            const VertexIndex end = k < splits.size() ? splits[k] : s.target;
            std::size_t to = from;
            while (s.vertices[to] != end)
                ++to;
            std::vector<VertexIndex> vs(s.vertices.begin() + from, s.vertices.begin() + to + 1);
            out.push_back(makeSegment(s.vertices[from], end, std::move(vs), hasEdge(m_graph, s.vertices[from], end)));
            from = to;
        }
        return out;
    }

    // Alg. 3: the direct edge is a branch of its own; the other branches are the connected
    // components of the interior, each with the source and the target. (The paper grows
    // each component by BFS from a random vertex; a union-find over the interior edges
    // gives the same components.)
    std::vector<IndependentSegment> branches(const IndependentSegment& s)
    {
        const auto& vs = s.vertices;
        const int n = static_cast<int>(vs.size());
        for (int k = 1; k + 1 < n; ++k)
            m_local[vs[k]] = k;
        std::vector<int> parent(n);
        std::iota(parent.begin(), parent.end(), 0);
        auto find = [&parent](int x) {
            while (parent[x] != x)
                x = parent[x] = parent[parent[x]];
            return x;
        };
        for (int k = 1; k + 1 < n; ++k)
            for (VertexIndex w : m_graph.successors(vs[k]))
                if (m_local[w] > 0)
                    parent[find(k)] = find(m_local[w]);
        std::vector<IndependentSegment> out;
        if (s.hasDirectEdge)
            out.push_back(makeSegment(s.source, s.target, {s.source, s.target}, true));
        std::vector<int> slot(n, -1);
        for (int k = 1; k + 1 < n; ++k) {
            const int root = find(k);
            if (slot[root] < 0) {
                slot[root] = static_cast<int>(out.size());
                out.push_back(makeSegment(s.source, s.target, {s.source}, false));
            }
            out[slot[root]].vertices.push_back(vs[k]);
            out[slot[root]].cost += m_graph.bytes(vs[k]);
        }
        for (std::size_t b = s.hasDirectEdge ? 1 : 0; b < out.size(); ++b)
            out[b].vertices.push_back(s.target);
        for (int k = 1; k + 1 < n; ++k)
            m_local[vs[k]] = -1;
        return out;
    }

    // Def. 6 / Alg. 4: the maximal proper IS inside a Complicate IS s_ij.
    //
    // The paper tests every vertex pair (O(|V|^2 |E|)). Here: the interior of an IS s_pq
    // inside s_ij is dominated by p (from i) and post-dominated by q (towards j), so the
    // only pairs worth testing are (a dominator of x, a post-dominator of x) for interior
    // vertices x; each pair's largest IS is found by peeling the doubly dominated set
    // (peelToIndependent). Maximal IS are pairwise interior-disjoint (supp. Lemmas 1, 3 —
    // two crossing IS would give s_ij a linear splitting vertex), so taking candidates by
    // decreasing size and keeping those disjoint from the ones kept gives the division;
    // the edges left over are single-edge members.
    std::vector<IndependentSegment> maximalMembers(const IndependentSegment& s)
    {
        const auto& vs = s.vertices;
        const int n = static_cast<int>(vs.size());
        for (int k = 0; k < n; ++k)
            m_local[vs[k]] = k;
        const std::vector<int> idom = dominators(vs, true);
        const std::vector<int> ipdom = dominators(vs, false);
        const auto domTree = eulerIntervals(idom, 0);
        const auto pdomTree = eulerIntervals(ipdom, n - 1);

        // A vertex with one predecessor and one successor (a link of a chain) is never the
        // source of a maximal member: s_pq would extend to s_(pred p)q, still proper since s_ij
        // has no splitting vertex. Likewise for targets. Dominator chains skip such links.
        std::vector<char> link(n, 0);
        for (int k = 1; k + 1 < n; ++k)
            link[k] = m_graph.predecessors(vs[k]).size() == 1 && m_graph.successors(vs[k]).size() == 1;
        std::vector<int> up(n, -1), down(n, -1);  // nearest strict (post-)dominator that is no link
        for (int x = 1; x < n; ++x)
            up[x] = link[idom[x]] ? up[idom[x]] : idom[x];
        for (int x = n - 2; x >= 0; --x)
            down[x] = link[ipdom[x]] ? down[ipdom[x]] : ipdom[x];

        std::unordered_set<std::int64_t> pairs;
        for (int x = 1; x + 1 < n; ++x)
            for (int p = up[x]; p >= 0; p = up[p])
                for (int q = down[x]; q >= 0; q = down[q])
                    if (p != 0 || q != n - 1)
                        pairs.insert(static_cast<std::int64_t>(p) * n + q);

        struct Candidate {
            int p, q;
            std::vector<VertexIndex> interior;
        };
        std::vector<Candidate> candidates;
        for (std::int64_t key : pairs) {
            const int p = static_cast<int>(key / n), q = static_cast<int>(key % n);
            std::vector<VertexIndex> start;
            for (int t = domTree.in[p] + 1; t < domTree.out[p]; ++t) {
                const int y = domTree.order[t];
                if (y != q && pdomTree.in[q] < pdomTree.in[y] && pdomTree.in[y] < pdomTree.out[q]) {
                    start.push_back(vs[y]);
                    m_mark[vs[y]] = 1;
                }
            }
            std::vector<VertexIndex> interior = peelToIndependent(m_graph, vs[p], vs[q], std::move(start), m_mark);
            for (VertexIndex v : interior)
                m_mark[v] = 0;
            if (!interior.empty())
                candidates.push_back({p, q, std::move(interior)});
        }
        std::sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) {
            return a.interior.size() != b.interior.size() ? a.interior.size() > b.interior.size()
                                                          : std::tie(a.p, a.q) < std::tie(b.p, b.q);
        });

        std::vector<IndependentSegment> out;
        std::vector<char> covered(n, 0);
        std::unordered_set<std::int64_t> keptPairs;
        for (Candidate& c : candidates) {
            if (std::any_of(c.interior.begin(), c.interior.end(), [&](VertexIndex v) { return covered[m_local[v]]; }))
                continue;
            std::vector<VertexIndex> members{vs[c.p]};
            for (VertexIndex v : c.interior)
                covered[m_local[v]] = 1;
            std::sort(c.interior.begin(), c.interior.end(),
                      [this](VertexIndex a, VertexIndex b) { return m_local[a] < m_local[b]; });
            members.insert(members.end(), c.interior.begin(), c.interior.end());
            members.push_back(vs[c.q]);
            keptPairs.insert(static_cast<std::int64_t>(c.p) * n + c.q);
            out.push_back(makeSegment(vs[c.p], vs[c.q], std::move(members), hasEdge(m_graph, vs[c.p], vs[c.q])));
        }
        for (int a = 0; a < n; ++a) {
            if (covered[a])
                continue;
            for (VertexIndex w : m_graph.successors(vs[a])) {
                const int b = m_local[w];
                // A Complicate IS never owns its direct edge (Alg. 3 would make it a branch).
                if (b < 0 || covered[b] || (a == 0 && b == n - 1) ||
                    keptPairs.count(static_cast<std::int64_t>(a) * n + b))
                    continue;
                out.push_back(makeSegment(vs[a], w, {vs[a], w}, true));
            }
        }
        for (int k = 0; k < n; ++k)
            m_local[vs[k]] = -1;
        std::sort(out.begin(), out.end(), [this](const IndependentSegment& a, const IndependentSegment& b) {
            const auto pa = m_graph.topologicalPosition(a.source), pb = m_graph.topologicalPosition(b.source);
            return pa != pb ? pa < pb : m_graph.topologicalPosition(a.target) < m_graph.topologicalPosition(b.target);
        });
        return out;
    }

    // Immediate dominators (forward: from vs.front()) or post-dominators (towards
    // vs.back()) inside the IS, as local indices; the root's is -1. In a DAG processed in
    // topological order, idom(x) is the nearest common dominator of x's predecessors.
    std::vector<int> dominators(const std::vector<VertexIndex>& vs, bool forward) const
    {
        const int n = static_cast<int>(vs.size());
        std::vector<int> idom(n, -1), depth(n, 0);
        auto meet = [&](int a, int b) {
            while (a != b) {
                if (depth[a] < depth[b])
                    std::swap(a, b);
                a = idom[a];
            }
            return a;
        };
        for (int step = 1; step < n; ++step) {
            const int x = forward ? step : n - 1 - step;
            int d = -1;
            for (VertexIndex w : forward ? m_graph.predecessors(vs[x]) : m_graph.successors(vs[x])) {
                const int k = m_local[w];
                if (k < 0)
                    continue;
                d = d < 0 ? k : meet(d, k);
            }
            idom[x] = d;
            depth[x] = depth[d] + 1;
        }
        return idom;
    }

    struct Euler {
        std::vector<int> in, out, order;  // y is below x iff in[x] < in[y] < out[x]
    };

    static Euler eulerIntervals(const std::vector<int>& parent, int root)
    {
        const int n = static_cast<int>(parent.size());
        std::vector<std::vector<int>> children(n);
        for (int x = 0; x < n; ++x)
            if (parent[x] >= 0)
                children[parent[x]].push_back(x);
        Euler e{std::vector<int>(n), std::vector<int>(n), {}};
        std::vector<std::pair<int, std::size_t>> stack{{root, 0}};
        e.in[root] = 0;
        e.order.push_back(root);
        while (!stack.empty()) {
            auto& [x, next] = stack.back();
            if (next < children[x].size()) {
                const int c = children[x][next++];
                e.in[c] = static_cast<int>(e.order.size());
                e.order.push_back(c);
                stack.push_back({c, 0});
            } else {
                e.out[x] = static_cast<int>(e.order.size());
                stack.pop_back();
            }
        }
        return e;
    }

    const Graph& m_graph;
    std::vector<int> m_local;
    std::vector<char> m_mark;
};

}  // namespace

Division divide(const Graph& graph, const IndependentSegment& segment)
{
    return Divider(graph).divide(segment);
}

DivisionTree DivisionTree::build(const Graph& graph)
{
    DivisionTree tree;
    DivisionNode root;
    root.segment.source = graph.source();
    root.segment.target = graph.sink();
    root.segment.vertices = graph.topologicalOrder();
    root.segment.hasDirectEdge = hasEdge(graph, graph.source(), graph.sink());
    for (std::size_t k = 1; k + 1 < root.segment.vertices.size(); ++k)
        root.segment.cost += graph.bytes(root.segment.vertices[k]);
    tree.m_nodes.push_back(std::move(root));

    Divider divider(graph);
    // Nodes are appended as they are found; a node is divided once its turn comes.
    for (std::size_t index = 0; index < tree.m_nodes.size(); ++index) {
        Division division = divider.divide(tree.m_nodes[index].segment);
        tree.m_nodes[index].type = division.type;
        std::int64_t largestBranch = 0;
        for (IndependentSegment& member : division.members) {
            DivisionNode child;
            child.segment = std::move(member);
            child.segmentCost = child.segment.cost;
            child.parent = static_cast<int>(index);
            largestBranch = std::max(largestBranch, child.segmentCost);
            tree.m_nodes[index].children.push_back(static_cast<int>(tree.m_nodes.size()));
            tree.m_nodes.push_back(std::move(child));
        }
        DivisionNode& node = tree.m_nodes[index];
        node.segmentCost = node.type == SegmentType::Branch ? largestBranch : node.segment.cost;
    }
    return tree;
}

bool DivisionTree::hasComplicate() const
{
    return std::any_of(m_nodes.begin(), m_nodes.end(),
                       [](const DivisionNode& n) { return n.type == SegmentType::Complicate; });
}

}  // namespace ckpt
