#include "theory/RecomputeCost.h"

#include "theory/CheckpointFunctions.h"

namespace ckpt {

double forwardCompute(const Graph& graph, VertexIndex v)
{
    const Vertex& vertex = graph.vertex(v);
    if (graph.isInput(v) || vertex.isVirtual)
        return 0;
    return vertex.compute.value_or(1.0);
}

double forwardPassCompute(const Graph& graph)
{
    double sum = 0;
    for (VertexIndex v = 0; v < graph.vertexCount(); ++v)
        sum += forwardCompute(graph, v);
    return sum;
}

RecomputeCost recomputeCost(const Graph& graph, const PlanEvaluation& plan)
{
    RecomputeCost cost;
    cost.forward = forwardPassCompute(graph);
    // S2: every segment is re-forwarded once, whole (P12: every checkpointed function).
    const bool functions = runsCheckpointFunctions(graph) && !plan.segments.empty();
    const PlanEvaluation asRun = functions ? checkpointFunctions(graph, plan) : PlanEvaluation{};
    for (const Segment& s : functions ? asRun.segments : plan.segments)
        for (VertexIndex v : s.vertices) {
            if (graph.isInput(v))  // the training loop holds it (P21)
                continue;
            cost.recomputed += forwardCompute(graph, v);
            cost.recomputedBytes += graph.bytes(v);
        }
    return cost;
}

}  // namespace ckpt
