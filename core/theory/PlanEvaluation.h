#pragma once
// evaluate(graph, checkpoints): the segments a checkpoint set leaves and the objective of
// Feng & Huang Eq. 1/2:  sum of checkpoint bytes + max segment cost.
//
// Segments are the connected components (edge direction ignored) of the non-checkpoint
// vertices. Entries are the checkpoints with an edge into the segment, exits the checkpoints
// the segment has an edge to. A segment with exactly one entry and one (necessarily
// different) exit is an Independent Segment (Def. 1); two branches between the same pair
// of checkpoints are two IS, re-forwarded one after the other, so each enters the max alone.
// A plan whose segments are all IS is an "IS plan" — the paper's search space. Other plans
// are valid in the general model: each segment is re-forwarded from all its entries.
#include "graph/Graph.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ckpt {

struct Segment {
    std::vector<VertexIndex> vertices;  // interior (non-checkpoint) vertices, topological order
    std::vector<VertexIndex> entries;   // checkpoints feeding the segment, topological order
    std::vector<VertexIndex> exits;     // checkpoints fed by the segment, topological order
    std::int64_t cost = 0;              // sum of the interior vertices' bytes

    bool isIndependent() const { return entries.size() == 1 && exits.size() == 1; }
};

struct PlanEvaluation {
    std::vector<VertexIndex> checkpoints;  // topological order; always holds source and sink
    std::vector<Segment> segments;         // ordered by their first vertex's topological position
    std::int64_t checkpointBytes = 0;
    std::int64_t maxSegmentCost = 0;
    std::int64_t objective = 0;  // checkpointBytes + maxSegmentCost (Eq. 2)
    bool isISPlan = true;
    int breakingSegment = -1;  // the first segment that is not an IS, or -1
    std::string whyNotIS;      // plain words naming that segment and why
};

// Duplicates are ignored; the source and the sink are added when missing.
PlanEvaluation evaluate(const Graph& graph, std::vector<VertexIndex> checkpoints);
// The same, by vertex id; throws std::invalid_argument naming an unknown id.
PlanEvaluation evaluateIds(const Graph& graph, const std::vector<std::string>& checkpointIds);

}  // namespace ckpt
