#include "MemoryTimelineBuilder.h"

#include "memory/OptimizerStep.h"
#include "memory/PlanMemory.h"
#include "solvers/Comparison.h"
#include "util/Units.h"

#include <QObject>

namespace ckpt::ui {

QString memoryModelCounts(MemoryModel model)
{
    switch (model) {
    case MemoryModel::Chen:
        return QObject::tr("chen counts activations only (checkpoints, re-forwarded segments): no gradients, no weights");
    case MemoryModel::PyTorch:
        return QObject::tr("pytorch counts activations, activation and weight gradients, autograd's saved extras "
                           "and operator workspace");
    }
    return {};
}

namespace {

// The dtype of a mixed-precision export (metadata `autocast`, which the Python exporter writes), or empty.
QString autocastOf(const Graph& graph)
{
    for (const char* dtype : {"bfloat16", "float16"})
        if (graph.metadataIs("autocast", std::string("\"") + dtype + "\""))
            return QString::fromLatin1(dtype);
    return {};
}

}  // namespace

MemoryTimeline makeMemoryTimeline(const Graph& graph, const Plan& plan, MemoryModel model, MemoryCount count)
{
    // The names live at each peak are a tooltip's: on big graphs they would cost O(phases × live).
    const MemoryProfile profile = simulateMemory(graph, plan, model, graph.vertexCount() <= kLiveListsUpTo, count);
    const int n = graph.vertexCount() - 1;
    MemoryTimeline t;
    t.label = QStringLiteral("%1 · %2").arg(QString::fromStdString(plan.solver), QString::fromStdString(memoryModelName(model)));
    t.counts = memoryModelCounts(model);
    if (count == MemoryCount::CudaBlocks && model == MemoryModel::PyTorch) {
        t.label += QObject::tr(" · CUDA blocks");
        t.counts += QObject::tr(", each in the block PyTorch's CUDA caching allocator hands out");
    }
    // The sizes are those of the step the graph was exported for: say when that was mixed precision.
    if (const QString dtype = autocastOf(graph); !dtype.isEmpty()) {
        t.label += QObject::tr(" · %1 autocast").arg(dtype);
        t.counts += QObject::tr(", in the dtypes a %1 autocast forward gives the tensors").arg(dtype);
    }
    // P33: a gradient-accumulation step's weight gradients are there before it and not counted.
    if (model == MemoryModel::PyTorch && stepAccumulatesGradients(graph)) {
        t.label += QObject::tr(" · accumulating gradients");
        t.counts += QObject::tr(", of a gradient-accumulation step (the weights' gradients it starts with are not "
                                "counted, only each backward's before it is added in)");
    }
    for (const PhaseMemory& phase : profile.phases) {
        t.endBytes.push_back(phase.endBytes);
        t.peakBytes.push_back(phase.peakBytes);
        t.backward.push_back(phase.index > n && phase.index <= 2 * n);
        QStringList live;
        for (const std::string& name : phase.live)
            live << QString::fromStdString(name);
        t.liveAtPeak.push_back(live);
    }
    // P35: where the export measured the optimizer, its step follows the backward on what it leaves.
    if (const auto optimizer = measuredOptimizer(graph); optimizer && model == MemoryModel::PyTorch) {
        t.label += QObject::tr(" · with optimizer.step()");
        t.counts += QObject::tr(", then %1's optimizer.step() (its measured scratch; the weights and its state are "
                                "not counted)")
                        .arg(QString::fromStdString(optimizer->name));
        const std::int64_t left = profile.phases.empty() ? 0 : profile.phases.back().endBytes;
        t.endBytes.push_back(left);
        t.peakBytes.push_back(optimizerStepBytes(profile, *optimizer));
        t.backward.push_back(false);
        t.liveAtPeak.push_back({QObject::tr("what the step left (%1)").arg(QString::fromStdString(formatBytes(left))),
                                QObject::tr("optimizer.step() scratch (%1)")
                                    .arg(QString::fromStdString(formatBytes(optimizer->stepWorkspaceBytes)))});
        t.endsWithOptimizerStep = true;
    }
    return t;
}

}  // namespace ckpt::ui
