#pragma once
// Rule A1 (docs/MEMORY-MODEL.md): a training step on CUDA as torch.cuda.memory_allocated() counts
// it, the `pytorch` model's allocations handed to the caching allocator (CudaCachingAllocator).
// What a block holds beyond the bytes requested depends on what the cache holds, so the step is
// simulated where a training loop (and `profile`) runs it: after the weights were allocated (one
// block per vertex's parameters) and after warm-up steps, regular and planned in turn as `profile`
// alternates them, until they no longer add segments; then a regular step and the plan's.
#include "graph/Graph.h"
#include "memory/MemoryProfile.h"
#include "theory/PlanEvaluation.h"

namespace ckpt {

// How the device the graph was exported on counts memory: CudaBlocks for metadata `device` "cuda…"
// (the Python exporter records it), else Requested.
MemoryCount exportDeviceMemoryCount(const Graph& graph);

MemoryProfile simulateCudaStepMemory(const Graph& graph, const PlanEvaluation& plan, bool recordLive = true);

}  // namespace ckpt
