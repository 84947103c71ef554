#pragma once
// One row per solver for `ckptx compare` and the GUI: what the plan keeps, what it costs in
// memory under each model, and what it recomputes. Failures are rows with a reason.
#include "memory/MemoryProfile.h"
#include "solvers/Plan.h"
#include "solvers/Solver.h"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

namespace ckpt {

// What a plan computes again during the backward, as it executes (theory/RecomputeCost.h; a
// schedule: its forward actions after the first sweep). No memory simulation: cheap at any size.
struct PlanRecompute {
    std::int64_t recomputedBytes = 0;  // bytes of all tensors computed again during the backward
    double recomputedCompute = 0;      // their forward cost
    double forwardCompute = 0;         // the whole forward pass's
    // recomputedCompute / forwardCompute: 1 = the plan re-forwards the network once (S2).
    double recomputeOverhead() const { return forwardCompute > 0 ? recomputedCompute / forwardCompute : 0; }
};

struct PlanCosts : PlanRecompute {
    int checkpointCount = 0;  // source and sink included
    std::int64_t objective = 0;  // Feng & Huang Eq. 2
    bool isISPlan = true;
    std::int64_t peakChen = 0;
    std::int64_t peakPyTorch = 0;
    // A graph exported on CUDA: the pytorch-model peak in the caching allocator's blocks (rule A1),
    // what torch.cuda.memory_allocated() will read; nullopt elsewhere.
    std::optional<std::int64_t> peakCudaBlocks;
    // A graph whose export measured the optimizer (P35): optimizer.step()'s peak, on what the step
    // leaves, the same for every plan; nullopt elsewhere.
    std::optional<std::int64_t> optimizerStepBytes;
    // The training iteration's peak above the weights and the optimizer's state (P35): the step's, or
    // the optimizer step's where that is larger; a plan cannot lower the latter.
    std::int64_t iterationPeak() const { return std::max(peakPyTorch, optimizerStepBytes.value_or(0)); }
};

// A plan's memory under a model: the schedule's when it has one, else the checkpoint plan's. `count`
// CudaBlocks applies to the pytorch model's checkpoint plans; the others count requested bytes.
MemoryProfile simulateMemory(const Graph& graph, const Plan& plan, MemoryModel model, bool recordLive = true,
                             MemoryCount count = MemoryCount::Requested);
PlanRecompute planRecompute(const Graph& graph, const Plan& plan);
PlanCosts planCosts(const Graph& graph, const Plan& plan);

struct ComparisonRow {
    std::string solver;
    std::optional<std::string> error;  // set when the solver refused or failed
    PlanCosts costs;
    double solveMs = 0;
    std::vector<std::string> notes;
};

// Whether a plan with costs `a` is recommended over one with `b`: a lower pytorch-model peak of the
// iteration (with the optimizer's step where measured, P35), or the same and, on a CUDA export, fewer
// bytes in the allocator's blocks, then less recompute.
bool recommendedOver(const PlanCosts& a, const PlanCosts& b);
// The row to recommend (recommendedOver; ties: the first row); -1 when every row failed.
int recommendedRow(const std::vector<ComparisonRow>& rows);

// `solvers` empty = every fast() solver, in registry order. Unknown names become failed rows.
std::vector<ComparisonRow> compareSolvers(const Graph& graph, const std::vector<std::string>& solvers,
                                          const SolverOptions& options = {});

}  // namespace ckpt
