#include "theory/DivisionTree.h"

#include "graph/DominatorTree.h"

#include <algorithm>
#include <numeric>
#include <queue>
#include <map>
#include <stdexcept>

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

public:
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
            auto source = [&] { return inClosure[lowDom] == x ? dom.parent(lowDom) : lowDom; };
            auto target = [&] { return inClosure[lowPdom] == x ? pdom.parent(lowPdom) : lowPdom; };
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

private:
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

namespace {

// Builds the tree top down (nodes in breadth-first order, as Fig. 5 draws it), reading each
// vertex O(log |V|) times however deep the IS nest, instead of once per enclosing IS:
//  - Every vertex carries a label naming the node whose interior it lies in (the deepest found
//    so far). When a node is divided, the members are found by searches from their first
//    vertices, run in turn one step each until all but one have finished; that one is the
//    largest, keeps the node's label unread, and its cost is what the others leave
//    (the smaller-half rule).
//  - The splitting vertices of an IS s_pq (Def. 2) come from the graph's dominator tree: every
//    path into an interior vertex of s comes through p (Def. 1), so the interior vertices on
//    every p -> q path are the dominators of q's predecessors in s up to p: the dominator-tree
//    path from their nearest common dominator up to p, empty when s owns the edge p -> q.
//  - A Complicate IS's members come from Alg. 4 (Divider::maximalMembers) over its whole
//    interior: the one step that still reads an IS per level (nested Complicate IS are rare).
class TreeBuilder {
public:
    TreeBuilder(const Graph& graph, std::vector<DivisionNode>& nodes)
        : m_graph(graph), m_nodes(nodes), m_divider(graph), m_dominators(DominatorTree::ofGraph(graph)),
          m_label(graph.vertexCount(), -1), m_seenStamp(graph.vertexCount(), 0), m_seenBy(graph.vertexCount(), -1)
    {
    }

    void build()
    {
        DivisionNode root;
        root.source = m_graph.source();
        root.target = m_graph.sink();
        root.hasDirectEdge = hasEdge(m_graph, root.source, root.target);
        const int rootClass = newClass(0);
        for (VertexIndex v = 0; v < m_graph.vertexCount(); ++v)
            if (v != root.source && v != root.target) {
                m_label[v] = rootClass;
                root.cost += m_graph.bytes(v);
                ++root.interiorSize;
            }
        m_nodes.push_back(std::move(root));
        m_nodeClass.push_back(rootClass);
        for (std::size_t index = 0; index < m_nodes.size(); ++index)
            divide(static_cast<int>(index));
    }

    // The node each vertex is interior to and no child of it is (-1: the graph's source and sink).
    std::vector<int> holders() const
    {
        std::vector<int> out(m_label.size(), -1);
        for (std::size_t v = 0; v < m_label.size(); ++v)
            if (m_label[v] >= 0)
                out[v] = m_classNode[m_label[v]];
        return out;
    }

private:
    int newClass(int node)
    {
        m_classNode.push_back(node);
        return static_cast<int>(m_classNode.size()) - 1;
    }

    int addChild(int parent, VertexIndex source, VertexIndex target, bool direct)
    {
        DivisionNode child;
        child.source = source;
        child.target = target;
        child.hasDirectEdge = direct;
        child.parent = parent;
        m_nodes.push_back(std::move(child));
        m_nodeClass.push_back(-1);
        const int index = static_cast<int>(m_nodes.size()) - 1;
        m_nodes[parent].children.push_back(index);
        return index;
    }

    void divide(int index)
    {
        if (m_nodes[index].isSingleEdge())
            return;
        const int label = m_nodeClass[index];
        const VertexIndex p = m_nodes[index].source, q = m_nodes[index].target;
        int common = m_nodes[index].hasDirectEdge ? p : -1;
        for (VertexIndex u : m_graph.predecessors(q))
            if (m_label[u] == label)
                common = common < 0 ? u : m_dominators.meet(common, u);
        std::vector<VertexIndex> splits;
        for (int v = common; v != p; v = m_dominators.parent(v)) {
            if (v < 0 || m_label[v] != label)
                throw std::logic_error("division tree: the dominator path leaves the IS");
            splits.push_back(v);
        }
        std::reverse(splits.begin(), splits.end());
        if (!splits.empty())
            divideLinear(index, label, splits);
        else
            divideBranches(index, label);
    }

