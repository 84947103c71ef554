#pragma once
// Groups of vertices for the hierarchical DAG view. Vertices with module paths are grouped by them
// ("layer2.1.conv2" lies in layer2 ▸ layer2.1 ▸ layer2.1.conv2); a graph without any (the published
// networkx graphs) is cut into runs of consecutive vertices along its topological order, runs of
// runs when there are many. VisibleGraph is what the view draws for a set of expanded groups:
// every collapsed group one node, edges between distinct nodes, ready for the layout.
#include "graph/Graph.h"
#include "layout/GraphLayout.h"

#include <string>
#include <vector>

namespace ckpt::layout {

struct VertexGroup {
    std::string path;   // unique: the module path, or "#first-last" for a run
    std::string label;  // shown on the collapsed box
    int parent = -1;
    std::vector<int> children;          // groups, in topological order of their first vertex
    std::vector<VertexIndex> vertices;  // direct members (not in a child group)
    int size = 0;                       // all members, children's included
};

class GroupTree {
public:
    // Module paths when some vertex has one, runs along the topological order when the graph has more
    // than `flatLimit` vertices, else no groups.
    static GroupTree forGraph(const Graph& graph, int flatLimit);
    static GroupTree byModule(const Graph& graph);
    static GroupTree byTopologicalRuns(const Graph& graph, int runLength);

    const std::vector<VertexGroup>& groups() const { return m_groups; }  // parents before children
    bool empty() const { return m_groups.empty(); }
    // The innermost group a vertex belongs to, -1 for none.
    int groupOf(VertexIndex v) const { return m_groupOf[static_cast<std::size_t>(v)]; }
    // The groups around a vertex, outermost first.
    std::vector<int> ancestorsOf(VertexIndex v) const;
    // Every member of a group, in topological order.
    std::vector<VertexIndex> members(int group) const;

    // Which groups to expand so that at most maxVisible nodes show: outermost levels first, breadth-first.
    std::vector<bool> expansionWithin(int maxVisible) const;

private:
    int addGroup(std::string path, std::string label, int parent);
    void countSizes();

    std::vector<VertexGroup> m_groups;
    std::vector<int> m_groupOf;
    std::vector<int> m_position;  // each vertex's topological position
};

struct VisibleGraph {
    struct Node {
        VertexIndex vertex = -1;  // a vertex shown by itself, or
        int group = -1;           // a collapsed group
    };
    std::vector<Node> nodes;         // in topological order of their first vertex
    std::vector<int> nodeOfVertex;   // the node each vertex is drawn in
    LayoutGraph drawing;             // nodes and the edges between distinct ones, once each

    static VisibleGraph of(const Graph& graph, const GroupTree& tree, const std::vector<bool>& expanded);
};

}  // namespace ckpt::layout
