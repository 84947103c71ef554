// The fallback: Sugiyama-style layers without dot's optimisation, so it never fails or stalls.
#include "layout/GraphLayout.h"

#include <algorithm>
#include <numeric>

namespace ckpt::layout {

namespace {

constexpr double rankGap = 36;   // between layers, points
constexpr double orderGap = 14;  // between neighbours in a layer

// The size along the rank axis (the direction edges point) and across it.
double along(const Size& s, Direction d) { return d == Direction::LeftToRight ? s.width : s.height; }
double across(const Size& s, Direction d) { return d == Direction::LeftToRight ? s.height : s.width; }

}  // namespace

Layout layeredLayout(const Graph& graph, const LayoutRequest& request)
{
    if (static_cast<int>(request.nodeSizes.size()) != graph.vertexCount())
        throw std::invalid_argument("layeredLayout: one node size per vertex is needed");
    const Direction dir = request.direction;
    const int n = graph.vertexCount();

    // Longest-path layering.
    std::vector<int> layerOf(n, 0);
    int layerCount = 1;
    for (VertexIndex v : graph.topologicalOrder()) {
        for (VertexIndex p : graph.predecessors(v))
            layerOf[v] = std::max(layerOf[v], layerOf[p] + 1);
        layerCount = std::max(layerCount, layerOf[v] + 1);
    }
    std::vector<std::vector<VertexIndex>> layers(layerCount);
    for (VertexIndex v : graph.topologicalOrder())
        layers[layerOf[v]].push_back(v);

    // One barycentre sweep downwards: each vertex near the mean slot of its predecessors.
    std::vector<double> slot(n, 0);
    for (auto& layer : layers) {
        std::vector<double> key(layer.size());
        for (std::size_t i = 0; i < layer.size(); ++i) {
            const auto preds = graph.predecessors(layer[i]);
            key[i] = preds.empty() ? double(i)
                                   : std::accumulate(preds.begin(), preds.end(), 0.0,
                                                     [&](double s, VertexIndex p) { return s + slot[p]; }) /
                                         double(preds.size());
        }
        std::vector<std::size_t> order(layer.size());
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return key[a] < key[b]; });
        std::vector<VertexIndex> sorted;
        for (std::size_t i : order)
            sorted.push_back(layer[i]);
        layer = std::move(sorted);
        for (std::size_t i = 0; i < layer.size(); ++i)
            slot[layer[i]] = double(i);
        if (request.cancel && request.cancel->load())
            throw LayoutCancelled();
    }

    // Coordinates: layers along the rank axis, each centred across it.
    std::vector<double> rankPos(n), orderPos(n);
    double rank = 0, widest = 0;
    std::vector<double> layerExtent(layerCount, 0);
    for (int l = 0; l < layerCount; ++l) {
        double thickness = 0, extent = 0;
        for (VertexIndex v : layers[l]) {
            thickness = std::max(thickness, along(request.nodeSizes[v], dir));
            extent += across(request.nodeSizes[v], dir) + orderGap;
        }
        layerExtent[l] = extent - orderGap;
        widest = std::max(widest, layerExtent[l]);
        for (VertexIndex v : layers[l])
            rankPos[v] = rank + thickness / 2;
        rank += thickness + rankGap;
    }
    for (int l = 0; l < layerCount; ++l) {
        double pos = (widest - layerExtent[l]) / 2;
        for (VertexIndex v : layers[l]) {
            const double a = across(request.nodeSizes[v], dir);
            orderPos[v] = pos + a / 2;
            pos += a + orderGap;
        }
    }

    Layout layout;
    layout.engine = "layered";
    const double rankExtent = std::max(0.0, rank - rankGap);
    layout.bounds = dir == Direction::LeftToRight ? Size{rankExtent, widest} : Size{widest, rankExtent};
    layout.nodes.resize(n);
    for (VertexIndex v = 0; v < n; ++v) {
        const Point c = dir == Direction::LeftToRight ? Point{rankPos[v], orderPos[v]} : Point{orderPos[v], rankPos[v]};
        layout.nodes[v] = {c, request.nodeSizes[v]};
    }
    // Straight edges from the tail's far side to the head's near side.
    for (EdgeIndex e = 0; e < graph.edgeCount(); ++e) {
        const NodeBox& t = layout.nodes[graph.edge(e).from];
        const NodeBox& h = layout.nodes[graph.edge(e).to];
        Point a = t.centre, b = h.centre;
        if (dir == Direction::LeftToRight) {
            a.x += t.size.width / 2;
            b.x -= h.size.width / 2;
        } else {
            a.y += t.size.height / 2;
            b.y -= h.size.height / 2;
        }
        const Point third{a.x + (b.x - a.x) / 3, a.y + (b.y - a.y) / 3};
        const Point twoThirds{a.x + 2 * (b.x - a.x) / 3, a.y + 2 * (b.y - a.y) / 3};
        layout.edges.push_back({e, {a, third, twoThirds, b}, std::nullopt});
    }
    return layout;
}

}  // namespace ckpt::layout
