#pragma once
// The C sweep of Feng & Huang Alg. 1 / Alg. 6: the best plan over the max terms C.
#include "solvers/Plan.h"
#include "solvers/Solver.h"

#include <cstdint>
#include <functional>
#include <vector>

namespace ckpt {

struct SweepPoint {
    std::vector<VertexIndex> checkpoints;  // empty where only the values were asked for
    std::int64_t bytes = 0;       // checkpoint bytes: S(C), the least possible under C
    std::int64_t maxSegment = 0;  // the largest segment actually left (<= C)
    std::int64_t objective() const { return bytes + maxSegment; }
};
using SolveUnderC = std::function<SweepPoint(std::int64_t c)>;

// Alg. 6 as written: solve under each of `terms` (ascending, distinct). The winner has the
// smallest objective, then the smallest C.
Sweep sweepEveryTerm(const std::vector<std::int64_t>& terms, const SolveUnderC& solveAt, const SolverOptions& options);

// The C a parametric search may try: only the listed max terms when the list is cheap to build,
// else every integer in [0, highest] (a chain of k members has up to k(k+1)/2 terms).
struct CandidateCs {
    std::vector<std::int64_t> terms;  // ascending, distinct; empty: every integer in [0, highest]
    std::int64_t highest = 0;         // the root's cost, where S is the least

    std::int64_t count() const;
    std::int64_t at(std::int64_t index) const;
    std::int64_t firstAtLeast(std::int64_t c) const;  // index of the first candidate >= c (count() if none)
};

// The same optimum without solving every term: a parametric search for min over C of
// g(C) = S(C) + C over the candidates.
//  - Every IS plan P has bytes(P) >= S(max P), so OPT = min g(C), and solving under the
//    minimiser (a max term) gives a plan of objective <= g(C) = OPT.
//  - S is non-increasing. A plan found under c with largest segment m <= c is feasible under m,
//    so S(m) = S(c): the plan covers every C in [m, c] (its objective S(c) + m <= g(C) there),
//    and is entered at C = m, a max term under which it is a least-bytes plan.
//  - Between solved points a < b (S(a.c) > S(b.c)) the C still open are a.c < C < b.m, where
//    g(C) >= S(b) + C. Only C < best - S(b) can beat the best objective found; the interval
//    is bisected over those, and dropped when none is left or when S(a) = S(b).
// `valueAt` gives S and the largest segment under a C (TreeSweepValues, no walk), with the
// checkpoints where they come at no extra cost; `solveAt` the same plan with its checkpoints,
// asked for the entries kept whose checkpoints valueAt did not give (docs/THEORY.md,
// docs/BENCHMARKS.md). Entries: the distinct m found, ascending; where there are more than
// kKeptSweepEntries, that many spread evenly over them, and the winner.
constexpr int kKeptSweepEntries = 128;
Sweep sweepParametric(const CandidateCs& candidates, const SolveUnderC& valueAt, const SolveUnderC& solveAt,
                      const SolverOptions& options);

}  // namespace ckpt
