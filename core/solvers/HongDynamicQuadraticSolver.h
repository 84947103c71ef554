#pragma once
#include "solvers/HongDpSolver.h"

namespace ckpt {

// Hong et al. Alg. 5: the dynamic checkpoint selection problem (minimize the PyTorch-accurate
// peak, Eq. 9/12) by Eq. 13, M(i) = min_{j>i} max(d_i + M(j), d_i + s(i,j) + d_j), M(m) = d_m,
// in O(n^2). The paper's Eq. 13 writes j < n but Alg. 5 loops j up to n, which is needed to
// close the last segment; its answer M(1) is for the 1-based input d_1 of Alg. 6 — with our
// input d_0 it is M(0).
ChainSelection hongDynamicQuadratic(const CandidateChain& chain, const SolverOptions& options = {});

class HongDynamicQuadraticSolver : public Solver {
public:
    std::string name() const override { return "hong-dynamic-quadratic"; }
    std::string description() const override
    {
        return "Hong et al. Alg. 5: optimal checkpoints for the PyTorch peak (Eq. 12), O(n^2)";
    }
    Plan solve(const Graph& graph, const SolverOptions& options) const override;
};

// Shared by the Hong solvers of the PyTorch model: runs `select` on the (articulation-point)
// chain and makes the plan, noting the Eq. 12 optimum.
Plan hongDynamicPlan(const Graph& graph, const Solver& solver, const SolverOptions& options,
                     ChainSelection (*select)(const CandidateChain&, const SolverOptions&));

}  // namespace ckpt
