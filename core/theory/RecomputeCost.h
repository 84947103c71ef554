#pragma once
// The one recompute-cost model of checkpoint plans (docs/MEMORY-MODEL.md, rule S2): each
// non-checkpoint segment is re-forwarded once during the backward, so a plan recomputes every
// non-checkpoint vertex exactly once. Cost is the vertex `compute` (FLOPs, recorded by both
// importers), and the overhead is that cost over the forward's: 0 for regular training (every
// vertex a checkpoint), 1 for a plan that re-forwards the whole network once.
// A plan that runs as apply_plan's torch.utils.checkpoint functions (a Python export) recomputes
// what its functions do not return, plan checkpoints included (theory/CheckpointFunctions.h).
// (Checkmate's stage schedules are priced by their own replay: theory/StageSchedule.h.)
#include "graph/Graph.h"
#include "theory/PlanEvaluation.h"

#include <cstdint>

namespace ckpt {

// One vertex's forward cost: its `compute`, 1 where the graph does not say; 0 for the inputs
// (nothing computes them) and for virtual vertices (they compute nothing).
double forwardCompute(const Graph& graph, VertexIndex v);
// The whole forward pass: the sum of forwardCompute over every vertex.
double forwardPassCompute(const Graph& graph);

struct RecomputeCost {
    double recomputed = 0;  // forward cost of every vertex the backward computes again
    std::int64_t recomputedBytes = 0;  // the bytes of those vertices' tensors
    double forward = 0;     // forward cost of the whole pass
    // recomputed / forward: the fraction of a forward pass the plan adds (0 when nothing is recomputed).
    double overhead() const { return forward > 0 ? recomputed / forward : 0; }
};

RecomputeCost recomputeCost(const Graph& graph, const PlanEvaluation& plan);

}  // namespace ckpt
