#pragma once
#include "solvers/HongDpSolver.h"

namespace ckpt {

// Hong et al. Alg. 6: the same optimum as Alg. 5 (Eq. 16) from two observations: U(i, .) is
// increasing (Lemma 1) and only the M's left in a monotone queue matter (Lemma 3), so the best
// j sits at the crossing of U(i, .) with the queue; and that crossing never moves right as i
// decreases (Lemma 4), so the search starts at the previous j*. Alg. 6's "j + 1" is the next
// queue element, not the next index. The running max of s(i, j) uses a monotone stack
// (prefix maxima from i) searched by bisection — O(log n) per U; the paper leaves this
// bookkeeping open when j moves right again — so the whole is O(n log n) worst case and
// linear in practice (see docs/BENCHMARKS.md).
ChainSelection hongDynamicLinear(const CandidateChain& chain, const SolverOptions& options = {});

class HongDynamicSolver : public Solver {
public:
    std::string name() const override { return "hong-dynamic"; }
    std::string description() const override
    {
        return "Hong et al. Alg. 6: optimal checkpoints for the PyTorch peak (Eq. 12), linear time";
    }
    Plan solve(const Graph& graph, const SolverOptions& options) const override;
};

}  // namespace ckpt
