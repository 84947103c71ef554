#include "theory/RecomputeCost.h"

#include "theory/CheckpointFunctions.h"

#include <algorithm>

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
    // S2: every segment is re-forwarded once, whole (P12: every checkpointed function). P9: without
    // early stop (torch 1.13) the re-forward runs its function whole, the exits it returns again too
    // (nanoGPT's LM head, returned by the function computing the final norm: 23 % of the forward);
    // with it (torch 2.x) it ends at the last saved tensor, and the exits are not counted.
    const bool functions = runsCheckpointFunctions(graph) && !plan.segments.empty();
    const bool wholeReforwards = functions && !stopsReforwardsEarly(graph);
    const PlanEvaluation asRun = functions ? checkpointFunctions(graph, plan) : PlanEvaluation{};
    auto add = [&](VertexIndex v) {
        if (graph.isInput(v))  // the training loop holds it (P21)
            return;
        cost.recomputed += forwardCompute(graph, v);
        cost.recomputedBytes += graph.bytes(v);
    };
    for (const Segment& s : functions ? asRun.segments : plan.segments) {
        std::for_each(s.vertices.begin(), s.vertices.end(), add);
        if (wholeReforwards)
            std::for_each(s.exits.begin(), s.exits.end(), add);
    }
    return cost;
}

}  // namespace ckpt