    // Alg. 2: the members between consecutive splitting vertices, which the node holds itself.
    void divideLinear(int index, int label, const std::vector<VertexIndex>& splits)
    {
        m_nodes[index].type = SegmentType::Linear;
        const int own = newClass(index);
        std::vector<VertexIndex> xs{m_nodes[index].source};
        for (VertexIndex v : splits) {
            m_label[v] = own;
            xs.push_back(v);
        }
        xs.push_back(m_nodes[index].target);
        std::vector<std::vector<VertexIndex>> seeds(xs.size() - 1);
        for (std::size_t m = 0; m + 1 < xs.size(); ++m)
            seeds[m] = interiorSuccessors(xs[m], label);
        const Searches found = searchInTurn(seeds, label);
        std::int64_t heldCost = 0;
        for (VertexIndex v : splits)
            heldCost += m_graph.bytes(v);
        Remainder rest{m_nodes[index].cost - heldCost, m_nodes[index].interiorSize - static_cast<int>(splits.size())};
        int largest = -1;
        for (std::size_t m = 0; m + 1 < xs.size(); ++m) {
            const int child = addChild(index, xs[m], xs[m + 1], hasEdge(m_graph, xs[m], xs[m + 1]));
            const int search = seeds[m].empty() ? -1 : found.rootOf(seeds[m].front());
            if (search >= 0 && search == found.unfinished)
                largest = child;
            else if (search >= 0)
                take(child, found.members[search], rest);
        }
        if (largest >= 0)
            inherit(largest, label, rest);
        m_nodes[index].segmentCost = m_nodes[index].cost;
    }

    // Alg. 3 when the interior falls apart into several branches (or one beside the direct
    // edge), else Alg. 4.
    void divideBranches(int index, int label)
    {
        const VertexIndex p = m_nodes[index].source, q = m_nodes[index].target;
        const bool direct = m_nodes[index].hasDirectEdge;
        std::vector<std::vector<VertexIndex>> seeds;
        for (VertexIndex v : interiorSuccessors(p, label))
            seeds.push_back({v});
        Searches found = searchInTurn(seeds, label);
        // Each search that is left is one branch; the topologically first vertex of a branch is a
        // successor of p, so the seeds order them.
        std::vector<int> branchOrder;
        for (const auto& seed : seeds) {
            const int search = found.rootOf(seed.front());
            if (std::find(branchOrder.begin(), branchOrder.end(), search) == branchOrder.end())
                branchOrder.push_back(search);
        }
        if (branchOrder.size() + (direct ? 1 : 0) < 2) {
            divideComplicate(index, finish(found, branchOrder.front(), label));
            return;
        }
        m_nodes[index].type = SegmentType::Branch;
        if (direct)
            addChild(index, p, q, true);
        Remainder rest{m_nodes[index].cost, m_nodes[index].interiorSize};
        int largest = -1;
        for (int search : branchOrder) {
            const int child = addChild(index, p, q, false);
            if (search == found.unfinished)
                largest = child;
            else
                take(child, found.members[search], rest);
        }
        if (largest >= 0)
            inherit(largest, label, rest);
        std::int64_t widest = 0;
        for (int child : m_nodes[index].children)
            widest = std::max(widest, m_nodes[child].cost);
        m_nodes[index].segmentCost = widest;
    }

