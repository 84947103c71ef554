#include "io/ResultJson.h"

namespace ckpt {

namespace {

nlohmann::json ids(const Graph& graph, const std::vector<VertexIndex>& vertices)
{
    nlohmann::json out = nlohmann::json::array();
    for (VertexIndex v : vertices)
        out.push_back(graph.vertex(v).id);
    return out;
}

}  // namespace

nlohmann::json planToJson(const Graph& graph, const Plan& plan, bool withSweep)
{
    const PlanEvaluation& e = plan.evaluation;
    nlohmann::json segments = nlohmann::json::array();
    for (const Segment& s : e.segments)
        segments.push_back({{"vertices", ids(graph, s.vertices)},
                            {"entries", ids(graph, s.entries)},
                            {"exits", ids(graph, s.exits)},
                            {"cost", s.cost},
                            {"independent", s.isIndependent()}});
    nlohmann::json out = {{"solver", plan.solver},
                          {"options", plan.options},
                          {"checkpoints", ids(graph, e.checkpoints)},
                          {"segments", std::move(segments)},
                          {"checkpoint_bytes", e.checkpointBytes},
                          {"max_segment_cost", e.maxSegmentCost},
                          {"objective", e.objective},
                          {"is_plan", e.isISPlan},
                          {"time_ms", plan.wallTimeMs},
                          {"notes", plan.notes}};
    if (!e.isISPlan)
        out["why_not_is"] = e.whyNotIS;
    if (withSweep && plan.sweep)
        out["sweep"] = sweepToJson(graph, *plan.sweep);
    return out;
}

nlohmann::json sweepToJson(const Graph& graph, const Sweep& sweep)
{
    nlohmann::json entries = nlohmann::json::array();
    for (const SweepEntry& entry : sweep.entries)
        entries.push_back({{"c", entry.c},
                           {"objective", entry.objective},
                           {"checkpoints", ids(graph, entry.checkpoints)}});
    nlohmann::json out = {{"entries", std::move(entries)}, {"winner", sweep.winner}};
    if (sweep.winner >= 0) {
        out["winner_c"] = sweep.entries[sweep.winner].c;
        out["winner_objective"] = sweep.entries[sweep.winner].objective;
    }
    return out;
}

nlohmann::json divisionTreeToJson(const Graph& graph, const DivisionTree& tree)
{
    // Flat, children by index: the tree can be as deep as the graph is long, and nested JSON
    // that deep overflows the stack of whoever writes or reads it.
    nlohmann::json nodes = nlohmann::json::array();
    for (const DivisionNode& node : tree.nodes())
        nodes.push_back({{"type", segmentTypeName(node.type)},
                         {"source", graph.vertex(node.source).id},
                         {"target", graph.vertex(node.target).id},
                         {"cost", node.cost},
                         {"segment_cost", node.segmentCost},
                         {"vertex_count", node.interiorSize + 2},
                         {"parent", node.parent},
                         {"children", node.children}});
    return {{"root", tree.root()}, {"nodes", std::move(nodes)}};
}

}  // namespace ckpt
