#include "theory/TrainingGraph.h"

#include "graph/GraphBuilder.h"

namespace ckpt {

bool isTrainingGraph(const Graph& graph)
{
    for (const Vertex& v : graph.vertices())
        if (v.backward)
            return true;
    return false;
}

Graph deriveTrainingGraph(const Graph& forward)
{
    GraphBuilder builder;
    builder.setName(forward.name() + " (training)");
    for (const auto& [key, value] : forward.metadata())
        builder.setMetadata(key, value);
    auto real = [&forward](VertexIndex v) { return !forward.vertex(v).isVirtual; };
    auto gradId = [&forward](VertexIndex v) { return forward.vertex(v).id + "_backward"; };
    const std::string lossId = "Loss";

    const auto& order = forward.topologicalOrder();
    for (VertexIndex v : order)
        if (real(v))
            builder.addVertex(forward.vertex(v));
    Vertex loss;
    loss.id = forward.find(lossId) ? lossId + "_" : lossId;
    loss.name = "Loss";
    loss.bytes = 4;
    loss.compute = 0.0;
    loss.backward = true;
    builder.addVertex(loss);
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
        if (!real(*it))
            continue;
        Vertex g = forward.vertex(*it);
        g.id = gradId(*it);
        g.name = (g.name.empty() ? g.id : g.name + "_backward");
        g.op = "backward";
        g.backward = true;
        g.compute = computeCost(forward, *it);
        builder.addVertex(std::move(g));
    }

    for (const Edge& e : forward.edges())
        if (real(e.from) && real(e.to))
            builder.addEdge(forward.vertex(e.from).id, forward.vertex(e.to).id, e.op);
    for (VertexIndex v : order) {
        if (!real(v))
            continue;
        builder.addEdge(forward.vertex(v).id, gradId(v));
        bool consumed = false;
        for (VertexIndex w : forward.successors(v)) {
            if (!real(w))
                continue;
            consumed = true;
            builder.addEdge(forward.vertex(w).id, gradId(v));
            builder.addEdge(gradId(w), gradId(v));
        }
        if (!consumed) {
            builder.addEdge(forward.vertex(v).id, loss.id);
            builder.addEdge(loss.id, gradId(v));
        }
    }
    return std::move(builder).build();
}

Graph asTrainingGraph(const Graph& graph)
{
    return isTrainingGraph(graph) ? graph : deriveTrainingGraph(graph);
}

Graph forwardPart(const Graph& training)
{
    GraphBuilder builder;
    builder.setName(training.name() + " (forward)");
    for (const auto& [key, value] : training.metadata())
        builder.setMetadata(key, value);
    auto keep = [&training](VertexIndex v) { return !training.vertex(v).backward && !training.vertex(v).isVirtual; };
    for (VertexIndex v : training.topologicalOrder())
        if (keep(v))
            builder.addVertex(training.vertex(v));
    for (const Edge& e : training.edges())
        if (keep(e.from) && keep(e.to))
            builder.addEdge(training.vertex(e.from).id, training.vertex(e.to).id, e.op);
    return std::move(builder).build();
}

double computeCost(const Graph& graph, VertexIndex v)
{
    const Vertex& vertex = graph.vertex(v);
    if (vertex.isVirtual)
        return 0;
    return vertex.compute.value_or(1.0);
}

std::int64_t fixedOverheadBytes(const Graph& graph)
{
    return 2 * graph.metadataBytes("parameter_bytes");
}

}  // namespace ckpt
