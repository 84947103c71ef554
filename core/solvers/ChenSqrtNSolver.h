#pragma once
#include "solvers/ChainCandidates.h"

namespace ckpt {

// Chen et al.'s sqrt(n) heuristic (Checkmate Table 1, "Chen et al. sqrt(n)"): of the k candidates
// between source and sink, checkpoint every step-th, step = ceil(sqrt(k)). Hong et al. Table 2
// confirms the ceiling: VGG-19 (k = 23) gives {5,10,15,20,24}, AlexNet (k = 14) {4,8,12,15};
// the floor would give {4,8,...} and {3,6,...}. On a DAG, the candidates are the articulation
// points (ap-sqrtn, §5.1.1) or the whole topological order (linearized-sqrtn, §5.1.2).
class ChenSqrtNSolver : public ChainHeuristicSolver {
public:
    explicit ChenSqrtNSolver(CandidateKind kind) : ChainHeuristicSolver(kind, "sqrtn", "Chen et al. sqrt(n): every ceil(sqrt(k))-th candidate") {}
    std::vector<OptionSpec> options() const override;
    Plan solve(const Graph& graph, const SolverOptions& options) const override;
};

}  // namespace ckpt
