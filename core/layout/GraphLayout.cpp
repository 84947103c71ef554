#include "layout/GraphLayout.h"

namespace ckpt::layout {

Layout layoutGraph(const Graph& graph, const LayoutRequest& request)
{
    if (graph.vertexCount() > request.maxDotVertices) {
        Layout layout = layeredLayout(graph, request);
        layout.notice = "The graph has " + std::to_string(graph.vertexCount()) + " vertices, more than dot is given (" +
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
