#include "memory/ScheduleMemory.h"

#include "memory/MemoryTrace.h"

#include <stdexcept>

namespace ckpt {

MemoryProfile simulateScheduleMemory(const Graph& graph, const CheckpointSchedule& schedule, MemoryModel model,
                                     bool recordLive)
{
    const auto& d = graph.topologicalOrder();
    const int n = schedule.steps;
    if (!graph.isChain() || graph.vertexCount() != n + 1)
        throw std::invalid_argument("the schedule is for a chain of " + std::to_string(n + 1) + " tensors");
    using Kind = ScheduleAction::Kind;

    // Phase of each action: the first sweep's Forward i is phase i; everything after the first
    // Backward belongs to the phase of the next Backward.
    const auto& actions = schedule.actions;
    std::vector<int> phase(actions.size(), 0);
    int next = 2 * n + 1;
    bool sweepOver = false;
    for (std::size_t k = actions.size(); k-- > 0;)
        if (actions[k].kind == Kind::Backward)
            next = phase[k] = 2 * n + 1 - actions[k].step;
        else
            phase[k] = next;
    for (std::size_t k = 0, last = 0; k < actions.size(); ++k) {
        sweepOver = sweepOver || actions[k].kind == Kind::Backward;
        if (sweepOver)
            break;
        if (actions[k].kind == Kind::Forward)
            last = actions[k].step;
        phase[k] = static_cast<int>(last);
    }

    MemoryTrace trace(graph, recordLive);
    std::vector<bool> stored(n + 1, false);
    stored[0] = true;  // the input is never freed
    auto freeIfTransient = [&](int i) {
        if (!stored[i])
            trace.freeValue(d[i]);
    };
    // scheduleProblem lets a schedule leave the tensor it just computed unread (a forward that
    // starts again from a stored one): that tensor is dropped, so computing it again is no second
    // allocation.
    int current = 0;
    auto dropUnlessRead = [&](int read, int alsoRead) {
        if (current > 0 && current != read && current != alsoRead)
            freeIfTransient(current);
    };
    trace.beginPhase(0);
    trace.allocValue(d[0]);
    for (std::size_t k = 0; k < actions.size(); ++k) {
        const ScheduleAction& a = actions[k];
        if (k == 0 || phase[k] != phase[k - 1])
            trace.beginPhase(phase[k]);
        switch (a.kind) {
        case Kind::Forward: {
            dropUnlessRead(a.step - 1, a.step - 1);
            trace.allocValue(d[a.step]);
            if (model == MemoryModel::PyTorch)  // P8
                trace.touchWorkspace(d[a.step], graph.vertex(d[a.step]).autograd->forwardWorkspaceBytes);
            // The last layer's input is still needed by its backward, which follows at once.
            const bool inputNeeded = k + 1 < actions.size() && actions[k + 1].kind == Kind::Backward &&
                                     actions[k + 1].step == a.step;
            if (!inputNeeded)
                freeIfTransient(a.step - 1);
            current = a.step;
            break;
        }
        case Kind::Store:
            stored[a.step] = true;
            break;
        case Kind::Release:
            stored[a.step] = false;
            if (current != a.step)
                trace.freeValue(d[a.step]);
            break;
        case Kind::Backward:
            dropUnlessRead(a.step, a.step - 1);
            if (model == MemoryModel::PyTorch) {
                if (a.step == n)
                    trace.allocGradient(d[n]);
                if (a.step > 1)
                    trace.allocGradient(d[a.step - 1]);
                trace.touchWorkspace(d[a.step], graph.vertex(d[a.step]).autograd->backwardWorkspaceBytes);  // P8
                trace.freeGradient(d[a.step]);
            }
            if (current == a.step)
                freeIfTransient(a.step);
            freeIfTransient(a.step - 1);
            current = -1;
            break;
        }
    }
    trace.beginPhase(2 * n + 1);
    for (int i = 1; i <= n; ++i)
        trace.freeValue(d[i]);
    return trace.finish(model);
}

}  // namespace ckpt
