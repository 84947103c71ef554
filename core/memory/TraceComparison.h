#pragma once
// Predicted memory (a simulated MemoryProfile) against a measured training step (a
// ckptx-torch profile trace), phase by phase — the accuracy numbers of issue 7 §5, shown by
// `ckptx simulate --trace` and the GUI.
//
// What is compared: the bytes the training step adds on top of the weights, i.e. the measured
// allocated bytes − (baseline_bytes − input bytes). baseline_bytes (weights, buffers, input) is
// live before the step; the simulators count the input (rule F1) but not the weights, so only
// the input is put back. Parameter gradients are part of the step and are compared.
//
// Phases are matched by meaning, not by number: the trace numbers the input as forward phase 1
// (its `vertices` include the input), the simulators as phase 0. Simulated phase k (forward of
// topological vertex k) is the trace's forward phase of the same vertex id, the backward of
// vertex k the trace's backward of that id; 0 and 2N+1 match 0 and the trace's last phase.
// The trace's own phases of the input (its empty forward, the tail of the backward pass) have
// no simulated counterpart and are skipped; so have the simulated phases of virtual vertices (a
// source joining several inputs, a sink joining several outputs), which no trace lists.
#include "graph/Graph.h"
#include "io/TraceJson.h"
#include "memory/MemoryProfile.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace ckpt {

struct PhaseComparison {
    int index = 0;                // simulated phase index
    int traceIndex = 0;           // the trace's phase it is matched with
    std::int64_t predicted = 0;   // simulated end_bytes
    std::int64_t measured = 0;    // trace end_bytes − (baseline − input bytes)
    double errorPercent = 0;      // 100 · (predicted − measured) / measured; 0 when both are 0
};

struct TraceComparison {
    std::vector<PhaseComparison> phases;  // the simulated phases that have a measured counterpart
    double meanAbsErrorPercent = 0;  // mean of |errorPercent| over phases
    std::int64_t predictedPeak = 0;  // simulated peak_bytes
    std::int64_t measuredPeak = 0;   // trace peak_bytes − (baseline − input bytes)
    double peakErrorPercent = 0;     // 100 · (predictedPeak − measuredPeak) / measuredPeak
    // P35: optimizer.step()'s peak, where the graph's export measured the optimizer, the prediction
    // is the pytorch model's and the trace measured the step (offset as the phases are).
    std::optional<std::int64_t> predictedOptimizerStep, measuredOptimizerStep;
    double optimizerStepErrorPercent = 0;
};

// How the trace counts memory: a CUDA profile reads torch.cuda.memory_allocated(), the caching
// allocator's blocks (rule A1); a CPU profile and a memory snapshot's history count requested bytes.
MemoryCount traceMemoryCount(const ProfileTrace& trace);

// Throws std::invalid_argument when the trace is not of this graph (its vertex ids differ
// from the graph's topological order) or its phases are not the 2N+2 the format promises.
TraceComparison compareWithTrace(const Graph& graph, const MemoryProfile& predicted, const ProfileTrace& trace,
                                 const StepMemory& measured);

}  // namespace ckpt
