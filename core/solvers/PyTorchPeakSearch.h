#pragma once
// Checkpoint sets chosen by the `pytorch` memory model's peak (docs/MEMORY-MODEL.md, Hong Alg. 4
// with rules P1–P8) and the recompute cost of theory/RecomputeCost.h. Every candidate is judged
// by core/memory's simulator itself (simulatePlanMemory), so the search and
// `ckptx simulate --model pytorch` cannot disagree; the search only adds lower bounds to prune.
//
// Two questions: the least peak (ties: least recompute), or, with a budget, the least recompute
// whose peak fits (ties: least peak). The recompute of a plan is the compute of its
// non-checkpoint vertices (each re-forwarded once, S2), so fewer non-checkpoints never cost more.
//
// Method: a local search (flip one vertex in or out of the checkpoint set while the plan gets
// better) from the starting plans — for the least peak first by (peak, memory held over the step),
// then by the question's own order — and on the best plan trades (keep one vertex, drop another
// that costs less compute); where branch and bound does not run, kicks (an iterated local search:
// descents again from the best plan with a few vertices flipped and from random sparse plans,
// seeded, so the same graph gets the same plan) — then, on graphs with at most `exactVertices` free vertices
// (for the least peak beside torch.utils.checkpoint functions, 20: there the bounds cannot use a
// partial plan),
// a depth-first branch and bound over the vertices in topological order that visits every
// checkpoint set the bounds cannot rule out — exact when it finishes; its bounds count what the
// undecided vertices must add by the least each suffix of the topological order holds on its own,
// from a Russian doll search over the suffixes before it; for the least peak it runs
// twice, first for the peak alone, then for the least recompute at that peak. Otherwise the result
// reports the plan-independent lower bound (pytorchPeakLowerBound) and so its gap.
#include "graph/Graph.h"
#include "solvers/Solver.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ckpt {

struct PeakSearchSettings {
    std::optional<std::int64_t> budget;  // set: least recompute with a peak of at most this
    // Least-peak form: stop at the first plan whose peak is at most this (does any plan fit?);
    // branch and bound then prunes what cannot get there.
    std::optional<std::int64_t> enough;
    double seconds = 60;                 // for the whole search
    int exactVertices = 1000;            // largest count of free vertices branch and bound is run on
    bool localSearch = true;             // false: branch and bound alone (tests check its pruning so)
    bool kicks = true;                   // false: where branch and bound does not run, the descents alone
};

struct PeakCandidate {
    std::vector<VertexIndex> checkpoints;  // topological order, source and sink included
    std::int64_t peak = 0;                 // pytorch-model peak
    double recomputed = 0;                 // forward compute re-run in the backward
    std::int64_t held = 0;                 // the phases' end bytes summed: memory held over the step
};

struct PeakSearchResult {
    PeakCandidate best;
    bool fits = true;     // budget form: the best plan's peak is within the budget
    bool proven = false;  // no checkpoint set has a smaller peak (budget form: recomputes less and fits)
    // Least-peak form: also no plan of that peak recomputes less (branch and bound's second pass).
    bool settled = false;
    bool exhausted = false;  // branch and bound finished (with `enough`: none within it, unless best is)
    // Least-peak form: no checkpoint set has a smaller peak (equal to best.peak when proven).
    std::int64_t lowerBound = 0;
    // What the question's least recompute is at least (budget form: within the budget; least-peak
    // form, the peak proven: at that peak); best.recomputed where settled. Unset where the recompute
    // is not the question (the least peak unproven, no plan within the budget), beside
    // torch.utils.checkpoint functions (the bound is 0 there, P12) and on graphs of over 8192 vertices.
    std::optional<double> recomputeLowerBound;
    std::string method;   // what ran, in plain words
    long long evaluations = 0;
};

// The pytorch-model peak and recompute of one checkpoint set.
PeakCandidate evaluatePyTorchPeak(const Graph& graph, std::vector<VertexIndex> checkpoints);

// A lower bound on the pytorch-model peak of every checkpoint set: what any plan holds at some
// moment (the tensors a forward phase or a backward phase cannot do without, the weight and
// accumulated gradients, the operator workspace), and the regular step's own peak.
std::int64_t pytorchPeakLowerBound(const Graph& graph);

PeakSearchResult searchPyTorchPeak(const Graph& graph, const std::vector<std::vector<VertexIndex>>& starts,
                                   const PeakSearchSettings& settings, const SolverOptions& options);

}  // namespace ckpt
