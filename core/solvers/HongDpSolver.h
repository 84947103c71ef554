#pragma once
#include "solvers/Solver.h"
#include "theory/CandidateChain.h"

namespace ckpt {

struct ChainSelection {
    std::vector<int> positions;  // chosen chain positions, ascending, with 0 and m
    std::int64_t value = 0;      // the optimum of the algorithm's objective
    std::int64_t work = 0;       // inner steps done: queue steps (Alg. 3), U(i, j) evaluations (Alg. 5, 6)
};

// Hong et al. Alg. 3: the checkpoint selection problem (Eq. 6, Chen's model = Feng & Huang
// Eq. 2 on a chain) for every segment bound s among the O(n^2) segment sums, minimal
// checkpoint memory c_s by Eq. 8 with the monotone queue, answer min_s s + c_s; O(n^3).
// We write Eq. 8 over prefixes ending in a checkpoint: F(i) = d_i + min_{l(i) <= j < i} F(j),
// l(i) the least j whose segment (j, i) fits in s; l is monotone, so the window minimum is
// the head of a monotone deque exactly as in Alg. 3.
ChainSelection hongCheckpointSelection(const CandidateChain& chain, const SolverOptions& options = {});

class HongDpSolver : public Solver {
public:
    std::string name() const override { return "hong-dp"; }
    std::string description() const override
    {
        return "Hong et al. Alg. 3: optimal checkpoints under Chen's model (Eq. 6), O(n^3)";
    }
    bool fast() const override { return false; }
    Plan solve(const Graph& graph, const SolverOptions& options) const override;
};

}  // namespace ckpt
