#pragma once
// Memory of a binomial (REVOLVE) schedule on a chain, over the same training-phase index as
// PlanMemory.h: forward phase i is the first sweep's computation of d_i; the backward phase of
// step i also holds the recomputations the schedule runs just before it.
//
// Values: the input d_0 and the slots are kept; any other tensor is freed as soon as no next
// action needs it (a Forward of step i needs d_{i-1}; a Backward of step i needs d_{i-1} and
// frees d_i, so the Forward of d_n keeps d_{n-1} for the Backward that follows).
// chen counts values only. pytorch also counts gradients per tensor: the backward of step i
// forms the gradient of d_{i-1} and frees that of d_i (the loss gradient of d_n is formed at
// the first backward). Alg. 4's segment buffer has no meaning for nested schedules.
#include "graph/Graph.h"
#include "memory/MemoryProfile.h"
#include "theory/Revolve.h"

namespace ckpt {

// graph must be a chain of schedule.steps + 1 vertices.
MemoryProfile simulateScheduleMemory(const Graph& graph, const CheckpointSchedule& schedule, MemoryModel model,
                                     bool recordLive = true);

}  // namespace ckpt
