#include "theory/PlanEvaluation.h"

#include <algorithm>
#include <stdexcept>

namespace ckpt {

namespace {

std::string idList(const Graph& g, const std::vector<VertexIndex>& vs)
{
    std::string out;
    for (VertexIndex v : vs)
        out += (out.empty() ? "" : ", ") + g.vertex(v).id;
    return out;
}

}  // namespace

PlanEvaluation evaluate(const Graph& graph, std::vector<VertexIndex> checkpoints)
{
    const int n = graph.vertexCount();
    std::vector<char> isCheckpoint(n, 0);
    checkpoints.push_back(graph.source());
    checkpoints.push_back(graph.sink());
    PlanEvaluation result;
    for (VertexIndex v : checkpoints) {
        if (v < 0 || v >= n)
            throw std::out_of_range("checkpoint index " + std::to_string(v) + " is not a vertex");
        if (!isCheckpoint[v]) {
            isCheckpoint[v] = 1;
            result.checkpoints.push_back(v);
            result.checkpointBytes += graph.bytes(v);
        }
    }
    auto byTopo = [&graph](VertexIndex a, VertexIndex b) {
        return graph.topologicalPosition(a) < graph.topologicalPosition(b);
    };
    std::sort(result.checkpoints.begin(), result.checkpoints.end(), byTopo);

    // Components of non-checkpoint vertices, discovered in topological order.
    std::vector<int> component(n, -1);
    std::vector<VertexIndex> stack;
    for (VertexIndex start : graph.topologicalOrder()) {
        if (isCheckpoint[start] || component[start] >= 0)
            continue;
        const int id = static_cast<int>(result.segments.size());
        Segment seg;
        component[start] = id;
        stack.push_back(start);
        while (!stack.empty()) {
            VertexIndex v = stack.back();
            stack.pop_back();
            seg.vertices.push_back(v);
            seg.cost += graph.bytes(v);
            for (VertexIndex w : graph.predecessors(v)) {
                if (isCheckpoint[w])
                    seg.entries.push_back(w);
                else if (component[w] < 0) {
                    component[w] = id;
                    stack.push_back(w);
                }
            }
            for (VertexIndex w : graph.successors(v)) {
                if (isCheckpoint[w])
                    seg.exits.push_back(w);
                else if (component[w] < 0) {
                    component[w] = id;
                    stack.push_back(w);
                }
            }
        }
        for (auto* list : {&seg.vertices, &seg.entries, &seg.exits}) {
            std::sort(list->begin(), list->end(), byTopo);
            list->erase(std::unique(list->begin(), list->end()), list->end());
        }
        result.maxSegmentCost = std::max(result.maxSegmentCost, seg.cost);
        result.segments.push_back(std::move(seg));
    }
    result.objective = result.checkpointBytes + result.maxSegmentCost;

    for (std::size_t i = 0; i < result.segments.size(); ++i) {
        const Segment& seg = result.segments[i];
        if (seg.isIndependent())
            continue;
        result.isISPlan = false;
        result.breakingSegment = static_cast<int>(i);
        std::string which = "the segment of " + idList(graph, {seg.vertices.front()}) +
                            (seg.vertices.size() > 1 ? " (" + std::to_string(seg.vertices.size()) + " vertices)" : "");
        if (seg.entries.size() != 1)
            result.whyNotIS = which + " is fed by " + std::to_string(seg.entries.size()) +
                              " checkpoints (" + idList(graph, seg.entries) + "), not one";
        else
            result.whyNotIS = which + " feeds " + std::to_string(seg.exits.size()) + " checkpoints (" +
                              idList(graph, seg.exits) + "), not one";
        break;
    }
    return result;
}

PlanEvaluation evaluateIds(const Graph& graph, const std::vector<std::string>& checkpointIds)
{
    std::vector<VertexIndex> checkpoints;
    for (const std::string& id : checkpointIds) {
        auto v = graph.find(id);
        if (!v)
            throw std::invalid_argument("unknown checkpoint vertex \"" + id + "\"");
        checkpoints.push_back(*v);
    }
    return evaluate(graph, std::move(checkpoints));
}

}  // namespace ckpt
