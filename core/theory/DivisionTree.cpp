#include "theory/DivisionTree.h"

#include <algorithm>
#include <numeric>
#include <queue>
#include <map>

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
        : m_graph(graph), m_local(graph.vertexCount(), -1)
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
    // The paper tests every vertex pair and stores every IS (O(|V|^2 |E|) time, O(|V|^4)
    // space). Here we find the *connecting* vertices first: an interior vertex connects
    // members iff no proper IS has it inside. The smallest IS with x inside is a closure:
    // start from {x}; its source must strictly dominate the set (from i) and its target
    // strictly post-dominate it (towards j), so take the nearest such vertices p, q; every
    // other neighbour of the set is forced inside; repeat. If p, q reach i, j the closure is
    // s_ij itself (it has one branch), so x connects; a forced vertex already known to connect
    // ends the closure the same way. The members are then the components of the remaining
    // interior grouped by the connecting vertices around them (supp. Lemmas 5, 6: each has
    // exactly one source and one target), plus the edges between connecting vertices.
    std::vector<IndependentSegment> maximalMembers(const IndependentSegment& s)
    {
        const auto& vs = s.vertices;
        const int n = static_cast<int>(vs.size());
        for (int k = 0; k < n; ++k)
            m_local[vs[k]] = k;
        const DominatorTree dom = dominators(vs, true);
        const DominatorTree pdom = dominators(vs, false);
        std::vector<std::vector<int>> near(n);
        for (int a = 0; a < n; ++a)
            for (VertexIndex w : m_graph.successors(vs[a]))
                if (const int b = m_local[w]; b >= 0 && (a != 0 || b != n - 1)) {
                    near[a].push_back(b);
                    near[b].push_back(a);
                }

        enum : char { Unknown, Connecting, Inside };
        std::vector<char> status(n, Unknown);
        status[0] = status[n - 1] = Connecting;
        std::vector<int> inClosure(n, -1), closure, deferred;
        // Vertices still to expand, earliest first: a connecting vertex's closure then meets an
        // earlier (already known) connecting vertex before it sweeps the rest of s_ij.
        std::priority_queue<int, std::vector<int>, std::greater<int>> pending;
        for (int x = 1; x + 1 < n; ++x) {
            if (status[x] != Unknown)
                continue;
            closure.assign(1, x);
            deferred.clear();
            inClosure[x] = x;
            int lowDom = x, lowPdom = x;  // common (post-)dominator of the closure
            auto source = [&] { return inClosure[lowDom] == x ? dom.parent[lowDom] : lowDom; };
            auto target = [&] { return inClosure[lowPdom] == x ? pdom.parent[lowPdom] : lowPdom; };
            bool connects = false;
            pending = {};
            pending.push(x);
            auto take = [&](int w) {
                inClosure[w] = x;
                closure.push_back(w);
                pending.push(w);
                lowDom = dom.meet(lowDom, w);
                lowPdom = pdom.meet(lowPdom, w);
            };
            while (!connects) {
                if (pending.empty()) {
                    // The ends may have moved up past vertices set aside as ends: take them in.
                    const int p = source(), q = target();
                    const auto before = closure.size();
                    for (int w : deferred)
                        if (inClosure[w] != x && w != p && w != q) {
                            connects = connects || status[w] == Connecting;
                            take(w);
                        }
                    deferred.clear();
                    if (closure.size() == before)
                        break;
                    connects = connects || (source() == 0 && target() == n - 1);
                    continue;
                }
                const int v = pending.top();
                pending.pop();
                for (int w : near[v]) {
                    if (inClosure[w] == x)
                        continue;
                    if (w == source() || w == target()) {
                        deferred.push_back(w);
                        continue;
                    }
                    if (status[w] == Connecting) {
                        connects = true;
                        break;
                    }
                    take(w);
                    if (source() == 0 && target() == n - 1) {
                        connects = true;
                        break;
                    }
                }
            }
            if (connects)
                status[x] = Connecting;
            else
                for (int v : closure)
                    status[v] = Inside;
        }

        // Components of the inside vertices, each with its one source and one target.
        std::vector<int> component(n, -1);
        std::map<std::pair<int, int>, int> memberOf;  // (source, target) -> index in out
        std::vector<std::vector<VertexIndex>> interiors;
        std::vector<std::pair<int, int>> ends;
        for (int x = 1; x + 1 < n; ++x) {
            if (status[x] != Inside || component[x] >= 0)
                continue;
            std::vector<int> members{x};
            component[x] = x;
            int p = -1, q = -1;
            for (std::size_t k = 0; k < members.size(); ++k)
                for (int w : near[members[k]]) {
                    if (status[w] == Connecting)
                        (w < members[k] ? p : q) = w;  // local indices are topological
                    else if (component[w] < 0) {
                        component[w] = x;
                        members.push_back(w);
                    }
                }
            auto [it, fresh] = memberOf.try_emplace({p, q}, static_cast<int>(interiors.size()));
            if (fresh) {
                interiors.emplace_back();
                ends.push_back({p, q});
            }
            for (int v : members)
                interiors[it->second].push_back(vs[v]);
        }
        std::vector<IndependentSegment> out;
        for (std::size_t m = 0; m < interiors.size(); ++m) {
            auto& inner = interiors[m];
            std::sort(inner.begin(), inner.end(), [this](VertexIndex a, VertexIndex b) { return m_local[a] < m_local[b]; });
            std::vector<VertexIndex> vertices{vs[ends[m].first]};
            vertices.insert(vertices.end(), inner.begin(), inner.end());
            vertices.push_back(vs[ends[m].second]);
            out.push_back(makeSegment(vs[ends[m].first], vs[ends[m].second], std::move(vertices),
                                      hasEdge(m_graph, vs[ends[m].first], vs[ends[m].second])));
        }
        // Edges between connecting vertices that no member owns (a Complicate IS never owns
        // its own direct edge: Alg. 3 would have made it a branch).
        for (int a = 0; a < n; ++a) {
            if (status[a] != Connecting)
                continue;
            for (VertexIndex w : m_graph.successors(vs[a])) {
                const int b = m_local[w];
                if (b < 0 || status[b] != Connecting || (a == 0 && b == n - 1) || memberOf.count({a, b}))
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

    // A dominator tree over local indices with binary lifting, so that the nearest common
    // dominator of two vertices costs O(log n) even when the tree is deep.
    struct DominatorTree {
        int levels = 1;
        std::vector<int> parent, depth;  // the root's parent is -1
        std::vector<int> up;             // up[k * n + v]: the 2^k-th ancestor (the root above it)

        DominatorTree(int n, int root) : parent(n, -1), depth(n, 0)
        {
            while ((1 << levels) < n)
                ++levels;
            up.assign(static_cast<std::size_t>(levels) * n, root);
        }
        void attach(int v, int to)
        {
            const int n = static_cast<int>(parent.size());
            parent[v] = to;
            depth[v] = depth[to] + 1;
            up[v] = to;
            for (int k = 1; k < levels; ++k)
                up[k * n + v] = up[(k - 1) * n + up[(k - 1) * n + v]];
        }
        int meet(int a, int b) const
        {
            const int n = static_cast<int>(parent.size());
            if (depth[a] < depth[b])
                std::swap(a, b);
            for (int k = levels - 1; k >= 0; --k)
                if (depth[a] - (1 << k) >= depth[b])
                    a = up[k * n + a];
            if (a == b)
                return a;
            for (int k = levels - 1; k >= 0; --k)
                if (up[k * n + a] != up[k * n + b]) {
                    a = up[k * n + a];
                    b = up[k * n + b];
                }
            return parent[a];
        }
    };

    // Immediate dominators (forward: from vs.front()) or post-dominators (towards
    // vs.back()) inside the IS. In a DAG processed in topological order, idom(x) is the
    // nearest common dominator of x's predecessors.
    DominatorTree dominators(const std::vector<VertexIndex>& vs, bool forward) const
    {
        const int n = static_cast<int>(vs.size());
        DominatorTree t(n, forward ? 0 : n - 1);
        for (int step = 1; step < n; ++step) {
            const int x = forward ? step : n - 1 - step;
            int d = -1;
            for (VertexIndex w : forward ? m_graph.predecessors(vs[x]) : m_graph.successors(vs[x])) {
                const int k = m_local[w];
                if (k < 0 || (forward ? (k == 0 && x == n - 1) : (k == n - 1 && x == 0)))
                    continue;
                d = d < 0 ? k : t.meet(d, k);
            }
            t.attach(x, d);
        }
        return t;
    }

    const Graph& m_graph;
    std::vector<int> m_local;
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
