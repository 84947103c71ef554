#pragma once
// A plan's step time, predicted from the one recompute-cost model (theory/RecomputeCost.h) and
// the regular step a profile measured, against the checkpointed step it measured (issue 14 §2).
//
// The plan re-forwards `overhead` forward passes (recompute / forward compute), so its step takes
// the regular step plus overhead × the regular step's forward time. The forward's share of a step
// is measured, not assumed: a backward costs about two forwards on a CNN on CPU (share 0.30–0.35),
// but about one on a transformer, whose softmax, layer-norm and GELU backwards are cheap (0.48 on
// gpt_bench and vit_bench; docs/BENCHMARKS.md). A third, as Chen et al. assume, under-predicts
// a transformer's checkpointed step by 15–20 points.
#include "io/TraceJson.h"

#include <optional>

namespace ckpt {

struct StepTimeComparison {
    double overhead = 0;          // the plan's recompute overhead (forward passes re-run)
    double regularMs = 0;         // measured regular step
    double regularForwardMs = 0;  // its forward pass
    double measuredMs = 0;        // measured checkpointed step
    double predictedMs() const { return regularMs + overhead * regularForwardMs; }
    // Over the regular step: the predicted and the measured slowdown (0.30 = 30 % slower).
    double predictedOverhead() const { return predictedMs() / regularMs - 1; }
    double measuredOverhead() const { return measuredMs / regularMs - 1; }
};

// nullopt when the trace did not time the regular step's forward (older traces, memory snapshots).
std::optional<StepTimeComparison> compareStepTime(const ProfileTrace& trace, double overhead);

}  // namespace ckpt
