#pragma once
// Compute overhead versus memory budget (Checkmate Fig. 4) for a set of solvers on one graph.
//
// Checkpoint heuristics (checkpoint-all, the Chen variants, ...) run on the forward part; each
// plan (and each entry of a plan's own sweep) becomes a Checkmate schedule that keeps its
// checkpoints and every gradient until their last use and recomputes the rest (002 §5.1.1),
// replayed for its peak memory. Its compute is the one recompute-cost model of checkpoint plans
// (theory/RecomputeCost.h: each segment re-forwarded once): overhead = (forward + recomputed) /
// forward, 1 for checkpoint-all, 2 for a plan that re-forwards the network once.
// checkmate-milp is solved at evenly spaced budgets between a lower bound (the largest single
// computation with its inputs, plus the fixed overhead) and checkpoint-all's peak; its general
// schedules keep their stage-model cost (Checkmate's replay, forward and backward nodes):
// overhead = compute / checkpoint-all's stage compute. BudgetSweepRow::costModel says which.
#include "graph/Graph.h"
#include "solvers/Solver.h"

#include <optional>
#include <string>
#include <vector>

namespace ckpt {

struct BudgetSweepRow {
    std::string solver;
    std::optional<std::int64_t> budget;  // the budget asked for (checkmate-milp), else none
    std::int64_t peakBytes = 0;          // replayed peak, fixed overhead included
    double cost = 0;
    double overhead = 0;
    // How cost and overhead were counted: "re-forward" (checkpoint plans, RecomputeCost.h) or
    // "stage replay" (checkmate-milp's schedules, Checkmate's own model).
    std::string costModel;
    std::string status;  // "ok", "optimal", "time limit (gap 3.1%)", "infeasible", "unknown solver", "error"
    std::string error;   // why there is no point, in plain words
    double seconds = 0;
    // The checkpoint plan's vertex ids (heuristic rows); empty for checkmate-milp, whose general
    // schedules recompute freely and are not checkpoint plans.
    std::vector<std::string> checkpoints;
    bool hasPoint() const { return error.empty(); }
};

struct BudgetSweepSettings {
    std::vector<std::string> solvers{"checkpoint-all", "checkmate-milp"};
    int points = 8;           // budgets for checkmate-milp
    double timeLimit = 60;    // seconds per MILP solve
    const std::atomic<bool>* cancel = nullptr;
};

struct BudgetSweepResult {
    std::string graph;
    int trainingNodes = 0;
    bool derivedBackward = false;
    std::int64_t fixedBytes = 0;
    double baselineCost = 0;  // checkpoint-all's stage compute (the milp rows' denominator)
    double forwardCost = 0;   // the forward pass's compute (the checkpoint plans' denominator)
    std::int64_t baselinePeak = 0;  // checkpoint-all's peak as the MILP counts it (Eq. 2-5)
    std::int64_t lowerBound = 0;
    std::vector<BudgetSweepRow> rows;
};

// Checkmate's stage model keeps an n x n matrix of recomputations and replays n^2 statements per
// schedule, once per plan and sweep entry: above this many training nodes (a forward graph of about
// 2,000 vertices) that is gigabytes and minutes, so the sweep is refused with a SolverError.
inline constexpr int maxBudgetSweepNodes = 4096;

BudgetSweepResult budgetSweep(const Graph& graph, const BudgetSweepSettings& settings);

}  // namespace ckpt
