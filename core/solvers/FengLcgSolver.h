#pragma once
#include "solvers/Solver.h"

namespace ckpt {

// feng-lcg (Feng & Huang Alg. 1): for a linear computation graph, the best over every max
// term C = l(v_j, v_k) of the least-bytes checkpoints whose segments all fit C (a shortest
// path in the accessibility graph). Refuses graphs that are not chains.
class FengLcgSolver : public Solver {
public:
    std::string name() const override { return "feng-lcg"; }
    std::string description() const override
    {
        return "Feng & Huang Alg. 1: optimal checkpoints of a linear graph (C sweep + shortest path)";
    }
    std::vector<OptionSpec> options() const override;
    Plan solve(const Graph& graph, const SolverOptions& options) const override;
};

}  // namespace ckpt
