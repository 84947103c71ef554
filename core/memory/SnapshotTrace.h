#pragma once
// A PyTorch memory snapshot's history as a measured trace (docs/FORMAT.md "Profile traces").
//
// Always: the allocated bytes of one device over the run (the timeline). The bytes allocated
// before the history begins are those live at the dump (its segments' active blocks) minus the
// history's allocations plus its frees, so a ring buffer that dropped early events still gives
// absolute numbers.
//
// Phases: a run that wraps every training phase p (the simulators' index, docs/MEMORY-MODEL.md,
// 0..2N+1 for a graph of N + 1 vertices) in record_function("ckptx:phase:<p>") is cut into steps:
// a step starts at the START of phase 0, phase p runs from its START to the START of p + 1, and
// the last phase ends at its END (or the next step, or the end of the history). A step counts
// only when it marks every phase in order. An enclosing record_function("ckptx:step:regular")
// or ("ckptx:step:checkpointed") says which step it is; an unlabelled step is taken as the
// checkpointed one (the plan's step, which MeasuredOverlay and `simulate --trace` compare by
// default). The last complete step of each kind is used, the earlier ones being warm-up.
#include "graph/Graph.h"
#include "io/MemorySnapshot.h"
#include "io/TraceJson.h"

#include <optional>
#include <string>

namespace ckpt {

inline constexpr const char* kPhaseMarkerPrefix = "ckptx:phase:";
inline constexpr const char* kRegularStepMarker = "ckptx:step:regular";
inline constexpr const char* kCheckpointedStepMarker = "ckptx:step:checkpointed";

struct SnapshotImportOptions {
    std::optional<int> device;     // required when several devices have a history
    const Graph* graph = nullptr;  // maps the marked phases onto its vertices
    std::string model;             // names the trace (the snapshot's file name)
};

struct SnapshotImport {
    ProfileTrace trace;
    bool phaseMarkers = false;  // the history has ckptx:phase markers
    int completeSteps = 0;      // steps that marked every phase of the graph
    int oomEvents = 0;
};

// Throws GraphError (without a file) when no device or an unknown one has a history, when
// several have one and no device was chosen, or when the markers do not fit the graph.
SnapshotImport traceFromSnapshot(const MemorySnapshot& snapshot, const SnapshotImportOptions& options);

}  // namespace ckpt
