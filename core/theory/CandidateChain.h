#pragma once
// A chain of checkpoint candidates c_0 (source) .. c_m (sink) as the chain algorithms see it
// (Chen et al.; Hong et al. §3-4): candidate t has bytes d_t, and the non-candidate vertices
// strictly between c_{t-1} and c_t (topological order) form gap t, which can never be a
// checkpoint and is costed by its byte sum (and its largest tensor, for the gradient buffer).
// On a chain every vertex is a candidate and every gap is empty.
#include "graph/Graph.h"

#include <cstdint>
#include <vector>

namespace ckpt {

struct CandidateChain {
    std::vector<VertexIndex> vertices;    // c_0 .. c_m, topological order; c_0 = source, c_m = sink
    std::vector<std::int64_t> bytes;      // d_t
    std::vector<std::int64_t> gapBytes;   // [t]: sum over the gap before c_t (gapBytes[0] = 0)
    std::vector<std::int64_t> gapMax;     // [t]: largest tensor in that gap (0 when empty)
    std::vector<double> gapCompute;       // [t]: forward cost of that gap (unit cost when absent)

    int size() const { return static_cast<int>(vertices.size()); }
};

// Every vertex in topological order, no gaps. On a chain graph this is the chain itself;
// on a DAG it is Checkmate's "linearized" graph (§5.1.2).
CandidateChain topologicalChain(const Graph& graph);
// Source, articulation points, sink (Checkmate §5.1.1); the blocks between them are gaps.
CandidateChain articulationChain(const Graph& graph);

// Closed forms on a candidate chain for checkpoint positions `chosen` (ascending, holding
// 0 and m). Both ignore how a gap splits into segments, so on a DAG they bound the plan's
// evaluate() objective from above; on a chain they are exact.
// Chen et al. / Hong Eq. 6 (= Feng & Huang Eq. 2): sum of checkpoints + largest segment.
std::int64_t chenChainObjective(const CandidateChain& chain, const std::vector<int>& chosen);
// Hong Eq. 11: s(h, i) = sum of d strictly between h and i (gaps included) + max_{h<=k<i} d_k.
std::int64_t hongSegmentTerm(const CandidateChain& chain, int h, int i);
// Hong Eq. 9/12: max over chosen i > 0 of (sum of chosen d up to i) + s(h, i), h the previous one.
std::int64_t pytorchChainPeak(const CandidateChain& chain, const std::vector<int>& chosen);

}  // namespace ckpt
