// Graphviz dot behind one process-wide lock in its own thread, with a time limit.
#include "layout/GraphLayout.h"

#include <gvc.h>

#include <algorithm>
#include <cstdio>
#include <future>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>

namespace ckpt::layout {

namespace {

// What the worker needs, copied, so an abandoned run never touches the caller's graph.
struct DotInput {
    int vertexCount = 0;
    std::vector<std::pair<VertexIndex, VertexIndex>> edges;
    std::vector<Size> sizes;
    Direction direction = Direction::LeftToRight;
};

std::mutex& graphvizLock()
{
    static std::mutex lock;
    return lock;
}

char* text(const char* s)
{
    return const_cast<char*>(s);  // cgraph 2.42 takes char* it never writes
}

std::string inches(double points)
{
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.4f", points / 72.0);
    return buffer;
}

Layout readLayout(Agraph_t* g, const DotInput& input, const std::vector<Agnode_t*>& nodes,
                  const std::vector<Agedge_t*>& edges)
{
    const boxf bb = GD_bb(g);
    auto flip = [&](pointf p) { return Point{p.x - bb.LL.x, bb.UR.y - p.y}; };
    Layout layout;
    layout.engine = "dot";
    layout.bounds = {bb.UR.x - bb.LL.x, bb.UR.y - bb.LL.y};
    layout.nodes.reserve(nodes.size());
    for (Agnode_t* n : nodes)
        layout.nodes.push_back({flip(ND_coord(n)), {ND_width(n) * 72.0, ND_height(n) * 72.0}});
    layout.edges.reserve(edges.size());
    for (std::size_t i = 0; i < edges.size(); ++i) {
        EdgeCurve curve;
        curve.edge = static_cast<EdgeIndex>(i);
        if (const splines* spl = ED_spl(edges[i])) {
            for (int b = 0; b < spl->size; ++b) {
                const bezier& bz = spl->list[b];
                for (int k = 0; k < bz.size; ++k)
                    curve.bezier.push_back(flip(bz.list[k]));
                if (bz.eflag)
                    curve.arrowTip = flip(bz.ep);
            }
        }
        if (curve.bezier.empty()) {  // dot drew no curve (should not happen): a straight line
            const Point a = layout.nodes[input.edges[i].first].centre;
            const Point b = layout.nodes[input.edges[i].second].centre;
            curve.bezier = {a, a, b, b};
        }
        layout.edges.push_back(std::move(curve));
    }
    return layout;
}

Layout runDot(const DotInput& input)
{
    const std::lock_guard<std::mutex> guard(graphvizLock());
    GVC_t* gvc = gvContext();
    Agraph_t* g = agopen(text("g"), Agdirected, nullptr);
    agattr(g, AGRAPH, text("rankdir"), text(input.direction == Direction::LeftToRight ? "LR" : "TB"));
    // Bounds on dot's network simplex and crossing minimisation keep big graphs tractable.
    agattr(g, AGRAPH, text("nslimit"), text("8"));
    agattr(g, AGRAPH, text("nslimit1"), text("8"));
    agattr(g, AGRAPH, text("mclimit"), text("0.5"));
    agattr(g, AGRAPH, text("searchsize"), text("30"));
    agattr(g, AGRAPH, text("ranksep"), text("0.35"));
    agattr(g, AGRAPH, text("nodesep"), text("0.2"));
    agattr(g, AGNODE, text("shape"), text("box"));
    agattr(g, AGNODE, text("fixedsize"), text("true"));
    agattr(g, AGNODE, text("label"), text(""));
    Agsym_t* width = agattr(g, AGNODE, text("width"), text("1"));
    Agsym_t* height = agattr(g, AGNODE, text("height"), text("0.5"));
    agattr(g, AGEDGE, text("arrowsize"), text("0.7"));

    std::vector<Agnode_t*> nodes(static_cast<std::size_t>(input.vertexCount));
    char name[32];
    for (int v = 0; v < input.vertexCount; ++v) {
        std::snprintf(name, sizeof name, "n%d", v);
        Agnode_t* n = agnode(g, name, 1);
        agxset(n, width, text(inches(input.sizes[v].width).c_str()));
        agxset(n, height, text(inches(input.sizes[v].height).c_str()));
        nodes[v] = n;
    }
    std::vector<Agedge_t*> edges;
    edges.reserve(input.edges.size());
    for (std::size_t e = 0; e < input.edges.size(); ++e) {
        std::snprintf(name, sizeof name, "e%zu", e);  // named, so parallel edges stay distinct
        edges.push_back(agedge(g, nodes[input.edges[e].first], nodes[input.edges[e].second], name, 1));
    }
    const bool ok = gvLayout(gvc, g, "dot") == 0;
    Layout layout;
    if (ok) {
        layout = readLayout(g, input, nodes, edges);
        gvFreeLayout(gvc, g);
    }
    agclose(g);
    gvFreeContext(gvc);
    if (!ok)
        throw LayoutFailed("Graphviz dot could not lay out the graph");
    return layout;
}

}  // namespace

Layout dotLayout(const LayoutGraph& graph, const LayoutRequest& request)
{
    if (static_cast<int>(request.nodeSizes.size()) != graph.nodeCount)
        throw std::invalid_argument("dotLayout: one node size per vertex is needed");
    auto input = std::make_shared<DotInput>();
    input->vertexCount = graph.nodeCount;
    input->sizes = request.nodeSizes;
    input->direction = request.direction;
    for (const auto& [from, to] : graph.edges)
        input->edges.emplace_back(from, to);

    auto promise = std::make_shared<std::promise<Layout>>();
    std::future<Layout> result = promise->get_future();
    std::thread([input, promise] {
        try {
            promise->set_value(runDot(*input));
        } catch (...) {
            promise->set_exception(std::current_exception());
        }
    }).detach();

    const auto start = std::chrono::steady_clock::now();
    const auto slice = std::chrono::milliseconds(10);
    while (result.wait_for(slice) != std::future_status::ready) {
        if (request.cancel && request.cancel->load())
            throw LayoutCancelled();
        const auto elapsed = std::chrono::steady_clock::now() - start;
        if (elapsed > request.timeLimit)
            throw LayoutFailed("Graphviz dot took longer than " + std::to_string(request.timeLimit.count()) + " ms");
        if (request.progress)  // dot reports nothing; show time used against the limit
            request.progress(std::min(0.99, std::chrono::duration<double>(elapsed) / request.timeLimit));
    }
    Layout layout = result.get();
    if (request.progress)
        request.progress(1.0);
    return layout;
}

}  // namespace ckpt::layout
