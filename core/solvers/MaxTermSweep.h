#pragma once
// The C sweep of Feng & Huang Alg. 1 / Alg. 6: the best plan over the max terms C.
#include "solvers/Plan.h"
#include "solvers/Solver.h"

#include <cstdint>
#include <functional>
#include <vector>

namespace ckpt {

struct SweepPoint {
    std::vector<VertexIndex> checkpoints;
    std::int64_t bytes = 0;       // checkpoint bytes: S(C), the least possible under C
    std::int64_t maxSegment = 0;  // the largest segment actually left (<= C)
    std::int64_t objective() const { return bytes + maxSegment; }
};
using SolveUnderC = std::function<SweepPoint(std::int64_t c)>;

// Alg. 6 as written: solve under each of `terms` (ascending, distinct). The winner has the
// smallest objective, then the smallest C.
Sweep sweepEveryTerm(const std::vector<std::int64_t>& terms, const SolveUnderC& solveAt, const SolverOptions& options);

// The same optimum without solving every term: a parametric search for min over C of
// g(C) = S(C) + C on [0, highest] (highest: the root's cost, where S is the least).
//  - Every IS plan P has bytes(P) >= S(max P), so OPT = min g(C), and solving under the
//    minimiser gives a plan of objective <= g(C) = OPT.
//  - S is non-increasing. A plan found under c with largest segment m <= c is feasible under m,
//    so S(m) = S(c): the plan covers every C in [m, c] (its objective S(c) + m <= g(C) there),
//    and is entered at C = m, a max term under which it is a least-bytes plan.
//  - Between solved points a < b (S(a.c) > S(b.c)) the C still open are a.c < C < b.m, where
//    g(C) > S(b) + a.c. Such an interval is dropped once that bound reaches the best objective
//    found, and otherwise bisected; intervals with S(a) = S(b) hold nothing better than a.
// Each solve is one Alg. 5 walk; on real graphs a few dozen replace the thousands of max terms
// (docs/THEORY.md, docs/BENCHMARKS.md). Entries: the distinct m found, ascending.
Sweep sweepParametric(std::int64_t highest, const SolveUnderC& solveAt, const SolverOptions& options);

}  // namespace ckpt
