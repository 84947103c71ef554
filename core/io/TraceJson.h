#pragma once
// The measured memory of one training step, regular and checkpointed, as ckptx-torch profile
// writes it (TRACE.json, docs/FORMAT.md). Phases use the training-phase index of Hong et al.
// (003 §5): 0 before the step, 1..N forward, N+1..2N backward, 2N+1 after; N = vertices.
// A trace imported from a PyTorch memory snapshot (ckptx import-snapshot) carries the allocated
// bytes over the whole run as a timeline, and phases only when the run marked them.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ckpt {

inline constexpr const char* kTraceSchema = "checkpoint-explorer/trace";
inline constexpr int kTraceSchemaVersion = 1;

struct MeasuredPhase {
    int index = 0;
    std::int64_t endBytes = 0;   // allocated at the end of the phase
    std::int64_t peakBytes = 0;  // the most allocated at any moment within it
};

struct StepMemory {
    std::int64_t peakBytes = 0;
    double stepMs = 0;     // mean over the iterations after the first (all of them when just one)
    double forwardMs = 0;  // the forward pass's part of stepMs, timed alike; 0 where not measured
    std::vector<MeasuredPhase> phases;
    // P35: optimizer.step() after the last phase, where the profile ran the user's optimizer (its
    // index is the last phase's + 1); absent elsewhere.
    std::optional<MeasuredPhase> optimizerStep;
};

struct TimelineSample {
    std::int64_t x = 0;               // µs since the epoch, or the event's ordinal (TimelineAxis)
    std::int64_t allocatedBytes = 0;
};

enum class TimelineAxis { TimeUs, Event };

inline constexpr const char* kProfileSource = "profile";
inline constexpr const char* kSnapshotSource = "memory-snapshot";

struct ProfileTrace {
    std::string model;
    std::string device;  // "cpu" | "cuda"
    std::vector<std::int64_t> inputShape;
    int iterations = 1;
    std::vector<std::string> vertices;     // topological order: phase i (1..N) is vertices[i-1]
    std::vector<std::string> checkpoints;  // of the checkpointed step, topological order
    bool gradientsMatch = false;
    std::string mismatch;  // the first tensor whose gradients differ, empty when they match
    double rtol = 0, atol = 0;
    std::int64_t baselineBytes = 0;  // live before the step: weights, buffers, input
    StepMemory regular, checkpointed;  // empty phases: not measured (a snapshot without markers)

    std::string source = kProfileSource;  // kSnapshotSource: gradients were not compared
    int snapshotDevice = -1;              // the CUDA device of a snapshot's history
    TimelineAxis timelineAxis = TimelineAxis::TimeUs;
    std::vector<TimelineSample> timeline;  // snapshots only
    bool fromSnapshot() const { return source == kSnapshotSource; }
};

std::string toTraceJson(const ProfileTrace& trace);
// Throws GraphError naming the JSON pointer of a problem and `file`.
ProfileTrace parseTraceJson(const std::string& text, const std::string& file = "<input>");

}  // namespace ckpt
