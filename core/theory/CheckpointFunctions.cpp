#include "theory/CheckpointFunctions.h"

#include <algorithm>
#include <functional>
#include <numeric>
#include <queue>
#include <stdexcept>

namespace ckpt {

namespace {

class UnionFind {
public:
    explicit UnionFind(int n) : m_parent(n) { std::iota(m_parent.begin(), m_parent.end(), 0); }
    int find(int x)
    {
        while (m_parent[x] != x)
            x = m_parent[x] = m_parent[m_parent[x]];
        return x;
    }
    void join(int a, int b) { m_parent[find(a)] = find(b); }

private:
    std::vector<int> m_parent;
};

// Strongly connected components of a directed graph (Tarjan's algorithm with an explicit stack:
// no recursion whose depth grows with the graph); returns each node's component.
std::vector<int> stronglyConnected(const std::vector<std::vector<int>>& edges)
{
    const int n = static_cast<int>(edges.size());
    std::vector<int> index(n, -1), low(n, 0), component(n, -1), stack;
    std::vector<char> onStack(n, 0);
    std::vector<std::pair<int, std::size_t>> calls;  // node, next edge to visit
    int counter = 0, components = 0;
    for (int start = 0; start < n; ++start) {
        if (index[start] >= 0)
            continue;
        calls.push_back({start, 0});
        index[start] = low[start] = counter++;
        stack.push_back(start);
        onStack[start] = 1;
        while (!calls.empty()) {
            auto& [v, next] = calls.back();
            if (next < edges[v].size()) {
                const int w = edges[v][next++];
                if (index[w] < 0) {
                    index[w] = low[w] = counter++;
                    stack.push_back(w);
                    onStack[w] = 1;
                    calls.push_back({w, 0});
                } else if (onStack[w]) {
                    low[v] = std::min(low[v], index[w]);
                }
                continue;
            }
            const int done = v;
            calls.pop_back();
            if (!calls.empty())
                low[calls.back().first] = std::min(low[calls.back().first], low[done]);
            if (low[done] == index[done]) {
                int w = -1;
                do {
                    w = stack.back();
                    stack.pop_back();
                    onStack[w] = 0;
                    component[w] = components;
                } while (w != done);
                ++components;
            }
        }
    }
    return component;
}

}  // namespace

bool runsCheckpointFunctions(const Graph& graph)
{
    return graph.metadataIs("plan_executor", "\"torch.utils.checkpoint\"");
}

bool runsRootedExecutor(const Graph& graph)
{
    return graph.metadataIs("plan_executor", "\"ckptx-torch\"");
}

bool stopsReforwardsEarly(const Graph& graph)
{
    return graph.metadataIs("checkpoint_early_stop", "true");
}

PlanEvaluation checkpointFunctions(const Graph& graph, const PlanEvaluation& plan)
{
    const int n = graph.vertexCount();
    // What plan_steps keeps out of the functions' interiors: the checkpoints, the inputs and the outputs.
    std::vector<char> kept(n, 0);
    for (VertexIndex c : plan.checkpoints)
        kept[c] = 1;
    for (VertexIndex v = 0; v < n; ++v)
        if (graph.vertex(v).output)
            kept[v] = 1;
    if (graph.vertex(graph.source()).isVirtual)
        for (VertexIndex v : graph.successors(graph.source()))
            kept[v] = 1;
    if (graph.vertex(graph.sink()).isVirtual)
        for (VertexIndex v : graph.predecessors(graph.sink()))
            kept[v] = 1;

    UnionFind joined(n);
    for (VertexIndex v = 0; v < n; ++v)
        for (VertexIndex d : graph.predecessors(v))
            if (!kept[d])
                joined.join(d, v);
    std::vector<int> group(n, -1);
    int groups = 0;
    for (VertexIndex v : graph.topologicalOrder()) {
        const int root = joined.find(v);
        if (group[root] < 0)
            group[root] = groups++;
        group[v] = group[root];
    }
    std::vector<std::vector<int>> reads(groups);
    for (VertexIndex v = 0; v < n; ++v)
        for (VertexIndex d : graph.predecessors(v))
            if (group[d] != group[v])
                reads[group[d]].push_back(group[v]);
    const std::vector<int> merged = stronglyConnected(reads);

    std::vector<int> function(n, -1);
    std::vector<int> functionOfComponent(groups, -1);
    PlanEvaluation result = plan;
    result.segments.clear();
    std::vector<std::vector<VertexIndex>> members;
    for (VertexIndex v : graph.topologicalOrder()) {
        if (kept[v])
            continue;
        int& f = functionOfComponent[merged[group[v]]];
        if (f < 0) {
            f = static_cast<int>(members.size());
            members.emplace_back();
        }
    }
    for (VertexIndex v : graph.topologicalOrder()) {
        const int f = functionOfComponent[merged[group[v]]];
        if (f >= 0) {
            function[v] = f;
            members[f].push_back(v);
        }
    }
    std::vector<char> returned(n, 0), entered(n, 0);
    for (const auto& inside : members) {
        Segment segment;
        const int f = function[inside.front()];
        for (VertexIndex v : inside) {
            const auto succ = graph.successors(v);
            const bool leaves = v == graph.sink() ||
                                std::any_of(succ.begin(), succ.end(), [&](VertexIndex w) { return function[w] != f; });
            (leaves ? segment.exits : segment.vertices).push_back(v);
            returned[v] = leaves;
            for (VertexIndex d : graph.predecessors(v))
                if (function[d] != f && !entered[d]) {
                    entered[d] = 1;
                    segment.entries.push_back(d);
                }
            segment.cost += leaves ? 0 : graph.bytes(v);
        }
        for (VertexIndex d : segment.entries)
            entered[d] = 0;
        std::sort(segment.entries.begin(), segment.entries.end(), [&graph](VertexIndex a, VertexIndex b) {
            return graph.topologicalPosition(a) < graph.topologicalPosition(b);
        });
        result.segments.push_back(std::move(segment));
    }
    result.checkpoints.clear();
    for (VertexIndex v : graph.topologicalOrder())
        if (kept[v] && (function[v] < 0 || returned[v]))
            result.checkpoints.push_back(v);
    return result;
}

std::vector<VertexIndex> applyPlanOrder(const Graph& graph, const PlanEvaluation& functions)
{
    const int n = graph.vertexCount();
    std::vector<int> step(n, -1);
    int steps = 0;
    for (const Segment& function : functions.segments) {
        for (const auto* part : {&function.vertices, &function.exits})
            for (VertexIndex v : *part)
                step[v] = steps;
        ++steps;
    }
    for (VertexIndex v = 0; v < n; ++v)
        if (step[v] < 0)
            step[v] = steps++;
    // P29: per step, the topological position of its first vertex that draws random numbers.
    std::vector<std::vector<VertexIndex>> members(steps);
    std::vector<int> firstRandom(steps, -1);
    for (VertexIndex v : graph.topologicalOrder()) {
        members[step[v]].push_back(v);
        if (graph.vertex(v).drawsRandom && firstRandom[step[v]] < 0)
            firstRandom[step[v]] = graph.topologicalPosition(v);
    }
    std::vector<int> waiting(steps, 0);
    std::vector<std::vector<int>> readers(steps);
    for (VertexIndex v = 0; v < n; ++v)
        for (VertexIndex d : graph.predecessors(v))
            if (step[d] != step[v]) {
                readers[step[d]].push_back(step[v]);
                ++waiting[step[v]];
            }
    // Ready steps by the topological position of their first vertex, smallest first.
    using Ready = std::pair<int, int>;
    std::priority_queue<Ready, std::vector<Ready>, std::greater<>> ready;
    auto position = [&](int s) { return graph.topologicalPosition(members[s].front()); };
    for (int s = 0; s < steps; ++s)
        if (waiting[s] == 0)
            ready.push({position(s), s});
    // P29: the steps that draw random numbers take their turns by their first such vertex; one
    // ready out of turn waits (deferred) unless nothing else can run (random vertices interleaved).
    std::vector<int> drawing;
    for (int s = 0; s < steps; ++s)
        if (firstRandom[s] >= 0)
            drawing.push_back(s);
    std::sort(drawing.begin(), drawing.end(), [&](int a, int b) { return firstRandom[a] < firstRandom[b]; });
    std::vector<bool> done(steps, false);
    std::size_t turn = 0;
    std::vector<int> deferred;
    std::vector<VertexIndex> order;
    order.reserve(n);
    auto run = [&](int s) {
        done[s] = true;
        order.insert(order.end(), members[s].begin(), members[s].end());
        while (turn < drawing.size() && done[drawing[turn]])
            ++turn;
        if (turn < drawing.size())
            if (auto it = std::find(deferred.begin(), deferred.end(), drawing[turn]); it != deferred.end()) {
                ready.push({position(*it), *it});
                deferred.erase(it);
            }
        for (int r : readers[s])
            if (--waiting[r] == 0)
                ready.push({position(r), r});
    };
    while (!ready.empty() || !deferred.empty()) {
        if (ready.empty()) {
            const auto first = std::min_element(deferred.begin(), deferred.end(),
                                                [&](int a, int b) { return position(a) < position(b); });
            const int s = *first;
            deferred.erase(first);
            run(s);
            continue;
        }
        const int s = ready.top().second;
        ready.pop();
        if (firstRandom[s] >= 0 && s != drawing[turn])
            deferred.push_back(s);
        else
            run(s);
    }
    if (static_cast<int>(order.size()) != n)
        throw std::logic_error("applyPlanOrder: the plan's steps read each other (not checkpointFunctions' result)");
    return order;
}

}  // namespace ckpt
