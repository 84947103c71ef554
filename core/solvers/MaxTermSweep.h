#pragma once
// The C sweep of Feng & Huang Alg. 1 / Alg. 6: solve under every max term C, keep the best.
#include "solvers/Plan.h"
#include "solvers/Solver.h"

#include <cstdint>
#include <functional>
#include <vector>

namespace ckpt {

struct SweepPoint {
    std::vector<VertexIndex> checkpoints;
    std::int64_t bytes = 0;      // checkpoint bytes: the least possible under C
    std::int64_t objective = 0;  // bytes + the largest segment actually left (<= bytes + C)
};

enum class SweepMode {
    // Solve every C.
    Every,
    // Solve C only where the least checkpoint bytes S(C) may change. S is non-increasing in
    // C, so when S(c_a) == S(c_b) every C between them has the same S and c_a's plan is a
    // least-bytes plan under each of them; those entries reuse it (marked `reused`). The
    // winner's objective is the optimum all the same: an optimal plan with max C* has
    // S(C*) + C* = OPT; if C* was reused from c_a <= C*, c_a's plan has S(C*) bytes and a
    // max <= c_a, so its objective is <= OPT too.
    Steps,
};

// `terms` ascending and distinct. The winner has the smallest objective, then the smallest C.
Sweep sweepMaxTerms(const std::vector<std::int64_t>& terms, const std::function<SweepPoint(std::int64_t)>& solveAt,
                    SweepMode mode, const SolverOptions& options);

}  // namespace ckpt
