#pragma once
#include "solvers/Solver.h"

namespace ckpt {

// feng-acg (Feng & Huang Alg. 6): build the division tree, take the max-term list, run
// Alg. 5 under every C and keep the best plan. The sweep is part of the Plan.
class FengAcgSolver : public Solver {
public:
    std::string name() const override { return "feng-acg"; }
    std::string description() const override
    {
        return "Feng & Huang Alg. 6: division tree + Alg. 5 under every max term C (optimal IS plan)";
    }
    std::vector<OptionSpec> options() const override;
    Plan solve(const Graph& graph, const SolverOptions& options) const override;
};

// The sweep shared by feng-acg and feng-lcg (on a chain the division tree is a Linear root
// with single-edge members, and Alg. 5 is Alg. 1's shortest path under C).
Plan solveBySweep(const Graph& graph, const Solver& solver, const SolverOptions& options);

}  // namespace ckpt
