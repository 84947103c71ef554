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

// apply_plan's steps (plan_steps in app/python/checkpoint_explorer/planned.py), numbered by their
// first vertex in topological order: every non-checkpoint joins the vertices it feeds, groups that
// read each other merge, and what the plan keeps (checkpoints, inputs, outputs) runs as a step of its
// own unless a group took it in. A group with a member outside those runs as a checkpointed function
// unless autograd tracks none of its members (P36): then it runs plainly, one step, its members kept.
struct AppliedSteps {
    std::vector<int> step;                          // per vertex
    std::vector<std::vector<VertexIndex>> members;  // per step, topological order
    std::vector<char> function;                     // per step: runs in torch.utils.checkpoint
    std::vector<char> kept;                         // per vertex: outside every function's interior
};

AppliedSteps appliedSteps(const Graph& graph, const PlanEvaluation& plan)
{
    const int n = graph.vertexCount();
    AppliedSteps steps;
    steps.kept.assign(n, 0);
    auto& kept = steps.kept;
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

    steps.step.assign(n, -1);
    std::vector<int> stepOfComponent(groups, -1);
    for (VertexIndex v : graph.topologicalOrder()) {
        int& s = stepOfComponent[merged[group[v]]];
        if (s < 0) {
            s = static_cast<int>(steps.members.size());
            steps.members.emplace_back();
        }
        steps.step[v] = s;
        steps.members[s].push_back(v);
    }
    steps.function.assign(steps.members.size(), 0);
    for (std::size_t s = 0; s < steps.members.size(); ++s) {
        const auto& inside = steps.members[s];
        const bool interior = std::any_of(inside.begin(), inside.end(), [&](VertexIndex v) { return !kept[v]; });
        // P36: a function of vertices autograd does not track (frozen layers, the model's own
        // torch.no_grad()) would hold its inputs to a backward that never re-forwards it.
        const bool tracked =
            std::any_of(inside.begin(), inside.end(), [&](VertexIndex v) { return graph.vertex(v).requiresGrad; });
        steps.function[s] = interior && tracked;
        if (!steps.function[s])
            for (VertexIndex v : inside)
                kept[v] = 1;
    }
    return steps;
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

namespace {

PlanEvaluation functionsOf(const Graph& graph, const PlanEvaluation& plan, const AppliedSteps& steps)
{
    const int n = graph.vertexCount();
    auto function = [&steps](VertexIndex v) { return steps.function[steps.step[v]] ? steps.step[v] : -1; };
    PlanEvaluation result = plan;
    result.segments.clear();
    std::vector<char> returned(n, 0), entered(n, 0);
    for (std::size_t f = 0; f < steps.members.size(); ++f) {
        if (!steps.function[f])
            continue;
        Segment segment;
        for (VertexIndex v : steps.members[f]) {
            const auto succ = graph.successors(v);
            const bool leaves = v == graph.sink() ||
                                std::any_of(succ.begin(), succ.end(), [&](VertexIndex w) { return function(w) != static_cast<int>(f); });
            (leaves ? segment.exits : segment.vertices).push_back(v);
            returned[v] = leaves;
            for (VertexIndex d : graph.predecessors(v))
                if (function(d) != static_cast<int>(f) && !entered[d]) {
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
        if (steps.kept[v] && (function(v) < 0 || returned[v]))
            result.checkpoints.push_back(v);
    return result;
}

std::vector<VertexIndex> orderOf(const Graph& graph, const AppliedSteps& applied)
{
    const int n = graph.vertexCount();
    const std::vector<int>& step = applied.step;
    const std::vector<std::vector<VertexIndex>>& members = applied.members;
    const int steps = static_cast<int>(members.size());
    // P29: per step, the topological position of its first vertex that draws random numbers.
    std::vector<int> firstRandom(steps, -1);
    for (VertexIndex v : graph.topologicalOrder())
        if (graph.vertex(v).drawsRandom && firstRandom[step[v]] < 0)
            firstRandom[step[v]] = graph.topologicalPosition(v);
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
        throw std::logic_error("applyPlanOrder: the plan's steps read each other");
    return order;
}

}  // namespace

PlanEvaluation checkpointFunctions(const Graph& graph, const PlanEvaluation& plan)
{
    return functionsOf(graph, plan, appliedSteps(graph, plan));
}

std::vector<VertexIndex> applyPlanOrder(const Graph& graph, const PlanEvaluation& plan)
{
    return orderOf(graph, appliedSteps(graph, plan));
}

AppliedPlan applyPlan(const Graph& graph, const PlanEvaluation& plan)
{
    const AppliedSteps steps = appliedSteps(graph, plan);
    return {functionsOf(graph, plan, steps), orderOf(graph, steps)};
}

}  // namespace ckpt
