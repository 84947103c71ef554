#include "MemoryTimelineBuilder.h"

#include "solvers/Comparison.h"

namespace ckpt::ui {

MemoryTimeline makeMemoryTimeline(const Graph& graph, const Plan& plan, MemoryModel model)
{
    const MemoryProfile profile = simulateMemory(graph, plan, model, true);
    const int n = graph.vertexCount() - 1;
    MemoryTimeline t;
    t.label = QStringLiteral("%1 · %2").arg(QString::fromStdString(plan.solver), QString::fromStdString(memoryModelName(model)));
    for (const PhaseMemory& phase : profile.phases) {
        t.endBytes.push_back(phase.endBytes);
        t.peakBytes.push_back(phase.peakBytes);
        t.backward.push_back(phase.index > n && phase.index <= 2 * n);
        QStringList live;
        for (const std::string& name : phase.live)
            live << QString::fromStdString(name);
        t.liveAtPeak.push_back(live);
    }
    return t;
}

}  // namespace ckpt::ui
