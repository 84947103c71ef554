#include "solvers/GriewankSolver.h"

#include <cmath>

namespace ckpt {

std::vector<OptionSpec> GriewankSolver::options() const
{
    return {{"slots", "0", "checkpoint slots besides the input; 0 = ceil(log2 n)"}};
}

Plan GriewankSolver::solve(const Graph& graph, const SolverOptions& options) const
{
    if (!graph.isChain())
        throw SolverError("griewank-logn needs a chain (binomial checkpointing reverses a sequence of steps)");
    const int n = graph.vertexCount() - 1;
    if (n < 1)
        throw SolverError("griewank-logn needs at least two tensors");
    if (n > kRevolveMaxSteps)
        throw SolverError("griewank-logn handles chains of at most " + std::to_string(kRevolveMaxSteps) +
                          " steps; this one has " + std::to_string(n));
    std::int64_t slots = options.integer("slots", 0);
    if (slots < 0)
        throw SolverError("option slots must be 0 or positive");
    if (slots == 0)
        slots = std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil(std::log2(static_cast<double>(n)))));
    CheckpointSchedule schedule = revolveSchedule(n, static_cast<int>(slots));

    const auto& d = graph.topologicalOrder();
    std::vector<VertexIndex> firstSweep;
    for (const ScheduleAction& a : schedule.actions) {
        if (a.kind == ScheduleAction::Kind::Backward)
            break;
        if (a.kind == ScheduleAction::Kind::Store)
            firstSweep.push_back(d[a.step]);
    }
    SolverOptions used = options;
    used.values["slots"] = std::to_string(slots);
    Plan plan = makePlan(graph, *this, used, std::move(firstSweep));
    plan.notes.push_back(std::to_string(schedule.slots) + " slots: " + std::to_string(schedule.forwardSteps) +
                         " forward steps for " + std::to_string(n) + " layers, " +
                         std::to_string(schedule.recomputations()) + " recomputations");
    plan.notes.push_back("the objective is Eq. 2 of the first sweep's checkpoints; the schedule recomputes "
                         "nested segments, and its memory is simulated from the schedule");
    plan.schedule = std::move(schedule);
    return plan;
}

}  // namespace ckpt
