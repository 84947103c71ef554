#pragma once
// A plan's predicted memory (the core's simulator) as the chart's display data.
#include "MemoryChart.h"
#include "graph/Graph.h"
#include "memory/MemoryProfile.h"
#include "solvers/Plan.h"

namespace ckpt::ui {

// Phases as MemoryProfile numbers them (0 before training, 1..N forward, N+1..2N backward,
// 2N+1 after); the backward ones are shaded.
// What the model's bytes include, in one line (the chart says it, so that a measured overlay is
// compared knowingly: chen leaves out every gradient).
QString memoryModelCounts(MemoryModel model);

// `count`: CudaBlocks beside a CUDA profile's measured line (rule A1), which counts whole blocks.
MemoryTimeline makeMemoryTimeline(const Graph& graph, const Plan& plan, MemoryModel model,
                                  MemoryCount count = MemoryCount::Requested);

}  // namespace ckpt::ui
