#pragma once
// The largest batch whose best plan fits a memory size (`ckptx max-batch`).
//
// An imported graph holds its byte sizes for one batch (metadata `batch_size`); the sizes of a
// vertex with `batch_scaled` (the default) — bytes, saved extras, workspace — and its compute are
// proportional to the batch, parameter bytes are not. A batch fits when the pytorch-model peak of
// the solver's plan for the graph at that batch, plus the weights (live before training, counted
// once), is at most the memory. Peaks never fall as the batch grows (every size grows with it),
// so the search doubles the batch until it does not fit, then bisects. On a GPU the peak is counted
// in the CUDA caching allocator's blocks (rule A1), as torch.cuda.memory_allocated() reads it.
#include "graph/Graph.h"
#include "memory/CudaStepMemory.h"
#include "memory/OptimizerStep.h"
#include "solvers/Solver.h"

#include <cstdint>
#include <optional>
#include <string>

namespace ckpt {

// The batch the graph's sizes were recorded for: metadata `batch_size` (a positive integer), or
// nullopt when absent; throws std::invalid_argument naming the field when it is not one.
std::optional<std::int64_t> recordedBatchSize(const Graph& graph);

// The graph at `toBatch`: batch-scaled sizes × toBatch / fromBatch (rounded), the rest as is.
Graph graphAtBatch(const Graph& graph, std::int64_t fromBatch, std::int64_t toBatch);

// The weights, live through the step: metadata `parameter_bytes` (every parameter, frozen ones
// too) where recorded, else, and at least, the sum of the vertices' parameter bytes.
std::int64_t weightBytes(const Graph& graph);

// Sum of the vertices' parameter bytes: the weights trained (requires_grad), which get gradients
// (and optimizer state); a Python export leaves frozen ones out.
std::int64_t trainedWeightBytes(const Graph& graph);

struct MaxBatchResult {
    std::int64_t batch = 0;          // 0: not even batch 1 fits
    std::optional<Plan> plan;        // the solver's plan at that batch
    std::int64_t peakBytes = 0;      // its pytorch-model peak (weights not included), counted as asked
    std::int64_t weightBytes = 0;
    std::int64_t optimizerStateBytes = 0;
    std::int64_t optimizerStepBytes = 0;  // what the step leaves plus optimizer.step()'s scratch (P35)
    std::int64_t keptGradientBytes = 0;  // the weights' gradients an accumulation step starts with (P33)
    std::int64_t firstTooLarge = 0;  // the smallest batch found not to fit
    // Whether no plan at all fits at firstTooLarge. False where the least-peak search (optimal,
    // memory-model=pytorch) found none but did not prove it (its time or size limit; a Python
    // export's checkpoint functions leave it only plan-independent bounds; counted in CUDA blocks,
    // where it proves only what misses in requested bytes): a larger batch may fit. Another
    // solver's answer is about its own plan, so always true there.
    bool firstTooLargeProven = true;
    int solves = 0;
};

// `solver` from the registry; "optimal" minimises the pytorch-model peak (memory-model=pytorch)
// unless `options` say otherwise. The options go to every solve; cancel is honoured. `count`
// CudaBlocks judges each plan by its peak in blocks (the search still minimises requested bytes).
// The memory holds the weights and the optimizer's state (live through every step) beside the
// step's peak, and beside what the step leaves plus the optimizer step's scratch (P35); on a graph
// whose step accumulates gradients (P33) also their gradients.
MaxBatchResult largestBatch(const Graph& graph, std::int64_t graphBatch, std::int64_t memoryBytes,
                            const std::string& solver, const SolverOptions& options,
                            MemoryCount count = MemoryCount::Requested, const OptimizerMemory& optimizer = {});

}  // namespace ckpt