    void divideComplicate(int index, std::vector<VertexIndex> interior)
    {
        DivisionNode& node = m_nodes[index];
        node.type = SegmentType::Complicate;
        node.segmentCost = node.cost;
        IndependentSegment s;
        s.source = node.source;
        s.target = node.target;
        s.hasDirectEdge = node.hasDirectEdge;
        s.cost = node.cost;
        s.vertices = std::move(interior);
        s.vertices.push_back(node.source);
        s.vertices.push_back(node.target);
        std::sort(s.vertices.begin(), s.vertices.end(), [this](VertexIndex a, VertexIndex b) {
            return m_graph.topologicalPosition(a) < m_graph.topologicalPosition(b);
        });
        const int own = newClass(index);
        for (std::size_t k = 1; k + 1 < s.vertices.size(); ++k)
            m_label[s.vertices[k]] = own;  // connecting vertices keep it; members' are relabelled
        Remainder unused{0, 0};
        for (IndependentSegment& member : m_divider.maximalMembers(s)) {
            const int child = addChild(index, member.source, member.target, member.hasDirectEdge);
            take(child, {member.vertices.begin() + 1, member.vertices.end() - 1}, unused);
        }
    }

    // Interior vertices of `node`-to-be (label) that `from` feeds.
    std::vector<VertexIndex> interiorSuccessors(VertexIndex from, int label) const
    {
        std::vector<VertexIndex> out;
        for (VertexIndex w : m_graph.successors(from))
            if (m_label[w] == label)
                out.push_back(w);
        return out;
    }

    struct Remainder {
        std::int64_t cost;
        int size;
    };

    // A member whose interior was read: it gets a label of its own.
    void take(int child, const std::vector<VertexIndex>& interior, Remainder& rest)
    {
        const int cls = newClass(child);
        m_nodeClass[child] = cls;
        DivisionNode& node = m_nodes[child];
        for (VertexIndex v : interior) {
            m_label[v] = cls;
            node.cost += m_graph.bytes(v);
        }
        node.interiorSize = static_cast<int>(interior.size());
        rest.cost -= node.cost;
        rest.size -= node.interiorSize;
    }

    // The largest member, left unread: it keeps the parent's label and is what the others leave.
    void inherit(int child, int label, const Remainder& rest)
    {
        m_classNode[label] = child;
        m_nodeClass[child] = label;
        m_nodes[child].cost = rest.cost;
        m_nodes[child].interiorSize = rest.size;
    }

    // Searches over the vertices labelled `label`, one per seed list, each taking one vertex in
    // turn, until at most one is unfinished. Searches that meet become one (union by size).
    struct Searches {
        std::vector<int> parent;
        std::vector<std::vector<VertexIndex>> members, frontier;
        int unfinished = -1;
        const TreeBuilder* builder = nullptr;

        int root(int s) const
        {
            while (parent[s] != s)
                s = parent[s];
            return s;
        }
        int rootOf(VertexIndex v) const { return root(builder->m_seenBy[v]); }
    };

    // The whole interior a search reaches, run to its end.
    std::vector<VertexIndex> finish(Searches& found, int s, int label)
    {
        while (!found.frontier[s].empty())
            step(found, s, label);
        return std::move(found.members[s]);
    }

    Searches searchInTurn(const std::vector<std::vector<VertexIndex>>& seeds, int label)
    {
        ++m_stamp;
        Searches found;
        found.builder = this;
        std::vector<int> active;
        for (const auto& list : seeds) {
            const int s = static_cast<int>(found.parent.size());
            found.parent.push_back(s);
            found.members.emplace_back();
            found.frontier.emplace_back();
            for (VertexIndex v : list)
                visit(found, s, v);
            if (!found.frontier[s].empty())
                active.push_back(s);
        }
        while (true) {
            std::erase_if(active, [&found](int s) { return found.parent[s] != s || found.frontier[s].empty(); });
            if (active.size() <= 1)
                break;
            for (int s : active)
                if (found.parent[s] == s && !found.frontier[s].empty())
                    step(found, s, label);
        }
        found.unfinished = active.empty() ? -1 : active.front();
        return found;
    }

