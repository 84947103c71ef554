// ckptx solve / sweep / tree: checkpoint solvers, the Feng–Huang C sweep and the division tree.
#include "Cli.h"
#include "SolverArgs.h"

#include "io/GraphJson.h"
#include "io/PlanJson.h"
#include "io/ResultJson.h"
#include "solvers/SolverRegistry.h"
#include "theory/DivisionTree.h"

#include <algorithm>
#include <iostream>

namespace ckptx {

namespace {

std::string idList(const nlohmann::json& ids)
{
    std::string out;
    for (const auto& id : ids)
        out += (out.empty() ? "" : " ") + id.get<std::string>();
    return out;
}

int runSolve(const std::vector<std::string>& argv)
{
    Args args(argv, {"--solver", "--option", "-o"}, {"--json"});
    args.expectPositional({"GRAPH"});
    const std::string solver = args.requireOption("--solver");
    const auto graph = ckpt::readGraphFile(args.positional()[0]);
    const ckpt::Plan plan = ckpt::runSolver(solver, graph, solverOptions(args, solver));
    if (auto path = args.option("-o"))
        ckpt::writePlanFile(*path, graph, plan);
    const nlohmann::json out = ckpt::planToJson(graph, plan, false);
    if (args.flag("--json")) {
        printJson(out);
        return Ok;
    }
    std::cout << "solver:      " << plan.solver << "\n"
              << "checkpoints: " << idList(out["checkpoints"]) << "\n"
              << "objective:   " << plan.objective() << " bytes (" << plan.evaluation.checkpointBytes
              << " checkpoints + " << plan.evaluation.maxSegmentCost << " largest segment)\n"
              << "IS plan:     " << (plan.evaluation.isISPlan ? "yes" : "no, " + plan.evaluation.whyNotIS) << "\n"
              << "segments:    " << plan.evaluation.segments.size() << "\n"
              << "time:        " << plan.wallTimeMs << " ms\n";
    for (const std::string& note : plan.notes)
        std::cout << "note:        " << note << "\n";
    return Ok;
}

int runSweep(const std::vector<std::string>& argv)
{
    Args args(argv, {"--solver", "--option"}, {"--json"});
    args.expectPositional({"GRAPH"});
    const std::string solver = args.option("--solver").value_or("feng-acg");
    const auto graph = ckpt::readGraphFile(args.positional()[0]);
    const ckpt::Plan plan = ckpt::runSolver(solver, graph, solverOptions(args, solver));
    if (!plan.sweep)
        throw UsageError("solver " + solver + " does not sweep a max term C (use feng-acg or feng-lcg)");
    nlohmann::json out = ckpt::sweepToJson(graph, *plan.sweep);
    out["solver"] = plan.solver;
    out["time_ms"] = plan.wallTimeMs;
    if (args.flag("--json")) {
        printJson(out);
        return Ok;
    }
    std::cout << "C\tobjective\tcheckpoints\n";
    for (const auto& e : out["entries"])
        std::cout << e["c"].get<std::int64_t>() << "\t" << e["objective"].get<std::int64_t>() << "\t"
                  << idList(e["checkpoints"]) << "\n";
    std::cout << "winner: C = " << out["winner_c"].get<std::int64_t>() << ", objective "
              << out["winner_objective"].get<std::int64_t>() << " bytes\n";
    return Ok;
}

// Depth-first, children in order, with an explicit stack (the tree can be as deep as the
// graph is long). Indentation stops growing at a depth that still reads; deeper lines say
// their depth.
void printTree(const nlohmann::json& tree)
{
    constexpr std::size_t maxIndent = 32;
    const auto& nodes = tree["nodes"];
    std::vector<std::pair<int, std::size_t>> stack{{tree["root"].get<int>(), 0}};  // (node, depth)
    while (!stack.empty()) {
        const auto [index, depth] = stack.back();
        stack.pop_back();
        const auto& node = nodes[std::size_t(index)];
        std::cout << std::string(2 * std::min(depth, maxIndent), ' ');
        if (depth > maxIndent)
            std::cout << "[depth " << depth << "] ";
        std::cout << node["type"].get<std::string>() << " " << node["source"].get<std::string>() << " -> "
                  << node["target"].get<std::string>() << "  cost " << node["cost"].get<std::int64_t>() << "\n";
        const auto& children = node["children"];
        for (auto child = children.rbegin(); child != children.rend(); ++child)
            stack.push_back({child->get<int>(), depth + 1});
    }
}

int runTree(const std::vector<std::string>& argv)
{
    Args args(argv, {}, {"--json"});
    args.expectPositional({"GRAPH"});
    const auto graph = ckpt::readGraphFile(args.positional()[0]);
    const nlohmann::json out = ckpt::divisionTreeToJson(graph, ckpt::DivisionTree::build(graph));
    if (args.flag("--json"))
        printJson(out);
    else
        printTree(out);
    return Ok;
}

const CommandRegistration solve{{"solve", "solve GRAPH --solver NAME [--option KEY=VALUE ...] [-o PLAN.json] [--json]",
                                 "checkpoints, segments and objective (Feng & Huang Eq. 2) from a solver", &runSolve}};
const CommandRegistration sweep{{"sweep", "sweep GRAPH [--solver feng-acg|feng-lcg] [--option KEY=VALUE ...] [--json]",
                                 "every max term C of the Feng & Huang sweep with its checkpoints and objective",
                                 &runSweep}};
const CommandRegistration tree{{"tree", "tree GRAPH [--json]",
                                "the division tree: Linear / Branch / Complicate IS down to single edges", &runTree}};

}  // namespace

}  // namespace ckptx
