#pragma once
#include "solvers/Solver.h"

namespace ckpt {

// checkpoint-all (Checkmate §5.1): every tensor is kept, nothing is recomputed.
class CheckpointAllSolver : public Solver {
public:
    std::string name() const override { return "checkpoint-all"; }
    std::string description() const override { return "Keep every tensor; no recomputation (regular training)"; }
    Plan solve(const Graph& graph, const SolverOptions& options) const override;
};

}  // namespace ckpt
