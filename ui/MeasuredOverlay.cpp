#include "MeasuredOverlay.h"

#include "solvers/Comparison.h"

#include <algorithm>

namespace ckpt::ui {

MeasuredOverlay makeMeasuredOverlay(const Graph& graph, const Plan& plan, const ProfileTrace& trace)
{
    MeasuredOverlay overlay;
    overlay.count = traceMemoryCount(trace);
    for (MemoryModel model : allMemoryModels()) {
        const MemoryProfile predicted = simulateMemory(graph, plan, model, false, overlay.count);
        overlay.errors.push_back({model, compareWithTrace(graph, predicted, trace, trace.checkpointed)});
    }
    overlay.stepTime = compareStepTime(trace, planRecompute(graph, plan).recomputeOverhead());
    // The measured line uses the comparison's phase matching and byte offset, so it shows exactly
    // the numbers the errors are computed from; a phase's peak is shifted by the same offset.
    const TraceComparison& c = overlay.errors.front().comparison;
    const int n = graph.vertexCount() - 1;
    MemoryTimeline& t = overlay.measured;
    t.label = QObject::tr("measured · %1 (%2)").arg(QString::fromStdString(plan.solver), QString::fromStdString(trace.device));
    t.measured = true;
    const std::size_t phases = std::size_t(2 * n + 2);
    t.endBytes.assign(phases, 0);
    t.peakBytes.assign(phases, 0);
    t.backward.assign(phases, false);
    t.liveAtPeak.assign(phases, {});
    std::vector<bool> matched(phases, false);
    for (const PhaseComparison& p : c.phases) {
        const MeasuredPhase& m = trace.checkpointed.phases.at(std::size_t(p.traceIndex));
        const std::int64_t offset = m.endBytes - p.measured;
        t.endBytes.at(std::size_t(p.index)) = p.measured;
        t.peakBytes.at(std::size_t(p.index)) = m.peakBytes - offset;
        matched.at(std::size_t(p.index)) = true;
    }
    // A virtual vertex's phases (no trace lists it) hold what the phase before ended with.
    for (std::size_t i = 1; i < phases; ++i)
        if (!matched[i])
            t.endBytes[i] = t.peakBytes[i] = t.endBytes[i - 1];
    for (std::size_t i = 0; i < phases; ++i)
        t.backward[i] = int(i) > n && int(i) <= 2 * n;
    // P35: the optimizer's step the profile measured after the step, as the pytorch line has it (only
    // the pytorch comparison has one).
    const auto withStep = std::find_if(overlay.errors.begin(), overlay.errors.end(),
                                       [](const ModelError& e) { return e.comparison.measuredOptimizerStep.has_value(); });
    if (withStep != overlay.errors.end()) {
        const std::int64_t offset = trace.baselineBytes - graph.inputBytes();  // as compareWithTrace's
        t.endBytes.push_back(trace.checkpointed.optimizerStep->endBytes - offset);
        t.peakBytes.push_back(*withStep->comparison.measuredOptimizerStep);
        t.backward.push_back(false);
        t.liveAtPeak.emplace_back();
        t.endsWithOptimizerStep = true;
    }
    return overlay;
}

QString describeErrors(const std::vector<ModelError>& errors)
{
    QStringList parts;
    for (const ModelError& e : errors)
    {
        QString part = QObject::tr("%1: mean |error| %2 %, peak %3 %")
                           .arg(QString::fromStdString(memoryModelName(e.model)))
                           .arg(e.comparison.meanAbsErrorPercent, 0, 'f', 1)
                           .arg(e.comparison.peakErrorPercent, 0, 'f', 1);
        if (e.comparison.measuredOptimizerStep)
            part += QObject::tr(", optimizer.step() %1 %").arg(e.comparison.optimizerStepErrorPercent, 0, 'f', 1);
        parts << part;
    }
    return parts.join(QStringLiteral(" · "));
}

QString describeStepTime(const StepTimeComparison& stepTime)
{
    return QObject::tr("step time: predicted %1 % (recompute %2 × the forward's %3 ms), measured %4 %")
        .arg(100 * stepTime.predictedOverhead(), 0, 'f', 0)
        .arg(stepTime.overhead, 0, 'f', 2)
        .arg(stepTime.regularForwardMs, 0, 'f', 1)
        .arg(100 * stepTime.measuredOverhead(), 0, 'f', 0);
}

}  // namespace ckpt::ui
