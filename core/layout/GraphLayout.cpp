#include "layout/GraphLayout.h"

namespace ckpt::layout {

LayoutGraph LayoutGraph::of(const Graph& graph)
{
    LayoutGraph g;
    g.nodeCount = graph.vertexCount();
    g.edges.reserve(static_cast<std::size_t>(graph.edgeCount()));
    for (const Edge& e : graph.edges())
        g.edges.emplace_back(e.from, e.to);
    g.order.resize(static_cast<std::size_t>(g.nodeCount));
    for (VertexIndex v = 0; v < g.nodeCount; ++v)
        g.order[static_cast<std::size_t>(v)] = graph.topologicalPosition(v);
    return g;
}

Layout layoutGraph(const Graph& graph, const LayoutRequest& request)
{
    return layoutGraph(LayoutGraph::of(graph), request);
}

Layout dotLayout(const Graph& graph, const LayoutRequest& request)
{
    return dotLayout(LayoutGraph::of(graph), request);
}

Layout layeredLayout(const Graph& graph, const LayoutRequest& request)
{
    return layeredLayout(LayoutGraph::of(graph), request);
}

Layout layoutGraph(const LayoutGraph& graph, const LayoutRequest& request)
{
    if (graph.nodeCount > request.maxDotVertices) {
        Layout layout = layeredLayout(graph, request);
        layout.notice = "The graph has " + std::to_string(graph.nodeCount) + " vertices, more than dot is given (" +
                        std::to_string(request.maxDotVertices) + "); a simpler layered layout is shown.";
        return layout;
    }
    try {
        return dotLayout(graph, request);
    } catch (const LayoutFailed& e) {
        Layout layout = layeredLayout(graph, request);
        layout.notice = std::string(e.what()) + "; a simpler layered layout is shown.";
        return layout;
    }
}

}  // namespace ckpt::layout
