#include "memory/TraceComparison.h"

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

}  // namespace

// Forward of vertex k (p = k) is trace phase k+1; the backward of vertex k (p = 2N+1−k) is trace
// phase 2·traceN−k; after training is the last.
int tracePhaseOf(int p, int n)
{
    const int traceN = n + 1;
    if (p == 0)
        return 0;
    if (p <= n)
        return p + 1;
    if (p <= 2 * n)
        return 2 * traceN - (2 * n + 1 - p);
    return 2 * traceN + 1;
}

TraceComparison compareWithTrace(const Graph& graph, const MemoryProfile& predicted, const ProfileTrace& trace,
                                 const StepMemory& measured)
{
    const auto& topo = graph.topologicalOrder();
    const int n = graph.vertexCount() - 1;  // the simulators' N
    const int traceN = static_cast<int>(trace.vertices.size());
    // A model with several inputs (token ids and a padding mask) has a virtual source joining them
    // (GraphBuilder), which a trace written from the graph file (the Python profiler) does not
    // list. Its phases are then the simulators' own: its phase 0, before the step, stands for the
    // virtual source's forward, and each input is a vertex with phases of its own.
    const bool virtualSourceUnlisted = graph.vertex(graph.source()).isVirtual && traceN == n;
    const int unlisted = virtualSourceUnlisted ? 1 : 0;
    if (traceN + unlisted != graph.vertexCount())
        throw std::invalid_argument("the trace has " + std::to_string(traceN) + " vertices, the graph " +
                                    std::to_string(graph.vertexCount()));
    for (int k = 0; k < traceN; ++k)
        if (trace.vertices[k] != graph.vertex(topo[k + unlisted]).id)
            throw std::invalid_argument("the trace's vertex " + std::to_string(k) + " is \"" + trace.vertices[k] +
                                        "\", the graph's \"" + graph.vertex(topo[k + unlisted]).id +
                                        "\" (not this graph?)");
    if (static_cast<int>(measured.phases.size()) != 2 * traceN + 2)
        throw std::invalid_argument("the trace step has " + std::to_string(measured.phases.size()) +
                                    " phases, expected " + std::to_string(2 * traceN + 2));
    if (static_cast<int>(predicted.phases.size()) != 2 * n + 2)
        throw std::invalid_argument("the simulated profile has " + std::to_string(predicted.phases.size()) +
                                    " phases, expected " + std::to_string(2 * n + 2));

    const std::int64_t offset = trace.baselineBytes - graph.inputBytes();
    TraceComparison result;
    double sum = 0;
    for (const PhaseMemory& phase : predicted.phases) {
        PhaseComparison c;
        c.index = phase.index;
        c.traceIndex = virtualSourceUnlisted ? phase.index : tracePhaseOf(phase.index, n);
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
    return result;
}

}  // namespace ckpt
