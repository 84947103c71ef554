#pragma once
// Binomial checkpointing (Griewank & Walther, REVOLVE; Checkmate Table 1 "Griewank log n")
// for a chain of n steps d_0 -> d_1 -> ... -> d_n: the reversal with `slots` checkpoint slots
// besides the input d_0 that needs the fewest forward steps, as an explicit schedule.
#include <cstdint>
#include <string>
#include <vector>

namespace ckpt {

struct ScheduleAction {
    enum class Kind {
        Forward,   // compute d_step from d_{step-1}
        Store,     // keep d_step in a slot
        Release,   // empty the slot holding d_step
        Backward,  // backward of step `step` (needs d_{step-1})
    };
    Kind kind = Kind::Forward;
    int step = 0;

    bool operator==(const ScheduleAction&) const = default;
};

struct CheckpointSchedule {
    int steps = 0;  // n
    int slots = 0;
    std::vector<ScheduleAction> actions;  // the first sweep computes d_1..d_n once, in order
    std::int64_t forwardSteps = 0;        // Forward actions in all
    std::int64_t recomputations() const { return forwardSteps - steps; }
};

// Minimal forward steps (beyond d_n's own) to reverse n steps with `slots` free slots, by the
// recursion F(n,s) = min_m m + F(n-m, s-1) + F(m, s), F(1,s) = 0, F(n,0) = n(n-1)/2; O(n^2 s).
std::vector<std::vector<std::int64_t>> revolveCostTable(int n, int slots);
// Griewank & Walther's closed form for the same count with S = slots + 1 snapshots (the input
// is one): r·n − β(S+1, r−1), r the least with β(S, r) >= n, β(s, r) = C(s+r, s).
std::int64_t griewankMinimalForwardSteps(int n, int slots);
// Why the schedule cannot run, or "" when it can: each Forward needs its input (the previous
// tensor, a stored one, or the input d_0) and computes a tensor not held; at most `slots`
// tensors are stored; steps are reversed exactly once from n down to 1, each needing d_{step-1}
// (a Backward may use the input of the Forward just before it); every slot is released.
std::string scheduleProblem(const CheckpointSchedule& schedule);
// The optimal schedule; n >= 1. Throws std::invalid_argument when n exceeds kRevolveMaxSteps.
CheckpointSchedule revolveSchedule(int n, int slots);
inline constexpr int kRevolveMaxSteps = 2000;

}  // namespace ckpt
