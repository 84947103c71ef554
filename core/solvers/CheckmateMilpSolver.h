#pragma once
// checkmate-milp: the rematerialization MILP of Checkmate (002 §4, Eq. 1-8 with the §4.6
// simplifications) on a training graph, and its execution plan (Alg. 1).
#include "milp/MilpModel.h"
#include "solvers/Solver.h"
#include "theory/StageSchedule.h"

#include <optional>

namespace ckpt {

struct CheckmateSettings {
    enum class Mode {
        MinCompute,  // Eq. 1a subject to U <= budget (8)
        MinMemory,   // minimize the peak U subject to at most one extra forward pass (Eq. 9)
    };
    Mode mode = Mode::MinCompute;
    std::int64_t budget = 0;      // bytes, fixed overhead included (MinCompute)
    std::int64_t fixedBytes = 0;  // Eq. 2: M_input + 2 M_param (the input is node 0 here)
    double seconds = 60;  // for the whole call, model building included
    const std::atomic<bool>* cancel = nullptr;
    std::function<void(const MilpProgress&)> progress;
};

struct CheckmateOutcome {
    MilpStatus status = MilpStatus::Failed;
    std::optional<StageSchedule> schedule;  // replayed and checked
    double bound = 0;  // proven lower bound on the objective (compute units, or bytes)
    // Whether `bound` is CBC's; if not, the limit came before its root LP finished and `bound` is
    // the trivial one: every node computed once (compute), the largest node with its inputs (memory).
    bool lpBound = false;
    // Whether the MILP was built; if not, the limit came first and `schedule` is the MIP start.
    bool modelBuilt = false;
    double gap = 0;  // (objective - bound) / objective of `schedule`
    int variables = 0, rows = 0;
    std::string message;
};

// "optimal", "time limit (gap 3.1%)", "time limit (root LP unfinished, gap <= 40% to the trivial
// bound)", or the status's name when there is no schedule.
std::string statusText(const CheckmateOutcome& outcome);

// `training` must be a training graph (see TrainingGraph.h).
CheckmateOutcome solveCheckmate(const Graph& training, const CheckmateSettings& settings);

class CheckmateMilpSolver : public Solver {
public:
    std::string name() const override { return "checkmate-milp"; }
    // Runs to a time limit: compare and the GUI run it only when asked.
    bool fast() const override { return false; }
    std::string description() const override
    {
        return "Checkmate MILP (Jain et al. 2020, §4 Eq. 1-9) on CBC: optimal recomputation schedule";
    }
    std::vector<OptionSpec> options() const override;
    Plan solve(const Graph& graph, const SolverOptions& options) const override;
};

}  // namespace ckpt
