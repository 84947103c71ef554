#include "io/PlanJson.h"

namespace ckpt {

namespace {

nlohmann::json ids(const Graph& graph, const std::vector<VertexIndex>& vertices)
{
    nlohmann::json list = nlohmann::json::array();
    for (VertexIndex v : vertices)
        list.push_back(graph.vertex(v).id);
    return list;
}

}  // namespace

nlohmann::json planToJson(const Graph& graph, const Plan& plan)
{
    const PlanEvaluation& e = plan.evaluation;
    nlohmann::json segments = nlohmann::json::array();
    for (const Segment& s : e.segments)
        segments.push_back({{"vertices", ids(graph, s.vertices)},
                            {"entries", ids(graph, s.entries)},
                            {"exits", ids(graph, s.exits)},
                            {"cost", s.cost},
                            {"independent", s.isIndependent()}});
    nlohmann::json json{{"schema", "checkpoint-explorer/plan"},
                        {"version", 1},
                        {"graph", graph.name()},
                        {"solver", plan.solver},
                        {"options", plan.options},
                        {"objective", e.objective},
                        {"checkpointBytes", e.checkpointBytes},
                        {"maxSegmentCost", e.maxSegmentCost},
                        {"isISPlan", e.isISPlan},
                        {"checkpoints", ids(graph, e.checkpoints)},
                        {"segments", segments},
                        {"wallTimeMs", plan.wallTimeMs},
                        {"notes", plan.notes}};
    if (!e.isISPlan)
        json["whyNotIS"] = e.whyNotIS;
    if (plan.sweep) {
        nlohmann::json entries = nlohmann::json::array();
        for (const SweepEntry& s : plan.sweep->entries)
            entries.push_back({{"c", s.c}, {"objective", s.objective}, {"checkpoints", ids(graph, s.checkpoints)}});
        json["sweep"] = {{"entries", entries}, {"winner", plan.sweep->winner}};
    }
    return json;
}

}  // namespace ckpt
