#pragma once
// optimal: the exact minimum of Feng & Huang's objective (Eq. 2: checkpoint bytes + max segment
// cost) over ALL checkpoint sets in the general model (segments = connected components of the
// non-checkpoint vertices, each re-forwarded from all its entries; see PlanEvaluation.h), not
// only over IS plans: a frontier DP (FrontierDp.h) where a vertex order with a narrow frontier
// exists, CBC row generation over intervals of the max term otherwise. Methods and why they prove
// optimality: docs/THEORY.md, "## optimal". With memory-model=pytorch it minimises the peak of the
// pytorch memory model instead (or, with a budget, the recompute).
#include "solvers/Solver.h"

namespace ckpt {

class OptimalSolver : public Solver {
public:
    std::string name() const override { return "optimal"; }
    // Runs to a time limit: compare and the GUI run it only when asked.
    bool fast() const override { return false; }
    std::string description() const override
    {
        return "Exact minimum of Feng & Huang Eq. 2 over every checkpoint set (general model): frontier DP, "
               "CBC row generation on wide graphs";
    }
    // Option defaults of "max-width" and "max-labels" (chosen by measurement, docs/BENCHMARKS.md).
    static constexpr int defaultMaxWidth = 12;
    static constexpr int defaultMaxLabels = 2'000'000;
    std::vector<OptionSpec> options() const override;
    Plan solve(const Graph& graph, const SolverOptions& options) const override;

    // The warm-start hook: solve() runs the registry's solvers named in option "warm-start"
    // (default "feng-acg,checkpoint-all"; names not in the registry are skipped) and passes
    // their plans here. Callers that already hold a good plan can call this directly.
    Plan solveFrom(const Graph& graph, const SolverOptions& options, const std::vector<Plan>& warmStarts) const;

private:
    // memory-model=pytorch: the least pytorch-model peak, or with budget=BYTES the least
    // recompute whose peak fits (PyTorchPeakSearch.h). The plan's options record the peak.
    Plan solvePyTorchPeak(const Graph& graph, const SolverOptions& options) const;
};

}  // namespace ckpt
