#include "graph/ArticulationPoints.h"

#include <algorithm>

namespace ckpt {

std::vector<VertexIndex> articulationPoints(const Graph& graph)
{
    const int n = graph.vertexCount();
    // Undirected adjacency: successors and predecessors (parallel edges already collapsed).
    auto neighbour = [&graph](VertexIndex v, std::size_t k) {
        auto succ = graph.successors(v);
        return k < succ.size() ? succ[k] : graph.predecessors(v)[k - succ.size()];
    };
    auto degree = [&graph](VertexIndex v) { return graph.successors(v).size() + graph.predecessors(v).size(); };

    std::vector<int> discovered(n, -1), low(n, 0);
    std::vector<bool> isCut(n, false);
    struct Frame {
        VertexIndex v;
        VertexIndex parent;
        std::size_t next;
    };
    int time = 0;
    const VertexIndex root = graph.source();
    int rootChildren = 0;
    std::vector<Frame> stack{{root, -1, 0}};
    discovered[root] = low[root] = time++;
    while (!stack.empty()) {
        Frame& f = stack.back();
        if (f.next < degree(f.v)) {
            VertexIndex w = neighbour(f.v, f.next++);
            if (discovered[w] < 0) {
                discovered[w] = low[w] = time++;
                if (f.v == root)
                    ++rootChildren;
                stack.push_back({w, f.v, 0});
            } else if (w != f.parent) {
                low[f.v] = std::min(low[f.v], discovered[w]);
            }
            continue;
        }
        const Frame done = f;
        stack.pop_back();
        if (stack.empty())
            break;
        VertexIndex parent = stack.back().v;
        low[parent] = std::min(low[parent], low[done.v]);
        if (parent != root && low[done.v] >= discovered[parent])
            isCut[parent] = true;
    }
    if (rootChildren > 1)
        isCut[root] = true;

    std::vector<VertexIndex> out;
    for (VertexIndex v : graph.topologicalOrder())
        if (isCut[v])
            out.push_back(v);
    return out;
}

}  // namespace ckpt
