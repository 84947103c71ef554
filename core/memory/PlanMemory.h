#pragma once
// The two memory models for a checkpoint plan on any graph (rules: docs/MEMORY-MODEL.md).
//
// Both share the forward (phase k computes vertex k; a non-checkpoint tensor is freed as soon
// as all its consumers are computed; checkpoints are kept) and the backward order (phase
// 2N+1-k is the backward of vertex k, which needs vertex k and its inputs). A segment
// (evaluate()'s component of non-checkpoint vertices) is re-forwarded whole, from its entry
// checkpoints, at the first backward phase that needs one of its tensors — the phase of its
// topologically last exit.
//
// chen (Hong Alg. 2, Chen et al.): checkpoints stay until after training; a re-forwarded
//   segment stays until its topologically first vertex has been backpropagated; no gradients.
//   On a chain its peak equals Eq. 2/Eq. 6 exactly; on a DAG it is never below Eq. 2.
// pytorch (Hong Alg. 4): every tensor except the input is freed at the end of its own backward
//   phase; at the backward phase of each checkpoint the previous output-gradient buffer is
//   released, the segments ending there are re-forwarded, and a new buffer as large as the
//   largest tensor whose gradient is formed before the next checkpoint (the checkpoint's
//   inputs, those segments and their entries) is allocated. A tensor with several consumers
//   keeps its own accumulated gradient from its first consumer's backward to its own.
//   Weight gradients (P5) and autograd's extra saved tensors (P6) where the graph has them;
//   in regular training, where the graph says who saves each tensor (Vertex::savedBy), a tensor
//   goes after the last backward that saved it, or in the forward when none did (P7).
//   Operator scratch memory (Vertex::forward/backwardWorkspaceBytes) counts in the peak of the
//   phase that runs the operation, never in its end bytes (P8).
//   On a chain without those its peak equals Eq. 9/12 exactly.
#include "graph/Graph.h"
#include "memory/MemoryProfile.h"
#include "theory/CheckpointFunctions.h"
#include "theory/PlanEvaluation.h"

namespace ckpt {

class CudaCachingAllocator;

// P33: the step to predict is a gradient-accumulation step (metadata `accumulate_gradients` true):
// it starts with the weights' gradients of an earlier step and adds into them.
bool stepAccumulatesGradients(const Graph& graph);

// With `allocator`, phases count its blocks (rule A1, memory/CudaStepMemory.h) and the step's
// leftovers are freed into it at the end.
MemoryProfile simulatePlanMemory(const Graph& graph, const PlanEvaluation& plan, MemoryModel model,
                                 bool recordLive = true, CudaCachingAllocator* allocator = nullptr);

}  // namespace ckpt
