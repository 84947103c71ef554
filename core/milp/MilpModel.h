#pragma once
// A small mixed-integer program builder on top of CBC's C interface (coinor-libcbc-dev).
//
// Limits, progress and cancel (CBC 2.10's C interface has no event handler):
//  - time limit: CBC's own "-sec" parameter;
//  - progress: CBC's message callback goes silent once a heuristic's mini branch-and-bound
//    lowers the shared handler's log level, so instead CBC's log (stdout) is captured through a
//    pipe while it runs and its "Cbc0010I ... best solution X, best possible Y" and
//    "Integer solution of X" lines are parsed into MilpProgress;
//  - cancel: a cut callback (called at every node) adds an infeasible cut once the flag is set,
//    which closes every open node, so CBC returns within one node's work.
// CBC's driver (CbcMain1) is not re-entrant, so solves are serialized process-wide; while one
// runs, the process's stdout (file descriptor 1) goes to the log parser.
#include "solvers/Solver.h"

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ckpt {

enum class MilpStatus {
    Optimal,     // proven optimal (within the allowed gap)
    Feasible,    // a limit was reached; `values` holds the best solution found
    Infeasible,  // proven: no solution (better than the cutoff, when one was given)
    NoSolution,  // a limit was reached before any solution was found
    Cancelled,   // SolverOptions::cancel was set; `values` may hold a solution
    Failed,      // CBC gave up (numerical trouble); `message` says so
};

std::string toString(MilpStatus status);

struct MilpLimits {
    double seconds = 60;
    std::optional<double> cutoff;  // only solutions with objective below this are wanted
    bool integralObjective = false;  // every solution's objective is an integer: stop at gap < 1
    bool relax = false;  // solve the LP relaxation only (integer columns become continuous)
    const std::atomic<bool>* cancel = nullptr;
    std::function<void(const MilpProgress&)> progress;
};

struct MilpResult {
    MilpStatus status = MilpStatus::Failed;
    double objective = 0;  // of `values`, when there is a solution
    double bound = 0;      // proven lower bound (minimization)
    std::vector<double> values;
    std::vector<std::vector<double>> otherSolutions;  // further solutions CBC kept (worse ones)
    double seconds = 0;
    std::string message;

    bool hasSolution() const { return !values.empty(); }
    // Relative gap between solution and bound, 0 when proven optimal.
    double gap() const;
};

class MilpModel {
public:
    using Term = std::pair<int, double>;  // column, coefficient

    int addBinary(double objective);
    int addContinuous(double lower, double upper, double objective);
    // sense: 'L' (<=), 'G' (>=) or 'E' (=)
    void addRow(const std::vector<Term>& terms, char sense, double rhs);
    void fix(int column, double value);
    int columnCount() const { return static_cast<int>(m_objective.size()); }
    int rowCount() const { return static_cast<int>(m_rowSense.size()); }
    // A complete assignment CBC tries first (a MIP start); ignored by CBC if infeasible.
    void setStart(std::vector<double> values) { m_start = std::move(values); }

    MilpResult solve(const MilpLimits& limits) const;

private:
    std::vector<double> m_objective, m_lower, m_upper;
    std::vector<char> m_integer;
    std::vector<int> m_rowStart{0};
    std::vector<Term> m_terms;
    std::vector<char> m_rowSense;
    std::vector<double> m_rhs;
    std::vector<double> m_start;
};

}  // namespace ckpt
