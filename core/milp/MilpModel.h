#pragma once
// A small mixed-integer program builder on top of CBC (coinor-libcbc-dev).
//
// Every solve runs CBC in a child process (milp/CbcChild.h), so the time limit and cancel hold
// even inside CBC's root LP, which cannot be interrupted otherwise; a CBC crash becomes a
// Failed result. Progress (incumbent and bound) comes from CBC's log and the solutions it sends.
// Any solution returned satisfies every row, bound and integrality here (checked, not trusted);
// the MIP start counts as a solution when it does, so a limit reached before CBC has done
// anything still returns it.
#include "solvers/Solver.h"

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ckpt {

struct CbcProblem;

enum class MilpStatus {
    Optimal,     // proven optimal (within the allowed gap)
    Feasible,    // a limit was reached (or CBC crashed, `message` says so); `values` holds the best found
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
    double bound = 0;      // proven lower bound (minimization); -infinity when none is known yet
                           // (the limit came before CBC's root LP finished)
    std::vector<double> values;
    std::vector<std::vector<double>> otherSolutions;  // further solutions CBC kept (worse ones)
    double seconds = 0;
    std::string message;

    bool hasSolution() const { return !values.empty(); }
    // Relative gap between solution and bound, 0 when proven optimal, infinity without a bound.
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

    // Never runs past limits.seconds by more than the time to kill a process; thread-safe (each call has its
    // own CBC process).
    MilpResult solve(const MilpLimits& limits) const;

private:
    double objectiveOf(const std::vector<double>& values) const;
    bool satisfies(const std::vector<double>& values, bool integral) const;
    CbcProblem cbcProblem(bool relax) const;

    std::vector<double> m_objective, m_lower, m_upper;
    std::vector<char> m_integer;
    std::vector<int> m_rowStart{0};
    std::vector<Term> m_terms;
    std::vector<char> m_rowSense;
    std::vector<double> m_rhs;
    std::vector<double> m_start;
};

}  // namespace ckpt
