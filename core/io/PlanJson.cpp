#include "io/PlanJson.h"

#include "graph/GraphError.h"
#include "graph/GraphFingerprint.h"
#include "io/JsonAccess.h"
#include "io/TextFile.h"
#include "solvers/Comparison.h"

#include <limits>

namespace ckpt {

using namespace json_access;

namespace {

json idsOf(const Graph& graph, const std::vector<VertexIndex>& vertices)
{
    json out = json::array();
    for (VertexIndex v : vertices)
        if (!graph.vertex(v).isVirtual)
            out.push_back(graph.vertex(v).id);
    return out;
}

const char* actionName(ScheduleAction::Kind kind)
{
    switch (kind) {
    case ScheduleAction::Kind::Forward:
        return "forward";
    case ScheduleAction::Kind::Store:
        return "store";
    case ScheduleAction::Kind::Release:
        return "release";
    case ScheduleAction::Kind::Backward:
        break;
    }
    return "backward";
}

ScheduleAction::Kind parseAction(const std::string& name, const std::string& where)
{
    for (auto kind : {ScheduleAction::Kind::Forward, ScheduleAction::Kind::Store, ScheduleAction::Kind::Release,
                      ScheduleAction::Kind::Backward})
        if (name == actionName(kind))
            return kind;
    throw GraphError("unknown schedule action \"" + name + "\" (forward, store, release, backward)", where);
}

CheckpointSchedule parseSchedule(const json& root, int steps)
{
    const json& s = requireObject(root, "/schedule");
    CheckpointSchedule schedule;
    schedule.steps = steps;
    schedule.slots = static_cast<int>(requireInt64InRange(s, "slots", 0, std::numeric_limits<int>::max(), "/schedule"));
    const json& actions = requireArray(s, "actions", "/schedule");
    for (std::size_t i = 0; i < actions.size(); ++i) {
        const std::string at = "/schedule/actions/" + std::to_string(i);
        const json& pair = actions[i];
        if (!pair.is_array() || pair.size() != 2 || !pair[0].is_string())
            throw GraphError("a schedule action is [\"forward|store|release|backward\", step]", at);
        ScheduleAction a{parseAction(pair[0].get<std::string>(), at), toCount(pair[1], at + "/1")};
        schedule.forwardSteps += a.kind == ScheduleAction::Kind::Forward;
        schedule.actions.push_back(a);
    }
    if (const std::string problem = scheduleProblem(schedule); !problem.empty())
        throw GraphError("the schedule cannot run: " + problem, "/schedule");
    return schedule;
}

}  // namespace

std::string toPlanJson(const Graph& graph, const Plan& plan)
{
    const PlanCosts costs = planCosts(graph, plan);
    json segments = json::array();
    for (const Segment& s : plan.evaluation.segments)
        segments.push_back({{"vertices", idsOf(graph, s.vertices)},
                            {"entries", idsOf(graph, s.entries)},
                            {"exits", idsOf(graph, s.exits)},
                            {"cost", s.cost}});
    json root = {{"schema", kPlanSchema},
                 {"version", kPlanSchemaVersion},
                 {"graph", {{"name", graph.name()}, {"fingerprint", graphFingerprint(graph)}, {"vertices", graph.vertexCount()}}},
                 {"solver", plan.solver},
                 {"options", plan.options},
                 {"checkpoints", idsOf(graph, plan.checkpoints())},
                 {"segments", segments},
                 {"objective", plan.objective()},
                 {"is_plan", plan.evaluation.isISPlan},
                 {"predicted_peaks", {{"chen", costs.peakChen}, {"pytorch", costs.peakPyTorch}}},
                 {"recompute", {{"compute", costs.recomputedCompute}, {"overhead", costs.recomputeOverhead()}}},
                 {"notes", plan.notes}};
    if (plan.schedule) {
        json actions = json::array();
        for (const ScheduleAction& a : plan.schedule->actions)
            actions.push_back({actionName(a.kind), a.step});
        root["schedule"] = {{"slots", plan.schedule->slots}, {"actions", actions}};
    }
    return root.dump(2) + "\n";
}

void writePlanFile(const std::string& path, const Graph& graph, const Plan& plan)
{
    writeTextFileAtomically(path, toPlanJson(graph, plan));
}

Plan parsePlanJson(const Graph& graph, const std::string& text, const std::string& file)
{
    return readingFile(file, [&] {
        const json root = parse(text);
        requireObject(root, "");
        if (requireString(root, "schema", "") != kPlanSchema)
            throw GraphError("not a plan file (schema must be \"" + std::string(kPlanSchema) + "\")", "/schema");
        if (requireInt64(root, "version", "") != kPlanSchemaVersion)
            throw GraphError("unsupported plan version (this build reads version " +
                                 std::to_string(kPlanSchemaVersion) + ")",
                             "/version");
        const json* graphMember = optionalMember(root, "graph");
        if (!graphMember)
            throw GraphError("missing member \"graph\" (the graph fingerprint)", "/graph");
        const json& g = requireObject(*graphMember, "/graph");
        const std::string fingerprint = requireString(g, "fingerprint", "/graph");
        if (fingerprint != graphFingerprint(graph))
            throw GraphError("the plan was made for a different graph (\"" +
                                 optionalString(g, "name", "/graph").value_or("") + "\", fingerprint " + fingerprint +
                                 "); this graph \"" + graph.name() + "\" has fingerprint " + graphFingerprint(graph),
                             "/graph/fingerprint");
        Plan plan;
        plan.solver = requireString(root, "solver", "");
        if (const json* options = optionalMember(root, "options")) {
            requireObject(*options, "/options");
            for (const auto& [key, value] : options->items())
                plan.options[key] = value.is_string() ? value.get<std::string>() : value.dump();
        }
        const json& ids = requireArray(root, "checkpoints", "");
        std::vector<VertexIndex> checkpoints;
        for (std::size_t i = 0; i < ids.size(); ++i) {
            const std::string at = "/checkpoints/" + std::to_string(i);
            if (!ids[i].is_string())
                throw GraphError("a checkpoint is a vertex id (string)", at);
            auto v = graph.find(ids[i].get<std::string>());
            if (!v)
                throw GraphError("unknown vertex \"" + ids[i].get<std::string>() + "\"", at);
            checkpoints.push_back(*v);
        }
        plan.evaluation = evaluate(graph, std::move(checkpoints));
        if (const json* notes = optionalMember(root, "notes"); notes && notes->is_array())
            for (const json& note : *notes)
                if (note.is_string())
                    plan.notes.push_back(note.get<std::string>());
        if (optionalMember(root, "schedule")) {
            if (!graph.isChain())
                throw GraphError("a schedule needs a chain graph", "/schedule");
            plan.schedule = parseSchedule(root.at("schedule"), graph.vertexCount() - 1);
        }
        return plan;
    });
}

Plan readPlanFile(const std::string& path, const Graph& graph)
{
    return parsePlanJson(graph, readInputFile(path), path);
}

}  // namespace ckpt
