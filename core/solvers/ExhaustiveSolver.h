#pragma once
// Exhaustive search over checkpoint sets, the ground truth the other solvers are tested
// against. Graphs of more than maxVertices vertices are refused.
#include "solvers/Solver.h"

namespace ckpt {

class ExhaustiveSolver : public Solver {
public:
    static constexpr int maxVertices = 24;
    // isPlansOnly: the paper's search space (every segment an IS); otherwise every
    // checkpoint set (the general model of PlanEvaluation.h).
    explicit ExhaustiveSolver(bool isPlansOnly) : m_isPlansOnly(isPlansOnly) {}
    std::string name() const override { return m_isPlansOnly ? "exhaustive" : "exhaustive-general"; }
    std::string description() const override;
    Plan solve(const Graph& graph, const SolverOptions& options) const override;

private:
    bool m_isPlansOnly;
};

}  // namespace ckpt
