#pragma once
// The exact minimum of Feng & Huang's objective (000, Eq. 2: Σ checkpoint bytes + max segment
// cost) over every checkpoint set, general model (segments = connected components of the
// non-checkpoint vertices, edge direction ignored; see theory/PlanEvaluation.h), by a dynamic
// programme over a vertex order with a small frontier. `optimal` (OptimalSolver) runs it when the
// frontier is narrow (chains, residual and inception blocks) and its CBC row generation otherwise.
//
// Vertices are added one at a time. The frontier is the set of added vertices that still have a
// neighbour to add. A state is keyed by, for each frontier vertex, "checkpoint" or the open
// component (of added non-checkpoint vertices) it belongs to; its label is
//     (checkpoint bytes so far, max cost of the closed components, cost of each open component).
// Two partial plans with the same key have exactly the same completions, and every completion adds
// the same bytes to each of them and merges the same open components, so the final objective is
// monotone in every label coordinate: a label that is >= another of its key in every coordinate
// can be dropped (dominance). A label whose checkpoint bytes + forced bytes still to come + max(closed
// max, open costs) is >= the incumbent cannot lead to a strictly better plan (components only grow):
// dropped too (pruning). What survives the last vertex is a plan strictly below the incumbent, and
// the best of them is optimal; when nothing survives, the incumbent is.
#include "graph/Graph.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace ckpt {

// A vertex order and its frontier width (the most vertices ever on the frontier).
struct FrontierOrder {
    std::vector<VertexIndex> order;
    int width = 0;
};

// The narrower of the topological order and a greedy order that always adds the vertex leaving
// the smallest frontier (ties: topological position).
FrontierOrder frontierOrder(const Graph& graph);

struct FrontierDpLimits {
    std::int64_t incumbent = 0;  // only plans strictly below it are searched for
    // Give up (status TooLarge) when one step keeps more labels than this, or all steps together
    // 16 times as many (the trace of every kept label stays in memory), or the frontier is wider
    // than 255.
    std::size_t maxLabels = 4'000'000;
    // > 0: a heuristic pass that keeps, per key and step, only the `beam` labels of smallest bound
    // (then `better` is just a good plan and `lowerBound` is meaningless). 0: exact.
    std::size_t beam = 0;
    std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
    std::function<void()> checkCancelled;         // may throw; called every step and often within
    std::function<void(double bound)> progress;  // a proven lower bound after each step; may be empty
};

struct FrontierDpResult {
    enum class Status { Solved, TooLarge, TimedOut };
    Status status = Status::Solved;
    // Solved: the optimal checkpoint set when it beats the incumbent, else empty (the incumbent is
    // optimal).
    std::optional<std::vector<VertexIndex>> better;
    // Proven lower bound on the optimum: the optimum when Solved; otherwise min(incumbent, the
    // smallest label bound of the last complete step).
    double lowerBound = 0;
    int width = 0;
    std::size_t peakLabels = 0;  // most labels kept after one step
    std::size_t labels = 0;      // labels kept over all steps
};

FrontierDpResult frontierDp(const Graph& graph, const FrontierOrder& order, const FrontierDpLimits& limits);

}  // namespace ckpt
