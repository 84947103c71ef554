#include "graph/DominatorTree.h"

#include <utility>

namespace ckpt {

DominatorTree::DominatorTree(int n, int root) : m_root(root), m_parent(n, root), m_jump(n, root), m_depth(n, 0) {}

DominatorTree DominatorTree::ofGraph(const Graph& graph)
{
    DominatorTree tree(graph.vertexCount(), graph.source());
    for (VertexIndex x : graph.topologicalOrder()) {
        if (x == graph.source())
            continue;
        int d = -1;
        for (VertexIndex w : graph.predecessors(x))
            d = d < 0 ? w : tree.meet(d, w);
        tree.attach(x, d);
    }
    return tree;
}

void DominatorTree::attach(int v, int parent)
{
    m_parent[v] = parent;
    m_depth[v] = m_depth[parent] + 1;
    // The jump doubles when the parent's jump spans as far as its own jump does.
    const int j = m_jump[parent];
    m_jump[v] = m_depth[parent] - m_depth[j] == m_depth[j] - m_depth[m_jump[j]] ? m_jump[j] : parent;
}

int DominatorTree::meet(int a, int b) const
{
    if (m_depth[a] < m_depth[b])
        std::swap(a, b);
    while (m_depth[a] > m_depth[b])
        a = m_depth[m_jump[a]] >= m_depth[b] ? m_jump[a] : m_parent[a];
    // At equal depths the jump pointers span equally far, so both move together.
    while (a != b) {
        if (m_jump[a] != m_jump[b]) {
            a = m_jump[a];
            b = m_jump[b];
        } else {
            a = m_parent[a];
            b = m_parent[b];
        }
    }
    return a;
}

}  // namespace ckpt
