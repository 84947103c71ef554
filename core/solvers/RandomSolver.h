#pragma once
#include "solvers/Solver.h"

namespace ckpt {

// The random baseline of Feng & Huang §6: pick 1-5 checkpoints uniformly among all vertices
// (source and sink are always checkpoints), keep the draws that give an IS plan, stop at 10
// of them and return the best (smallest Eq. 2 objective). If 100 draws give none, refuse with
// "no valid set in 100 trials" (the paper's N/A for the NAS networks). Seeded, so repeatable.
class RandomSolver : public Solver {
public:
    std::string name() const override { return "random"; }
    std::string description() const override
    {
        return "Best of 10 valid random sets of 1-5 checkpoints (Feng & Huang §6 baseline)";
    }
    std::vector<OptionSpec> options() const override;
    Plan solve(const Graph& graph, const SolverOptions& options) const override;
};

}  // namespace ckpt
