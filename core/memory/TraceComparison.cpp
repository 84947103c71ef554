#include "memory/TraceComparison.h"

#include "memory/OptimizerStep.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace ckpt {

namespace {

double percentError(std::int64_t predicted, std::int64_t measured)
{
    if (measured == 0)
        return predicted == 0 ? 0.0 : 100.0;  // cannot be relative; count it as fully wrong
    return 100.0 * static_cast<double>(predicted - measured) / static_cast<double>(std::llabs(measured));
}

// The one mapping of simulated phases to a trace's: the forward of the trace's vertex k is trace
// phase k+1, its backward trace phase 2·traceN−k; before and after training are the first and
// last. `k` is the trace's index of phase p's vertex (topological position p, or 2N+1−p in the
// backward), -1 where the trace does not list it: that phase has no counterpart (-1).
int tracePhaseOfListed(int p, int n, int traceN, int k)
{
    if (p == 0)
        return 0;
    if (p == 2 * n + 1)
        return 2 * traceN + 1;
    if (k < 0)
        return -1;
    return p <= n ? k + 1 : 2 * traceN - k;
}

int positionOfPhase(int p, int n)
{
    return p <= n ? p : 2 * n + 1 - p;
}

}  // namespace

MemoryCount traceMemoryCount(const ProfileTrace& trace)
{
    return trace.device.rfind("cuda", 0) == 0 && !trace.fromSnapshot() ? MemoryCount::CudaBlocks : MemoryCount::Requested;
}

TraceComparison compareWithTrace(const Graph& graph, const MemoryProfile& predicted, const ProfileTrace& trace,
                                 const StepMemory& measured)
{
    const auto& topo = graph.topologicalOrder();
    const int n = graph.vertexCount() - 1;  // the simulators' N
    const int traceN = static_cast<int>(trace.vertices.size());
    // The trace lists the graph's vertices in topological order: all of them (ckptx-torch, which
    // builds the graph it runs), or the real ones (the Python profiler writes its trace from the
    // graph file, and a virtual vertex — the source joining a model's several inputs, the sink
    // joining its several outputs; GraphBuilder — is in none). An unlisted vertex's phases have no
    // measured counterpart and are skipped; with an unlisted virtual source the trace's phase 0,
    // before the step, stands for its forward.
    std::vector<int> traceVertex(graph.vertexCount(), -1);  // per topological position
    const bool listsVirtual = traceN == graph.vertexCount();
    int listed = 0;
    for (int p = 0; p <= n; ++p)
        if (listsVirtual || !graph.vertex(topo[p]).isVirtual)
            traceVertex[p] = listed++;
    if (traceN != listed)
        throw std::invalid_argument("the trace has " + std::to_string(traceN) + " vertices, the graph " +
                                    std::to_string(graph.vertexCount()) +
                                    (listed != graph.vertexCount() ? " (" + std::to_string(listed) + " but virtual ones)" : ""));
    for (int p = 0; p <= n; ++p)
        if (const int k = traceVertex[p]; k >= 0 && trace.vertices[k] != graph.vertex(topo[p]).id)
            throw std::invalid_argument("the trace's vertex " + std::to_string(k) + " is \"" + trace.vertices[k] +
                                        "\", the graph's \"" + graph.vertex(topo[p]).id + "\" (not this graph?)");
    if (static_cast<int>(measured.phases.size()) != 2 * traceN + 2)
        throw std::invalid_argument("the trace step has " + std::to_string(measured.phases.size()) +
                                    " phases, expected " + std::to_string(2 * traceN + 2));
    if (static_cast<int>(predicted.phases.size()) != 2 * n + 2)
        throw std::invalid_argument("the simulated profile has " + std::to_string(predicted.phases.size()) +
                                    " phases, expected " + std::to_string(2 * n + 2));
    auto tracePhase = [&](int p) { return tracePhaseOfListed(p, n, traceN, traceVertex[positionOfPhase(p, n)]); };

    const std::int64_t offset = trace.baselineBytes - graph.inputBytes();
    TraceComparison result;
    double sum = 0;
    for (const PhaseMemory& phase : predicted.phases) {
        PhaseComparison c;
        c.index = phase.index;
        c.traceIndex = tracePhase(phase.index);
        if (c.traceIndex < 0)
            continue;
        c.predicted = phase.endBytes;
        c.measured = measured.phases[c.traceIndex].endBytes - offset;
        c.errorPercent = percentError(c.predicted, c.measured);
        sum += std::abs(c.errorPercent);
        result.phases.push_back(c);
    }
    result.meanAbsErrorPercent = result.phases.empty() ? 0.0 : sum / static_cast<double>(result.phases.size());
    result.predictedPeak = predicted.peakBytes;
    result.measuredPeak = measured.peakBytes - offset;
    result.peakErrorPercent = percentError(result.predictedPeak, result.measuredPeak);
    if (const auto optimizer = measuredOptimizer(graph);
        optimizer && measured.optimizerStep && predicted.model == MemoryModel::PyTorch) {
        result.predictedOptimizerStep = optimizerStepBytes(predicted, *optimizer);
        result.measuredOptimizerStep = measured.optimizerStep->peakBytes - offset;
        result.optimizerStepErrorPercent = percentError(*result.predictedOptimizerStep, *result.measuredOptimizerStep);
    }
    return result;
}

}  // namespace ckpt
