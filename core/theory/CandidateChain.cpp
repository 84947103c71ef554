#include "theory/CandidateChain.h"

#include "graph/ArticulationPoints.h"

#include <algorithm>

namespace ckpt {

namespace {

// Builds the chain from candidate flags: every non-candidate joins the gap before the next candidate.
CandidateChain chainOf(const Graph& graph, const std::vector<bool>& candidate)
{
    CandidateChain chain;
    std::int64_t gap = 0, gapMax = 0;
    double gapCompute = 0;
    for (VertexIndex v : graph.topologicalOrder()) {
        const Vertex& vx = graph.vertex(v);
        if (!candidate[v]) {
            gap += vx.bytes;
            gapMax = std::max(gapMax, vx.bytes);
            gapCompute += vx.compute.value_or(1.0);
            continue;
        }
        chain.vertices.push_back(v);
        chain.bytes.push_back(vx.bytes);
        chain.gapBytes.push_back(gap);
        chain.gapMax.push_back(gapMax);
        chain.gapCompute.push_back(gapCompute);
        gap = gapMax = 0;
        gapCompute = 0;
    }
    return chain;
}

}  // namespace

CandidateChain topologicalChain(const Graph& graph)
{
    return chainOf(graph, std::vector<bool>(graph.vertexCount(), true));
}

CandidateChain articulationChain(const Graph& graph)
{
    std::vector<bool> candidate(graph.vertexCount(), false);
    candidate[graph.source()] = candidate[graph.sink()] = true;
    for (VertexIndex v : articulationPoints(graph))
        candidate[v] = true;
    return chainOf(graph, candidate);
}

std::int64_t chenChainObjective(const CandidateChain& chain, const std::vector<int>& chosen)
{
    std::int64_t checkpoints = 0, largest = 0;
    for (std::size_t k = 0; k < chosen.size(); ++k) {
        checkpoints += chain.bytes[chosen[k]];
        if (k == 0)
            continue;
        std::int64_t segment = chain.gapBytes[chosen[k]];
        for (int t = chosen[k - 1] + 1; t < chosen[k]; ++t)
            segment += chain.bytes[t] + chain.gapBytes[t];
        largest = std::max(largest, segment);
    }
    return checkpoints + largest;
}

std::int64_t hongSegmentTerm(const CandidateChain& chain, int h, int i)
{
    std::int64_t sum = chain.gapBytes[i], largest = std::max(chain.bytes[h], chain.gapMax[i]);
    for (int t = h + 1; t < i; ++t) {
        sum += chain.bytes[t] + chain.gapBytes[t];
        largest = std::max({largest, chain.bytes[t], chain.gapMax[t]});
    }
    return sum + largest;
}

std::int64_t pytorchChainPeak(const CandidateChain& chain, const std::vector<int>& chosen)
{
    std::int64_t prefix = chain.bytes[chosen.front()], peak = prefix;
    for (std::size_t k = 1; k < chosen.size(); ++k) {
        prefix += chain.bytes[chosen[k]];
        peak = std::max(peak, prefix + hongSegmentTerm(chain, chosen[k - 1], chosen[k]));
    }
    return peak;
}

}  // namespace ckpt
