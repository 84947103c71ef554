#pragma once
#include "solvers/Solver.h"

namespace ckpt {

// Griewank & Walther's binomial checkpointing (REVOLVE; Checkmate Table 1 "Griewank et al.
// log n") on a chain: with `slots` checkpoint slots (default ceil(log2 n)) the schedule that
// reverses the chain with the fewest recomputations. Tensors may be recomputed several times,
// so the plan carries the schedule; its evaluation shows the checkpoints of the first sweep.
class GriewankSolver : public Solver {
public:
    std::string name() const override { return "griewank-logn"; }
    std::string description() const override
    {
        return "Griewank & Walther binomial checkpointing (REVOLVE) with log n slots, chains only";
    }
    std::vector<OptionSpec> options() const override;
    Plan solve(const Graph& graph, const SolverOptions& options) const override;
};

}  // namespace ckpt
