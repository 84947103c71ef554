#pragma once
// A ckptx-torch profile trace as a measured line on the memory chart, next to the predictions of
// the plan it profiled, with each memory model's error (core TraceComparison, issue 7 §4–5) and
// the step time the recompute cost predicts (core StepTimeComparison, issue 14 §2).
#include "MemoryChart.h"
#include "graph/Graph.h"
#include "io/TraceJson.h"
#include "memory/MemoryProfile.h"
#include "memory/StepTimeComparison.h"
#include "memory/TraceComparison.h"
#include "solvers/Plan.h"

#include <optional>
#include <vector>

namespace ckpt::ui {

struct ModelError {
    MemoryModel model;
    TraceComparison comparison;
};

struct MeasuredOverlay {
    MemoryTimeline measured;          // on the simulators' phase index, bytes as TraceComparison counts them
    std::vector<ModelError> errors;   // one per memory model
    std::optional<StepTimeComparison> stepTime;  // when the trace timed the regular step's forward
    MemoryCount count = MemoryCount::Requested;  // how the trace counts (a CUDA profile: the allocator's blocks)
};

// Throws std::invalid_argument when the trace is not of this graph.
MeasuredOverlay makeMeasuredOverlay(const Graph& graph, const Plan& plan, const ProfileTrace& trace);

// "chen: mean |error| 3.1 %, peak +2.0 % · pytorch: …"
QString describeErrors(const std::vector<ModelError>& errors);
// "step time: predicted +42 % (recompute 0.87 × the forward's 48 ms), measured +47 %"
QString describeStepTime(const StepTimeComparison& stepTime);

}  // namespace ckpt::ui
