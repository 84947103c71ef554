#include "theory/Revolve.h"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

namespace ckpt {

namespace {

using Table = std::vector<std::vector<std::int64_t>>;

struct Builder {
    const Table& cost;  // cost[s][n] = F(n, s)
    std::vector<ScheduleAction> actions;

    void forwardTo(int from, int to)
    {
        for (int i = from + 1; i <= to; ++i)
            actions.push_back({ScheduleAction::Kind::Forward, i});
    }

    // d_l is available (input or a slot); reverse steps r, r-1, ..., l+1 with s free slots.
    void reverse(int l, int r, int s)
    {
        const int n = r - l;
        if (n == 1) {
            actions.push_back({ScheduleAction::Kind::Backward, r});
            return;
        }
        if (s == 0) {
            for (int i = r; i > l; --i) {
                forwardTo(l, i - 1);
                actions.push_back({ScheduleAction::Kind::Backward, i});
            }
            return;
        }
        const int m = bestSplit(n, s);
        forwardTo(l, l + m);
        actions.push_back({ScheduleAction::Kind::Store, l + m});
        reverse(l + m, r, s - 1);
        actions.push_back({ScheduleAction::Kind::Release, l + m});
        reverse(l, l + m, s);
    }

    int bestSplit(int n, int s) const
    {
        for (int m = 1; m < n; ++m)
            if (m + cost[s - 1][n - m] + cost[s][m] == cost[s][n])
                return m;
        throw std::logic_error("revolve: no split reaches the table's cost");
    }
};

std::int64_t binomial(int n, int k)
{
    if (k < 0 || k > n)
        return 0;
    long double r = 1;
    for (int i = 1; i <= k; ++i)
        r = r * (n - k + i) / i;
    return static_cast<std::int64_t>(r + 0.5L);
}

}  // namespace

Table revolveCostTable(int n, int slots)
{
    Table cost(slots + 1, std::vector<std::int64_t>(n + 1, 0));
    for (int k = 1; k <= n; ++k)
        cost[0][k] = static_cast<std::int64_t>(k) * (k - 1) / 2;
    for (int s = 1; s <= slots; ++s)
        for (int k = 2; k <= n; ++k) {
            std::int64_t best = std::numeric_limits<std::int64_t>::max();
            for (int m = 1; m < k; ++m)
                best = std::min(best, m + cost[s - 1][k - m] + cost[s][m]);
            cost[s][k] = best;
        }
    return cost;
}

std::int64_t griewankMinimalForwardSteps(int n, int slots)
{
    const int snapshots = slots + 1;
    int r = 0;
    while (binomial(snapshots + r, snapshots) < n)
        ++r;
    return static_cast<std::int64_t>(r) * n - binomial(snapshots + r, snapshots + 1);
}

std::string scheduleProblem(const CheckpointSchedule& schedule)
{
    const int n = schedule.steps;
    std::vector<bool> stored(n + 1, false);
    stored[0] = true;
    int current = 0, lastInput = -1, nextBackward = n, held = 0;
    for (std::size_t k = 0; k < schedule.actions.size(); ++k) {
        const ScheduleAction& a = schedule.actions[k];
        const std::string at = "action " + std::to_string(k) + ": ";
        if (a.step < 1 || a.step > n)
            return at + "step " + std::to_string(a.step) + " is outside 1.." + std::to_string(n);
        switch (a.kind) {
        case ScheduleAction::Kind::Forward:
            if (current != a.step - 1 && !stored[a.step - 1])
                return at + "forward " + std::to_string(a.step) + " without its input";
            if (current == a.step || stored[a.step])
                return at + "forward " + std::to_string(a.step) + " of a tensor still held";
            lastInput = a.step - 1;
            current = a.step;
            break;
        case ScheduleAction::Kind::Store:
            if (current != a.step || stored[a.step])
                return at + "store " + std::to_string(a.step) + " of a tensor not just computed";
            stored[a.step] = true;
            if (++held > schedule.slots)
                return at + "more than " + std::to_string(schedule.slots) + " slots in use";
            break;
        case ScheduleAction::Kind::Release:
            if (!stored[a.step])
                return at + "release " + std::to_string(a.step) + " of an empty slot";
            stored[a.step] = false;
            --held;
            break;
        case ScheduleAction::Kind::Backward:
            if (a.step != nextBackward)
                return at + "backward " + std::to_string(a.step) + " where " + std::to_string(nextBackward) +
                       " is next";
            if (current != a.step - 1 && !stored[a.step - 1] && !(current == a.step && lastInput == a.step - 1))
                return at + "backward " + std::to_string(a.step) + " without its input";
            --nextBackward;
            current = -1;
            break;
        }
    }
    if (nextBackward != 0)
        return "the schedule stops before the backward of step " + std::to_string(nextBackward);
    if (held != 0)
        return "slots are still in use at the end";
    return {};
}

CheckpointSchedule revolveSchedule(int n, int slots)
{
    if (n < 1 || n > kRevolveMaxSteps)
        throw std::invalid_argument("revolve: the chain must have 1 to " + std::to_string(kRevolveMaxSteps) +
                                    " steps, it has " + std::to_string(n));
    slots = std::clamp(slots, 0, n);
    const Table cost = revolveCostTable(n, slots);
    Builder b{cost, {}};
    b.reverse(0, n, slots);
    // The recursion stops the first sweep at d_{n-1}; the loss needs d_n, computed once there.
    auto firstBackward = std::find_if(b.actions.begin(), b.actions.end(), [](const ScheduleAction& a) {
        return a.kind == ScheduleAction::Kind::Backward;
    });
    b.actions.insert(firstBackward, {ScheduleAction::Kind::Forward, n});
    CheckpointSchedule schedule;
    schedule.steps = n;
    schedule.slots = slots;
    schedule.actions = std::move(b.actions);
    schedule.forwardSteps = cost[slots][n] + 1;
    return schedule;
}

}  // namespace ckpt
