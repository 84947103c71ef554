#include "solvers/BudgetSweep.h"

#include "solvers/CheckmateMilpSolver.h"
#include "solvers/SolverRegistry.h"
#include "theory/RecomputeCost.h"
#include "theory/StageSchedule.h"
#include "theory/TrainingGraph.h"

#include <algorithm>
#include <chrono>
#include <cmath>

namespace ckpt {

namespace {

// Keep the given forward checkpoints and every backward value (002 §5.1.1).
StageSchedule baselineSchedule(const StageGraph& g, const Graph& training, const Graph& forward,
                               const std::vector<VertexIndex>& checkpoints, std::int64_t fixedBytes)
{
    std::vector<char> keep(g.size(), 0);
    for (int k = 0; k < g.size(); ++k)
        keep[k] = training.vertex(g.vertex[k]).backward;
    for (VertexIndex v : checkpoints)
        if (auto t = training.find(forward.vertex(v).id))
            keep[training.topologicalPosition(*t)] = 1;
    return scheduleFromKept(g, training, keep, fixedBytes);
}

double secondsSince(std::chrono::steady_clock::time_point start)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

BudgetSweepResult budgetSweep(const Graph& graph, const BudgetSweepSettings& settings)
{
    BudgetSweepResult result;
    result.graph = graph.name();
    result.derivedBackward = !isTrainingGraph(graph);
    const Graph training = asTrainingGraph(graph);
    if (training.vertexCount() > maxBudgetSweepNodes) {
        const std::string which = graph.name().empty() ? "this graph" : "\"" + graph.name() + "\"";
        throw SolverError("the budget sweep replays Checkmate stage schedules, whose size grows with the square of "
                          "the training graph: " + which + " has " + std::to_string(training.vertexCount()) +
                          " training nodes, above the " + std::to_string(maxBudgetSweepNodes) +
                          " it runs on; compare the plans' peaks instead (the app's Solvers table, `ckptx compare`)");
    }
    const Graph forward = forwardPart(training);
    const StageGraph g(training);
    result.trainingNodes = g.size();
    result.fixedBytes = fixedOverheadBytes(graph);

    const StageSchedule all = scheduleFromKept(g, training, std::vector<char>(g.size(), 1), result.fixedBytes);
    result.baselineCost = all.cost;
    // The MILP's own accounting (FREE[t][k][k] = 0) so that the top budget admits checkpoint-all.
    result.baselinePeak = modelPeak(g, all.R, all.S, result.fixedBytes);
    result.lowerBound = leastPeak(g, result.fixedBytes);
    result.forwardCost = forwardPassCompute(forward);

    auto point = [&](const std::string& solver, const StageSchedule& s, std::string status, double seconds) {
        BudgetSweepRow row;
        row.solver = solver;
        row.peakBytes = s.peakBytes;
        row.cost = s.cost;
        row.overhead = s.cost / std::max(result.baselineCost, 1e-12);
        row.costModel = "stage replay";
        row.status = std::move(status);
        row.seconds = seconds;
        return row;
    };
    auto failure = [](const std::string& solver, std::string status, std::string error) {
        BudgetSweepRow row;
        row.solver = solver;
        row.status = std::move(status);
        row.error = std::move(error);
        return row;
    };

    for (const std::string& name : settings.solvers) {
        if (settings.cancel && settings.cancel->load())
            throw SolverCancelled();
        const auto start = std::chrono::steady_clock::now();
        if (name == "checkmate-milp") {
            const int points = std::max(1, settings.points);
            for (int i = 0; i < points; ++i) {
                const double f = points == 1 ? 1.0 : double(i) / (points - 1);
                const auto budget = static_cast<std::int64_t>(
                    std::llround(result.lowerBound + f * double(result.baselinePeak - result.lowerBound)));
                CheckmateSettings cs;
                cs.budget = budget;
                cs.fixedBytes = result.fixedBytes;
                cs.seconds = settings.timeLimit;
                cs.cancel = settings.cancel;
                const auto solveStart = std::chrono::steady_clock::now();
                const CheckmateOutcome out = solveCheckmate(training, cs);
                if (out.status == MilpStatus::Cancelled)
                    throw SolverCancelled();
                BudgetSweepRow row;
                if (out.schedule) {
                    row = point(name, *out.schedule, statusText(out), secondsSince(solveStart));
                } else {
                    row = failure(name, toString(out.status), out.message);
                }
                row.budget = budget;
                row.seconds = secondsSince(solveStart);
                result.rows.push_back(std::move(row));
            }
            continue;
        }
        const Solver* solver = findSolver(name);
        if (!solver) {
            result.rows.push_back(failure(name, "unknown solver", "no solver named \"" + name + "\" in this build"));
            continue;
        }
        try {
            SolverOptions options;
            options.cancel = settings.cancel;
            const Plan plan = solver->solve(forward, options);
            auto planPoint = [&](const std::string& label, const std::vector<VertexIndex>& checkpoints) {
                BudgetSweepRow row = point(label, baselineSchedule(g, training, forward, checkpoints, result.fixedBytes),
                                           "ok", secondsSince(start));
                const RecomputeCost cost = recomputeCost(forward, evaluate(forward, checkpoints));
                row.cost = cost.forward + cost.recomputed;
                row.overhead = 1 + cost.overhead();
                row.costModel = "re-forward";
                for (VertexIndex v : checkpoints)
                    row.checkpoints.push_back(forward.vertex(v).id);
                result.rows.push_back(std::move(row));
            };
            if (plan.sweep)
                for (const SweepEntry& e : plan.sweep->entries)
                    planPoint(name + " (C=" + std::to_string(e.c) + ")", e.checkpoints);
            planPoint(name, plan.checkpoints());
        } catch (const SolverError& e) {
            result.rows.push_back(failure(name, "error", e.what()));
        }
    }
    return result;
}

}  // namespace ckpt
