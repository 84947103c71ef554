#pragma once
#include "solvers/ChainCandidates.h"

namespace ckpt {

// Chen et al.'s greedy memory planning with budget b (Checkmate Table 1, "Chen et al. greedy"):
// walk the candidates in order adding each tensor (and the non-candidates before it) to a
// running sum; when the sum exceeds b, checkpoint that candidate and restart the sum.
// Checkmate searches over b; so do we (budgets log-spaced between the smallest tensor and the
// total) and keep the b whose plan has the smallest Eq. 2 objective, or use the b given.
// Generalized as ap-greedy (§5.1.1) and linearized-greedy (§5.1.2).
class ChenGreedySolver : public ChainHeuristicSolver {
public:
    explicit ChenGreedySolver(CandidateKind kind) : ChainHeuristicSolver(kind, "greedy", "Chen et al. greedy with a searched budget b") {}
    std::vector<OptionSpec> options() const override;
    Plan solve(const Graph& graph, const SolverOptions& options) const override;
};

// The greedy pass for one budget: chosen chain positions (interior only).
std::vector<int> chenGreedyPositions(const CandidateChain& chain, std::int64_t budget);

}  // namespace ckpt
