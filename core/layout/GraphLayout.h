#pragma once
// Drawing coordinates for a Graph (or any directed graph given as a LayoutGraph, e.g. a graph
// whose module groups are collapsed into boxes): node boxes, edge curves, bounding box. Plain
// structs, no Qt. layoutGraph() asks Graphviz `dot` (bounded, with a time limit) and falls back to
// a Sugiyama-style layered layout, with a notice saying why, when dot fails, times out or the
// graph is too big.
// Coordinates are points (1/72 inch), origin top-left, y growing downwards.
#include "graph/Graph.h"

#include <atomic>
#include <chrono>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace ckpt::layout {

struct Point {
    double x = 0;
    double y = 0;
};

struct Size {
    double width = 0;
    double height = 0;
};

struct NodeBox {
    Point centre;
    Size size;
};

struct EdgeCurve {
    EdgeIndex edge = 0;
    // A piecewise cubic Bézier: p0, c1, c2, p1, c1, c2, p2, ... (3k + 1 points).
    std::vector<Point> bezier;
    // Where the arrowhead's tip lies, beyond the curve's last point; absent: the curve ends at the tip.
    std::optional<Point> arrowTip;
};

enum class Direction { TopToBottom, LeftToRight };

// The graph to draw: nodes 0..nodeCount-1 and directed edges between them. `order` gives each
// node's position in an order the edges should follow (a topological order when the graph is
// acyclic); an edge against it is drawn against the reading direction, so cycles (from collapsing
// a group that is not convex) still get a layout.
struct LayoutGraph {
    int nodeCount = 0;
    std::vector<std::pair<int, int>> edges;
    std::vector<int> order;

    static LayoutGraph of(const Graph& graph);
};

struct LayoutRequest {
    std::vector<Size> nodeSizes;  // one per vertex, in points (the caller measures its labels)
    Direction direction = Direction::LeftToRight;
    std::chrono::milliseconds timeLimit{8000};  // for dot; the fallback is linear-time
    int maxDotVertices = 5000;                   // bigger graphs go straight to the fallback
    const std::atomic<bool>* cancel = nullptr;
    std::function<void(double fraction)> progress;
};

struct Layout {
    std::vector<NodeBox> nodes;    // by vertex index
    std::vector<EdgeCurve> edges;  // by edge index
    Size bounds;                   // everything lies in [0, width] x [0, height]
    std::string engine;            // "dot" or "layered"
    std::string notice;            // non-empty when the fallback was used: why
};

class LayoutCancelled : public std::runtime_error {
public:
    LayoutCancelled() : std::runtime_error("layout cancelled") {}
};

class LayoutFailed : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// dot if it can, else the layered fallback. Throws LayoutCancelled when cancelled.
Layout layoutGraph(const LayoutGraph& graph, const LayoutRequest& request);
Layout layoutGraph(const Graph& graph, const LayoutRequest& request);

// Graphviz dot alone: throws LayoutFailed on failure or when the time limit passes.
// Graphviz is not thread-safe: parse, layout, read and free happen under one process-wide lock
// in one worker thread; a run past the limit is abandoned (it finishes, holding the lock, and its
// result is dropped), so a later call waits for the lock within its own limit.
Layout dotLayout(const LayoutGraph& graph, const LayoutRequest& request);
Layout dotLayout(const Graph& graph, const LayoutRequest& request);

// Sugiyama's framework (Sugiyama, Tagawa & Toda 1981) in near-linear time, so it never fails or
// stalls: longest-path layers tightened towards successors, a chain of dummy nodes per long edge,
// barycentre crossing reduction, order-preserving coordinate assignment (least squares towards
// the neighbours' mean, by pool-adjacent-violators), edges as smooth curves through their dummies.
// Every edge that follows `order` points along the reading direction.
Layout layeredLayout(const LayoutGraph& graph, const LayoutRequest& request);
Layout layeredLayout(const Graph& graph, const LayoutRequest& request);

}  // namespace ckpt::layout
