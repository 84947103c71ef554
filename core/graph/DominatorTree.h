#pragma once
// A rooted tree grown leaf by leaf (immediate dominators, for instance) that answers nearest
// common ancestor queries in O(log depth) with three integers per vertex: each vertex keeps
// its parent and one skew-binary jump pointer (Myers 1983), so a tree as deep as the graph is
// long costs O(|V|) memory, where binary lifting would cost O(|V| log |V|).
#include "graph/Graph.h"

#include <vector>

namespace ckpt {

class DominatorTree {
public:
    // `n` vertices 0..n-1, of which `root` is the root; the others are attached one by one.
    DominatorTree(int n, int root);

    // The immediate dominators of a graph from its source: in a DAG taken in topological
    // order, idom(x) is the nearest common dominator of x's predecessors.
    static DominatorTree ofGraph(const Graph& graph);

    void attach(int v, int parent);
    int root() const { return m_root; }
    int parent(int v) const { return v == m_root ? -1 : m_parent[v]; }
    int depth(int v) const { return m_depth[v]; }
    // The nearest common ancestor of a and b (both attached).
    int meet(int a, int b) const;

private:
    int m_root;
    std::vector<int> m_parent, m_jump, m_depth;
};

}  // namespace ckpt
