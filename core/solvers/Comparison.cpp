#include "solvers/Comparison.h"

#include "memory/CudaStepMemory.h"
#include "memory/OptimizerStep.h"
#include "memory/PlanMemory.h"
#include "memory/ScheduleMemory.h"
#include "solvers/SolverRegistry.h"
#include "theory/RecomputeCost.h"

namespace ckpt {

MemoryProfile simulateMemory(const Graph& graph, const Plan& plan, MemoryModel model, bool recordLive,
                             MemoryCount count)
{
    if (count == MemoryCount::CudaBlocks && model == MemoryModel::PyTorch && !plan.schedule)
        return simulateCudaStepMemory(graph, plan.evaluation, recordLive);
    if (plan.schedule)
        return simulateScheduleMemory(graph, *plan.schedule, model, recordLive);
    return simulatePlanMemory(graph, plan.evaluation, model, recordLive);
}

PlanRecompute planRecompute(const Graph& graph, const Plan& plan)
{
    PlanRecompute r;
    r.forwardCompute = forwardPassCompute(graph);
    if (plan.schedule) {
        // Forward actions after the first sweep (which computes each d_i once) are recomputations.
        std::vector<bool> computed(graph.vertexCount(), false);
        const auto& d = graph.topologicalOrder();
        for (const ScheduleAction& a : plan.schedule->actions)
            if (a.kind == ScheduleAction::Kind::Forward) {
                if (computed[d[a.step]]) {
                    r.recomputedBytes += graph.bytes(d[a.step]);
                    r.recomputedCompute += forwardCompute(graph, d[a.step]);
                }
                computed[d[a.step]] = true;
            }
        return r;
    }
    const RecomputeCost cost = recomputeCost(graph, plan.evaluation);
    r.recomputedCompute = cost.recomputed;
    r.recomputedBytes = cost.recomputedBytes;
    return r;
}

PlanCosts planCosts(const Graph& graph, const Plan& plan)
{
    PlanCosts c;
    static_cast<PlanRecompute&>(c) = planRecompute(graph, plan);
    c.checkpointCount = static_cast<int>(plan.checkpoints().size());
    c.objective = plan.objective();
    c.isISPlan = plan.evaluation.isISPlan;
    c.peakChen = simulateMemory(graph, plan, MemoryModel::Chen, false).peakBytes;
    const MemoryProfile pytorch = simulateMemory(graph, plan, MemoryModel::PyTorch, false);
    c.peakPyTorch = pytorch.peakBytes;
    if (const std::optional<OptimizerMemory> optimizer = measuredOptimizer(graph))
        c.optimizerStepBytes = optimizerStepBytes(pytorch, *optimizer);
    if (exportDeviceMemoryCount(graph) == MemoryCount::CudaBlocks && !plan.schedule)
        c.peakCudaBlocks = simulateMemory(graph, plan, MemoryModel::PyTorch, false, MemoryCount::CudaBlocks).peakBytes;
    return c;
}

bool recommendedOver(const PlanCosts& a, const PlanCosts& b)
{
    if (a.iterationPeak() != b.iterationPeak())
        return a.iterationPeak() < b.iterationPeak();
    // Plans of one requested peak can differ in the blocks they hold (Inception-V3 on an H200: three
    // such plans measured 297.3, 297.5 and 303.9 MB); below the optimizer's step they tie.
    const std::int64_t floor = a.optimizerStepBytes.value_or(0);
    if (a.peakCudaBlocks && b.peakCudaBlocks &&
        std::max(*a.peakCudaBlocks, floor) != std::max(*b.peakCudaBlocks, floor))
        return std::max(*a.peakCudaBlocks, floor) < std::max(*b.peakCudaBlocks, floor);
    return a.recomputedCompute < b.recomputedCompute;
}

int recommendedRow(const std::vector<ComparisonRow>& rows)
{
    int best = -1;
    for (int i = 0; i < static_cast<int>(rows.size()); ++i)
        if (!rows[i].error && (best < 0 || recommendedOver(rows[i].costs, rows[best].costs)))
            best = i;
    return best;
}

std::vector<ComparisonRow> compareSolvers(const Graph& graph, const std::vector<std::string>& solvers,
                                          const SolverOptions& options)
{
    std::vector<std::string> names = solvers;
    if (names.empty())
        for (const Solver* s : allSolvers())
            if (s->fast())
                names.push_back(s->name());
    std::vector<ComparisonRow> rows;
    for (const std::string& name : names) {
        ComparisonRow row;
        row.solver = name;
        try {
            Plan plan = runSolver(name, graph, options);
            row.solveMs = plan.wallTimeMs;
            row.notes = plan.notes;
            row.costs = planCosts(graph, plan);
        } catch (const SolverCancelled&) {
            throw;
        } catch (const std::exception& e) {
            row.error = e.what();
        }
        rows.push_back(std::move(row));
    }
    return rows;
}

}  // namespace ckpt
