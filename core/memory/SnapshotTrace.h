#pragma once
// A PyTorch memory snapshot's history as a measured trace (docs/FORMAT.md "Profile traces").
//
// Always: the allocated bytes of one device over the run (the timeline). The bytes allocated
// before the history begins are those live at the dump (its segments' active blocks) minus the
// history's allocations plus its frees, so a ring buffer that dropped early events still gives
// absolute numbers.
//
// Phases: a run that wraps the start of every training phase p in
// record_function("ckptx:phase:<p>"), on the trace's phase index (the one `profile` lists,
// docs/FORMAT.md: 0 before the step, p + 1 the forward of vertex p, 2V − p its backward, 2V + 1
// after the backward, for V vertices), is cut into steps: a step starts at the START of phase 0,
// a phase runs from its START to the next marked phase's START, and the last phase ends with the
// step's range (unlabelled: at its own END), or at the next step, or at the end of the history.
// Markers must increase; an unmarked phase (the input's, or a vertex whose output needs no
// gradient) holds the previous phase's end. A step counts when it reaches phase 2V + 1. An
// enclosing record_function("ckptx:step:regular") or ("ckptx:step:checkpointed"), or one opened
// during phase 0 (as `profile` does), says which step it is; an unlabelled step is taken as the
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
    int completeSteps = 0;      // steps that reached the graph's last phase
    int oomEvents = 0;
};

// Throws GraphError (without a file) when no device or an unknown one has a history, when
// several have one and no device was chosen, or when the markers do not fit the graph.
SnapshotImport traceFromSnapshot(const MemorySnapshot& snapshot, const SnapshotImportOptions& options);

}  // namespace ckpt
