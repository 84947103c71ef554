#pragma once
// A plan's predicted memory (the core's simulator) as the chart's display data.
#include "MemoryChart.h"
#include "graph/Graph.h"
#include "memory/MemoryProfile.h"
#include "solvers/Plan.h"

namespace ckpt::ui {

// Phases as MemoryProfile numbers them (0 before training, 1..N forward, N+1..2N backward,
// 2N+1 after); the backward ones are shaded.
MemoryTimeline makeMemoryTimeline(const Graph& graph, const Plan& plan, MemoryModel model);

}  // namespace ckpt::ui
