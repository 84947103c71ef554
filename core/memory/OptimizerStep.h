#pragma once
// What torch.optim adds to a training iteration beside the step (rule P35, docs/MEMORY-MODEL.md):
// the state it keeps from step to step, and `optimizer.step()`, which runs after the backward on
// what the step leaves (the weights' gradients, the input) and allocates scratch tensors it frees
// before it returns. The iteration's peak above the weights and the state is
// max(the step's peak, optimizerStepBytes).
#include "graph/Graph.h"
#include "memory/MemoryProfile.h"

#include <cstdint>
#include <optional>
#include <string>

namespace ckpt {

struct OptimizerMemory {
    std::string name = "sgd";
    std::int64_t stateBytes = 0;
    std::int64_t stepWorkspaceBytes = 0;
    bool measured = false;  // by the exporter (`export --optimizer`), not from optimizerStateCopies
};

// The optimizer an export measured: metadata `optimizer` (its class), `optimizer_state_bytes` and
// `optimizer_step_workspace_bytes` (non-negative integers); nullopt when absent, GraphError naming
// the field when one is missing or not such a value (readGraphFile checks them so).
std::optional<OptimizerMemory> measuredOptimizer(const Graph& graph);

// What a torch.optim optimizer keeps per weight from one step to the next, in copies of the
// weights' bytes (each state tensor is `zeros_like(param)`): "sgd" none, "momentum" (SGD with
// momentum: `momentum_buffer`) one, "adam" and "adamw" two (`exp_avg`, `exp_avg_sq`; their
// per-parameter `step` counter is a scalar, not counted). nullopt for another name.
std::optional<int> optimizerStateCopies(const std::string& optimizer);

// optimizer.step()'s peak above the weights and the state: what the step (its pytorch-model memory)
// leaves at its end, every plan the same, plus the step's scratch.
std::int64_t optimizerStepBytes(const MemoryProfile& step, const OptimizerMemory& optimizer);

}  // namespace ckpt
