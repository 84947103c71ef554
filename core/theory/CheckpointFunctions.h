#pragma once
// The torch.utils.checkpoint functions a plan runs as under the Python package's apply_plan
// (app/python/checkpoint_explorer/planned.py, plan_steps; docs/MEMORY-MODEL.md P12): every
// non-checkpoint joins the vertices it feeds, so a segment runs in one function with its exits and
// segments that feed one exit share a function; functions that read each other's exits (a cycle
// between them) merge into one. A function returns only the members something outside it reads
// (or the output): a plan checkpoint that only its own function reads is dropped after its last
// reader and computed again by the re-forward, like any member. A group of vertices autograd does
// not track runs plainly, as one step, its members kept (P36).
#include "graph/Graph.h"
#include "theory/PlanEvaluation.h"

namespace ckpt {

// P9 (docs/MEMORY-MODEL.md): the graph's plans run as torch.utils.checkpoint functions (graph
// metadata `plan_executor`, written by the Python package's exporter).
bool runsCheckpointFunctions(const Graph& graph);
// P13: they run on ckptx-torch's executor, which back-propagates each vertex from a root of its own
// (metadata `plan_executor` "ckptx-torch"); without either, as Hong's Alg. 4 says.
bool runsRootedExecutor(const Graph& graph);
// P9: that torch's re-forward stops at the function's last saved tensor (2.x; graph metadata
// `checkpoint_early_stop`); without it (1.13) a function runs whole again, its exits too.
bool stopsReforwardsEarly(const Graph& graph);

// The plan as apply_plan executes it: `checkpoints` what it keeps (the plan's, less those a function
// does not return; plus the inputs and the model's outputs, which plan_steps keeps: a virtual
// sink's predecessors and every `Vertex::output`), one segment per function — `vertices` its
// members that it does not return (non-checkpoints and those checkpoints, topological order),
// `entries` what it reads from outside, `exits` what it returns — ordered by their first member.
// Eq. 2's fields are left as they were.
PlanEvaluation checkpointFunctions(const Graph& graph, const PlanEvaluation& plan);

// The order apply_plan runs the vertices in (P18): each function, and each checkpoint outside them,
// is a step; of the steps whose inputs exist, the one with the topologically first vertex runs
// first, its vertices in topological order. A plan keeping everything runs in topological order; a
// checkpoint whose inputs are checkpoints runs before a function that reads it, however early that
// function's first member (a ResNet's downsampling convolution before the block's convolutions).
// P29: the steps holding vertices that draw random numbers run in the order of the first such vertex
// of each, as the model draws them (a seq2seq decoder's function that starts at the target's
// embedding waits for the encoder's dropouts), unless their random vertices interleave.
// P36: a group that runs plainly is one step too.
std::vector<VertexIndex> applyPlanOrder(const Graph& graph, const PlanEvaluation& plan);

// Both, from one pass over the plan's steps (the pytorch simulator needs both for every plan).
struct AppliedPlan {
    PlanEvaluation functions;        // checkpointFunctions
    std::vector<VertexIndex> order;  // applyPlanOrder
};
AppliedPlan applyPlan(const Graph& graph, const PlanEvaluation& plan);

}  // namespace ckpt
