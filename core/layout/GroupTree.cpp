#include "layout/GroupTree.h"

#include <algorithm>
#include <deque>
#include <map>
#include <unordered_set>

namespace ckpt::layout {

namespace {

std::string vertexName(const Vertex& v) { return v.name.empty() ? v.id : v.name; }

}  // namespace

int GroupTree::addGroup(std::string path, std::string label, int parent)
{
    m_groups.push_back({std::move(path), std::move(label), parent, {}, {}, 0});
    const int g = static_cast<int>(m_groups.size()) - 1;
    if (parent >= 0)
        m_groups[static_cast<std::size_t>(parent)].children.push_back(g);
    return g;
}

void GroupTree::countSizes()
{
    for (auto& g : m_groups)
        g.size = static_cast<int>(g.vertices.size());
    for (std::size_t g = m_groups.size(); g-- > 0;)  // children come after their parents
        if (m_groups[g].parent >= 0)
            m_groups[static_cast<std::size_t>(m_groups[g].parent)].size += m_groups[g].size;
}

GroupTree GroupTree::forGraph(const Graph& graph, int flatLimit)
{
    for (const Vertex& v : graph.vertices())
        if (!v.module.empty())
            return byModule(graph);
    if (graph.vertexCount() > flatLimit)
        return byTopologicalRuns(graph, 24);
    GroupTree flat;
    flat.m_groupOf.assign(static_cast<std::size_t>(graph.vertexCount()), -1);
    return flat;
}

GroupTree GroupTree::byModule(const Graph& graph)
{
    // The module-path trie: a node per path prefix, its vertices those whose module is the path.
    struct Trie {
        std::map<std::string, int> childByName;
        std::vector<int> childOrder;
        std::vector<VertexIndex> vertices;
        int descendants = 0;
    };
    std::vector<Trie> trie(1);
    std::vector<std::string> component(1);
    std::vector<int> trieOf(static_cast<std::size_t>(graph.vertexCount()), 0);
    for (VertexIndex v : graph.topologicalOrder()) {
        const std::string& module = graph.vertex(v).module;
        int node = 0;
        for (std::size_t start = 0; !module.empty() && start <= module.size();) {
            const std::size_t dot = std::min(module.find('.', start), module.size());
            const std::string name = module.substr(start, dot - start);
            auto [it, added] = trie[std::size_t(node)].childByName.try_emplace(name, static_cast<int>(trie.size()));
            if (added) {
                trie[std::size_t(node)].childOrder.push_back(it->second);
                trie.emplace_back();
                component.push_back(name);
            }
            node = it->second;
            start = dot + 1;
        }
        trie[std::size_t(node)].vertices.push_back(v);
        trieOf[std::size_t(v)] = node;
    }
    for (std::size_t t = trie.size(); t-- > 0;) {
        trie[t].descendants += static_cast<int>(trie[t].vertices.size());
        for (int c : trie[t].childOrder)
            trie[t].descendants += trie[std::size_t(c)].descendants;
    }

    // A group for every prefix holding two or more vertices; a prefix with a single child and no
    // vertices of its own is merged into that child ("transformer" ▸ "transformer.h" shows as one).
    GroupTree tree;
    tree.m_groupOf.assign(static_cast<std::size_t>(graph.vertexCount()), -1);
    std::vector<int> groupOfTrie(trie.size(), -1);
    std::vector<std::string> pathOf(trie.size());
    std::vector<std::pair<int, int>> pending;  // (trie node, parent group)
    for (auto it = trie[0].childOrder.rbegin(); it != trie[0].childOrder.rend(); ++it) {
        pathOf[std::size_t(*it)] = component[std::size_t(*it)];
        pending.emplace_back(*it, -1);
    }
    while (!pending.empty()) {
        auto [t, parent] = pending.back();
        pending.pop_back();
        const std::string& path = pathOf[std::size_t(t)];
        const Trie& node = trie[std::size_t(t)];
        int group = parent;
        if (node.descendants >= 2 && !(node.vertices.empty() && node.childOrder.size() == 1)) {
            const std::string label = parent >= 0 && path.starts_with(tree.m_groups[std::size_t(parent)].path + ".")
                                          ? path.substr(tree.m_groups[std::size_t(parent)].path.size() + 1)
                                          : path;
            group = tree.addGroup(path, label, parent);
        }
        groupOfTrie[std::size_t(t)] = group;
        for (auto c = node.childOrder.rbegin(); c != node.childOrder.rend(); ++c) {
            pathOf[std::size_t(*c)] = path + "." + component[std::size_t(*c)];
            pending.emplace_back(*c, group);
        }
    }
    for (VertexIndex v = 0; v < graph.vertexCount(); ++v) {
        const int g = groupOfTrie[std::size_t(trieOf[std::size_t(v)])];
        tree.m_groupOf[std::size_t(v)] = g;
        if (g >= 0)
            tree.m_groups[std::size_t(g)].vertices.push_back(v);
    }
    for (VertexGroup& g : tree.m_groups)
        std::sort(g.vertices.begin(), g.vertices.end(),
                  [&](VertexIndex a, VertexIndex b) { return graph.topologicalPosition(a) < graph.topologicalPosition(b); });
    tree.m_position.resize(static_cast<std::size_t>(graph.vertexCount()));
    for (VertexIndex v = 0; v < graph.vertexCount(); ++v)
        tree.m_position[std::size_t(v)] = graph.topologicalPosition(v);
    tree.countSizes();
    return tree;
}

GroupTree GroupTree::byTopologicalRuns(const Graph& graph, int runLength)
{
    const auto& topo = graph.topologicalOrder();
    const int n = graph.vertexCount();
    // Levels of runs: runs of vertices, runs of runs, ..., until one level holds at most runLength.
    std::vector<int> levelSpan{runLength};
    while ((n + levelSpan.back() - 1) / levelSpan.back() > runLength)
        levelSpan.push_back(levelSpan.back() * runLength);
    GroupTree tree;
    tree.m_groupOf.assign(static_cast<std::size_t>(n), -1);
    auto build = [&](auto& self, int level, int begin, int end, int parent) -> void {
        const int span = levelSpan[std::size_t(level)];
        for (int first = begin; first < end; first += span) {
            const int last = std::min(end, first + span) - 1;
            if (first == last) {  // a run of one is just that vertex
                tree.m_groupOf[std::size_t(topo[std::size_t(first)])] = parent;
                if (parent >= 0)
                    tree.m_groups[std::size_t(parent)].vertices.push_back(topo[std::size_t(first)]);
                continue;
            }
            const std::string label = vertexName(graph.vertex(topo[std::size_t(first)])) + " … " +
                                      vertexName(graph.vertex(topo[std::size_t(last)]));
            const int g = tree.addGroup("#" + std::to_string(first + 1) + "-" + std::to_string(last + 1), label, parent);
            if (level == 0)
                for (int i = first; i <= last; ++i) {
                    tree.m_groupOf[std::size_t(topo[std::size_t(i)])] = g;
                    tree.m_groups[std::size_t(g)].vertices.push_back(topo[std::size_t(i)]);
                }
            else
                self(self, level - 1, first, last + 1, g);
        }
    };
    build(build, static_cast<int>(levelSpan.size()) - 1, 0, n, -1);
    tree.m_position.resize(static_cast<std::size_t>(n));
    for (VertexIndex v = 0; v < n; ++v)
        tree.m_position[std::size_t(v)] = graph.topologicalPosition(v);
    tree.countSizes();
    return tree;
}

std::vector<int> GroupTree::ancestorsOf(VertexIndex v) const
{
    std::vector<int> chain;
    for (int g = groupOf(v); g >= 0; g = m_groups[std::size_t(g)].parent)
        chain.push_back(g);
    std::reverse(chain.begin(), chain.end());
    return chain;
}

std::vector<VertexIndex> GroupTree::members(int group) const
{
    std::vector<VertexIndex> all;
    std::vector<int> pending{group};
    while (!pending.empty()) {
        const VertexGroup& g = m_groups[std::size_t(pending.back())];
        pending.pop_back();
        all.insert(all.end(), g.vertices.begin(), g.vertices.end());
        pending.insert(pending.end(), g.children.begin(), g.children.end());
    }
    std::sort(all.begin(), all.end(), [&](VertexIndex a, VertexIndex b) { return m_position[std::size_t(a)] < m_position[std::size_t(b)]; });
    return all;
}

std::vector<bool> GroupTree::expansionWithin(int maxVisible) const
{
    std::vector<bool> expanded(m_groups.size(), false);
    int visible = 0;
    std::deque<int> queue;
    for (VertexIndex v = 0; v < static_cast<int>(m_groupOf.size()); ++v)
        visible += m_groupOf[std::size_t(v)] < 0;
    for (std::size_t g = 0; g < m_groups.size(); ++g)
        if (m_groups[g].parent < 0) {
            ++visible;
            queue.push_back(static_cast<int>(g));
        }
    while (!queue.empty()) {
        const int g = queue.front();
        queue.pop_front();
        const VertexGroup& group = m_groups[std::size_t(g)];
        const int opened = static_cast<int>(group.children.size() + group.vertices.size()) - 1;
        if (visible + opened > maxVisible)
            continue;
        visible += opened;
        expanded[std::size_t(g)] = true;
        queue.insert(queue.end(), group.children.begin(), group.children.end());
    }
    return expanded;
}

VisibleGraph VisibleGraph::of(const Graph& graph, const GroupTree& tree, const std::vector<bool>& expanded)
{
    // The collapsed group that hides each group (itself when it is collapsed), -1 when it is open.
    const auto& groups = tree.groups();
    std::vector<int> shownAs(groups.size(), -1);
    for (std::size_t g = 0; g < groups.size(); ++g) {
        const int parent = groups[g].parent;
        if (parent >= 0 && shownAs[std::size_t(parent)] >= 0)
            shownAs[g] = shownAs[std::size_t(parent)];
        else if (!expanded[g])
            shownAs[g] = static_cast<int>(g);
    }
    VisibleGraph visible;
    visible.nodeOfVertex.assign(static_cast<std::size_t>(graph.vertexCount()), -1);
    std::vector<int> nodeOfGroup(groups.size(), -1);
    for (VertexIndex v : graph.topologicalOrder()) {
        const int g = tree.groupOf(v);
        const int hiddenIn = g >= 0 ? shownAs[std::size_t(g)] : -1;
        int& node = hiddenIn >= 0 ? nodeOfGroup[std::size_t(hiddenIn)] : visible.nodeOfVertex[std::size_t(v)];
        if (node < 0) {
            node = static_cast<int>(visible.nodes.size());
            visible.nodes.push_back(hiddenIn >= 0 ? Node{-1, hiddenIn} : Node{v, -1});
        }
        visible.nodeOfVertex[std::size_t(v)] = node;
    }
    LayoutGraph& drawing = visible.drawing;
    drawing.nodeCount = static_cast<int>(visible.nodes.size());
    drawing.order.resize(visible.nodes.size());
    for (std::size_t i = 0; i < visible.nodes.size(); ++i)
        drawing.order[i] = static_cast<int>(i);
    std::unordered_set<std::uint64_t> seen;
    for (const Edge& e : graph.edges()) {
        const int a = visible.nodeOfVertex[std::size_t(e.from)], b = visible.nodeOfVertex[std::size_t(e.to)];
        if (a != b && seen.insert((std::uint64_t(std::uint32_t(a)) << 32) | std::uint32_t(b)).second)
            drawing.edges.emplace_back(a, b);
    }
    return visible;
}

}  // namespace ckpt::layout
