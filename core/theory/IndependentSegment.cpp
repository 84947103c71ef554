#include "theory/IndependentSegment.h"

#include <algorithm>

namespace ckpt {

namespace {

void sortTopologically(const Graph& graph, std::vector<VertexIndex>& vs)
{
    std::sort(vs.begin(), vs.end(), [&graph](VertexIndex a, VertexIndex b) {
        return graph.topologicalPosition(a) < graph.topologicalPosition(b);
    });
}

}  // namespace

bool hasEdge(const Graph& graph, VertexIndex from, VertexIndex to)
{
    const auto succ = graph.successors(from);
    return std::binary_search(succ.begin(), succ.end(), to, [&graph](VertexIndex a, VertexIndex b) {
        return graph.topologicalPosition(a) < graph.topologicalPosition(b);
    });
}

std::vector<VertexIndex> peelToIndependent(const Graph& graph, VertexIndex p, VertexIndex q,
                                           std::vector<VertexIndex> candidates, std::vector<char>& candidate)
{
    // A vertex leaves the set when it has a predecessor outside set ∪ {p} or a successor
    // outside set ∪ {q}; its neighbours in the set are then checked again.
    auto breaks = [&](VertexIndex v) {
        for (VertexIndex w : graph.predecessors(v))
            if (w != p && !candidate[w])
                return true;
        for (VertexIndex w : graph.successors(v))
            if (w != q && !candidate[w])
                return true;
        return false;
    };
    std::vector<VertexIndex> work = candidates;
    while (!work.empty()) {
        VertexIndex v = work.back();
        work.pop_back();
        if (!candidate[v] || !breaks(v))
            continue;
        candidate[v] = 0;
        for (VertexIndex w : graph.predecessors(v))
            if (candidate[w])
                work.push_back(w);
        for (VertexIndex w : graph.successors(v))
            if (candidate[w])
                work.push_back(w);
    }
    std::erase_if(candidates, [&candidate](VertexIndex v) { return !candidate[v]; });
    return candidates;
}

std::optional<IndependentSegment> largestIndependentSegment(const Graph& graph, VertexIndex p, VertexIndex q)
{
    if (p == q)
        return std::nullopt;
    const std::vector<bool> fromP = graph.reachableFrom(p);
    const std::vector<bool> toQ = graph.reaching(q);
    if (!fromP[q])
        return std::nullopt;
    std::vector<char> mark(graph.vertexCount(), 0);
    std::vector<VertexIndex> between;
    for (VertexIndex v = 0; v < graph.vertexCount(); ++v)
        if (v != p && v != q && fromP[v] && toQ[v]) {
            mark[v] = 1;
            between.push_back(v);
        }
    IndependentSegment s;
    s.source = p;
    s.target = q;
    s.hasDirectEdge = hasEdge(graph, p, q);
    s.vertices = peelToIndependent(graph, p, q, std::move(between), mark);
    if (s.vertices.empty() && !s.hasDirectEdge)
        return std::nullopt;
    for (VertexIndex v : s.vertices)
        s.cost += graph.bytes(v);
    s.vertices.push_back(p);
    s.vertices.push_back(q);
    sortTopologically(graph, s.vertices);
    return s;
}

bool isIndependentSegment(const Graph& graph, const std::vector<VertexIndex>& vertices, VertexIndex p,
                          VertexIndex q)
{
    std::vector<char> in(graph.vertexCount(), 0);
    for (VertexIndex v : vertices)
        in[v] = 1;
    if (p == q || !in[p] || !in[q])
        return false;
    const std::vector<bool> fromP = graph.reachableFrom(p);
    const std::vector<bool> toQ = graph.reaching(q);
    for (VertexIndex v : vertices) {
        if (v == p || v == q)
            continue;
        if (!fromP[v] || !toQ[v])
            return false;
        for (VertexIndex w : graph.predecessors(v))
            if (!in[w])
                return false;
        for (VertexIndex w : graph.successors(v))
            if (!in[w])
                return false;
    }
    // Closed and between p and q, so every path p -> v -> q stays inside the set.
    return vertices.size() > 2 || hasEdge(graph, p, q);
}

std::vector<VertexIndex> linearSplittingVertices(const Graph& graph, const IndependentSegment& segment)
{
    std::vector<int> position(graph.vertexCount(), -1);
    return linearSplittingVertices(graph, segment, position);
}

std::vector<VertexIndex> linearSplittingVertices(const Graph& graph, const IndependentSegment& segment,
                                                 std::vector<int>& local)
{
    const auto& vs = segment.vertices;
    const int n = static_cast<int>(vs.size());
    for (int k = 0; k < n; ++k)
        local[vs[k]] = k;
    // cover[k] = number of IS edges (a, b) with pos(a) < k < pos(b).
    std::vector<int> cover(n + 1, 0);
    for (int a = 0; a < n; ++a)
        for (VertexIndex w : graph.successors(vs[a])) {
            const int b = local[w];
            if (b < 0 || (a == 0 && b == n - 1 && !segment.hasDirectEdge))
                continue;
            ++cover[a + 1];
            --cover[b];
        }
    std::vector<VertexIndex> out;
    int running = 0;
    for (int k = 0; k < n - 1; ++k) {
        running += cover[k];
        if (k > 0 && running == 0)
            out.push_back(vs[k]);
    }
    for (VertexIndex v : vs)
        local[v] = -1;
    return out;
}

}  // namespace ckpt
