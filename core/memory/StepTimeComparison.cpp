#include "memory/StepTimeComparison.h"

namespace ckpt {

std::optional<StepTimeComparison> compareStepTime(const ProfileTrace& trace, double overhead)
{
    if (trace.regular.forwardMs <= 0 || trace.regular.stepMs <= 0 || trace.checkpointed.stepMs <= 0)
        return std::nullopt;
    StepTimeComparison c;
    c.overhead = overhead;
    c.regularMs = trace.regular.stepMs;
    c.regularForwardMs = trace.regular.forwardMs;
    c.measuredMs = trace.checkpointed.stepMs;
    return c;
}

}  // namespace ckpt