    void visit(Searches& found, int s, VertexIndex v)
    {
        if (m_seenStamp[v] == m_stamp) {
            merge(found, s, found.rootOf(v));
            return;
        }
        m_seenStamp[v] = m_stamp;
        m_seenBy[v] = s;
        found.members[s].push_back(v);
        found.frontier[s].push_back(v);
    }

    void step(Searches& found, int s, int label)
    {
        const VertexIndex v = found.frontier[s].back();
        found.frontier[s].pop_back();
        for (auto neighbours : {m_graph.successors(v), m_graph.predecessors(v)})
            for (VertexIndex w : neighbours)
                if (m_label[w] == label)
                    visit(found, found.root(s), w);
    }

    void merge(Searches& found, int a, int b)
    {
        a = found.root(a);
        b = found.root(b);
        if (a == b)
            return;
        if (found.members[a].size() < found.members[b].size())
            std::swap(a, b);
        found.parent[b] = a;
        for (auto* list : {&found.members, &found.frontier}) {
            auto& from = (*list)[b];
            (*list)[a].insert((*list)[a].end(), from.begin(), from.end());
            from = {};
        }
    }

    const Graph& m_graph;
    std::vector<DivisionNode>& m_nodes;
    Divider m_divider;
    DominatorTree m_dominators;
    std::vector<int> m_label;      // per vertex: the class of the node it is interior to; -1: none
    std::vector<int> m_classNode;  // class -> node
    std::vector<int> m_nodeClass;  // node -> class its interior is labelled with
    std::vector<int> m_seenStamp, m_seenBy;
    int m_stamp = 0;
};

}  // namespace

DivisionTree DivisionTree::build(const Graph& graph)
{
    DivisionTree tree;
    tree.m_graph = &graph;
    TreeBuilder builder(graph, tree.m_nodes);
    builder.build();
    const std::vector<int> holder = builder.holders();
    tree.m_heldStart.assign(tree.m_nodes.size() + 1, 0);
    for (int h : holder)
        if (h >= 0)
            ++tree.m_heldStart[h + 1];
    std::partial_sum(tree.m_heldStart.begin(), tree.m_heldStart.end(), tree.m_heldStart.begin());
    tree.m_held.resize(tree.m_heldStart.back());
    std::vector<int> fill(tree.m_heldStart.begin(), tree.m_heldStart.end() - 1);
    for (VertexIndex v = 0; v < graph.vertexCount(); ++v)
        if (holder[v] >= 0)
            tree.m_held[fill[holder[v]]++] = v;
    return tree;
}

std::vector<VertexIndex> DivisionTree::interior(int index) const
{
    std::vector<VertexIndex> out;
    std::vector<int> pending{index};
    while (!pending.empty()) {
        const int n = pending.back();
        pending.pop_back();
        const auto own = held(n);
        out.insert(out.end(), own.begin(), own.end());
        pending.insert(pending.end(), m_nodes[n].children.begin(), m_nodes[n].children.end());
    }
    std::sort(out.begin(), out.end(), [this](VertexIndex a, VertexIndex b) {
        return m_graph->topologicalPosition(a) < m_graph->topologicalPosition(b);
    });
    return out;
}

IndependentSegment DivisionTree::segment(int index) const
{
    const DivisionNode& node = m_nodes[index];
    IndependentSegment s;
    s.source = node.source;
    s.target = node.target;
    s.hasDirectEdge = node.hasDirectEdge;
    s.cost = node.cost;
    s.vertices.push_back(node.source);
    const std::vector<VertexIndex> inside = interior(index);
    s.vertices.insert(s.vertices.end(), inside.begin(), inside.end());
    s.vertices.push_back(node.target);
    return s;
}

bool DivisionTree::hasComplicate() const
{
    return std::any_of(m_nodes.begin(), m_nodes.end(),
                       [](const DivisionNode& n) { return n.type == SegmentType::Complicate; });
}

}  // namespace ckpt
