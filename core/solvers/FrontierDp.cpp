#include "solvers/FrontierDp.h"

#include <algorithm>
#include <numeric>
#include <unordered_map>

namespace ckpt {

namespace {

template <typename F>
void forNeighbours(const Graph& g, VertexIndex v, F&& f)
{
    for (VertexIndex w : g.predecessors(v))
        f(w);
    for (VertexIndex w : g.successors(v))
        f(w);
}

int degree(const Graph& g, VertexIndex v)
{
    return static_cast<int>(g.predecessors(v).size() + g.successors(v).size());
}

// The frontier after each step of an order: its width and the sum of its sizes (a tie-break).
std::pair<int, long long> frontierSizes(const Graph& g, const std::vector<VertexIndex>& order)
{
    std::vector<int> position(g.vertexCount());
    for (int i = 0; i < static_cast<int>(order.size()); ++i)
        position[order[i]] = i;
    // A vertex is on the frontier from its own step until the step of its last neighbour.
    std::vector<int> change(order.size() + 1, 0);
    for (VertexIndex v : order) {
        int last = position[v];
        forNeighbours(g, v, [&](VertexIndex w) { last = std::max(last, position[w]); });
        ++change[position[v]];
        --change[last];
    }
    int size = 0, width = 0;
    long long sum = 0;
    for (std::size_t i = 0; i < order.size(); ++i) {
        size += change[i];
        width = std::max(width, size);
        sum += size;
    }
    return {width, sum};
}

std::vector<VertexIndex> greedyOrder(const Graph& g)
{
    const int n = g.vertexCount();
    std::vector<int> unadded(n);
    for (VertexIndex v = 0; v < n; ++v)
        unadded[v] = degree(g, v);
    std::vector<char> added(n, 0), candidate(n, 0);
    std::vector<VertexIndex> order, candidates{g.source()};
    candidate[g.source()] = 1;
    while (!candidates.empty()) {
        std::size_t bestAt = 0;
        int bestDelta = 0;
        for (std::size_t c = 0; c < candidates.size(); ++c) {
            const VertexIndex v = candidates[c];
            int addedNeighbours = 0, leaving = 0;
            forNeighbours(g, v, [&](VertexIndex w) {
                if (added[w]) {
                    ++addedNeighbours;
                    leaving += unadded[w] == 1;
                }
            });
            const int delta = (degree(g, v) > addedNeighbours ? 1 : 0) - leaving;
            if (c == 0 || delta < bestDelta ||
                (delta == bestDelta && g.topologicalPosition(v) < g.topologicalPosition(candidates[bestAt]))) {
                bestAt = c;
                bestDelta = delta;
            }
        }
        const VertexIndex v = candidates[bestAt];
        candidates.erase(candidates.begin() + static_cast<std::ptrdiff_t>(bestAt));
        added[v] = 1;
        order.push_back(v);
        forNeighbours(g, v, [&](VertexIndex w) {
            --unadded[w];
            if (!added[w] && !candidate[w]) {
                candidate[w] = 1;
                candidates.push_back(w);
            }
        });
    }
    return order;
}

// Step i adds order[i]. Slots index the frontier before the step, in the order vertices joined it.
struct Step {
    VertexIndex vertex = 0;
    std::vector<int> neighbourSlots;  // frontier slots holding the vertex's added neighbours
    std::vector<int> keptSlots;       // slots still on the frontier after the step
    bool joins = false;               // the vertex has a neighbour still to add: it joins the frontier
    bool forced = false;              // source or sink: always a checkpoint
    std::int64_t forcedLater = 0;     // bytes of the source and sink added after this step
};

std::vector<Step> steps(const Graph& g, const std::vector<VertexIndex>& order)
{
    const int n = static_cast<int>(order.size());
    std::vector<int> position(g.vertexCount()), last(g.vertexCount());
    for (int i = 0; i < n; ++i)
        position[order[i]] = i;
    for (VertexIndex v : order) {
        last[v] = position[v];
        forNeighbours(g, v, [&](VertexIndex w) { last[v] = std::max(last[v], position[w]); });
    }
    std::vector<Step> out(n);
    std::vector<VertexIndex> frontier;
    for (int i = 0; i < n; ++i) {
        Step& s = out[i];
        s.vertex = order[i];
        s.forced = s.vertex == g.source() || s.vertex == g.sink();
        for (VertexIndex forcedVertex : {g.source(), g.sink()})
            if (position[forcedVertex] > i)
                s.forcedLater += g.bytes(forcedVertex);
        std::vector<VertexIndex> next;
        for (int slot = 0; slot < static_cast<int>(frontier.size()); ++slot) {
            const VertexIndex u = frontier[slot];
            bool neighbour = false;
            forNeighbours(g, s.vertex, [&](VertexIndex w) { neighbour = neighbour || w == u; });
            if (neighbour)
                s.neighbourSlots.push_back(slot);
            if (last[u] > i) {
                s.keptSlots.push_back(slot);
                next.push_back(u);
            }
        }
        s.joins = last[s.vertex] > i;
        if (s.joins)
            next.push_back(s.vertex);
        frontier = std::move(next);
    }
    return out;
}

// A key holds one byte per frontier slot: 0 = checkpoint, c >= 1 = open component c, numbered by
// first appearance. Its labels are stored flat, `2 + components` numbers each:
//   [checkpoint bytes, max closed component, cost of component 1, ..., cost of component k].
struct Bucket {
    std::string key;
    int components = 0;
    std::vector<std::int64_t> values;
    std::vector<std::int32_t> traces;  // per label: its entry in the trace (how it was reached)
    std::size_t size() const { return traces.size(); }
    int stride() const { return 2 + components; }
};

// Each kept label's decision (checkpoint or not) and the label it came from.
struct Trace {
    std::int32_t parent = -1;
    bool checkpoint = false;
};

// What adding the step's vertex with one decision does to every label of one key.
struct Transition {
    std::string key;             // the new key
    int components = 0;          // components of the new key
    std::int64_t addBytes = 0;   // checkpoint bytes added
    std::vector<int> group;      // old component c (1..k) -> merged group (1..k+1; k+1 holds the vertex)
    std::vector<int> newIndex;   // group -> new component (1..), or 0 when the group closes
    std::vector<char> exists;    // group has a member
    std::int64_t vertexBytes = 0;  // added to group k+1 (0 for a checkpoint)
};

Transition transition(const Bucket& from, const Step& step, const Graph& g, bool checkpoint)
{
    const int k = from.components;
    Transition t;
    t.group.resize(k + 1);
    std::iota(t.group.begin(), t.group.end(), 0);
    t.exists.assign(k + 2, 0);
    for (int c = 1; c <= k; ++c)
        t.exists[c] = 1;
    if (checkpoint) {
        t.addBytes = g.bytes(step.vertex);
    } else {
        // The vertex joins the components of its added non-checkpoint neighbours into one.
        t.vertexBytes = g.bytes(step.vertex);
        t.exists[k + 1] = 1;
        for (int slot : step.neighbourSlots)
            if (const int c = static_cast<unsigned char>(from.key[slot])) {
                t.group[c] = k + 1;
                t.exists[c] = 0;
            }
    }
    t.newIndex.assign(k + 2, 0);
    auto place = [&t](int groupId) {
        if (groupId == 0) {
            t.key.push_back(0);
            return;
        }
        if (t.newIndex[groupId] == 0)
            t.newIndex[groupId] = ++t.components;
        t.key.push_back(static_cast<char>(t.newIndex[groupId]));
    };
    for (int slot : step.keptSlots)
        place(t.group[static_cast<unsigned char>(from.key[slot])]);
    if (step.joins)
        place(checkpoint ? 0 : k + 1);
    return t;
}

// The labels' bound without the step's forced bytes: bytes + max(closed max, open costs).
std::int64_t partialObjective(const std::int64_t* label, int stride)
{
    return label[0] + std::max(label[1], stride > 2 ? *std::max_element(label + 2, label + stride) : 0);
}

// Drops every label that another label of the bucket is <= in every coordinate (equal ones: all
// but one). Sorting lexicographically first means only earlier labels can dominate later ones.
// `beam` > 0 (heuristic) first keeps only the `beam` labels of smallest partialObjective.
// `stop` is polled now and then; when it says so the bucket is left half filtered (the caller
// abandons the step).
bool keepNonDominated(Bucket& b, std::vector<Trace>& candidates, std::vector<Trace>& trace, std::size_t beam,
                      const std::function<bool()>& stop)
{
    const int s = b.stride();
    std::vector<std::size_t> byValue(candidates.size());
    std::iota(byValue.begin(), byValue.end(), 0);
    const std::int64_t* v = b.values.data();
    if (beam > 0 && byValue.size() > beam) {
        std::nth_element(byValue.begin(), byValue.begin() + static_cast<std::ptrdiff_t>(beam), byValue.end(),
                         [v, s](std::size_t x, std::size_t y) {
                             return partialObjective(v + x * s, s) < partialObjective(v + y * s, s);
                         });
        byValue.resize(beam);
    }
    const std::size_t count = byValue.size();
    std::sort(byValue.begin(), byValue.end(), [v, s](std::size_t x, std::size_t y) {
        return std::lexicographical_compare(v + x * s, v + x * s + s, v + y * s, v + y * s + s);
    });
    std::vector<std::int64_t> kept;
    b.traces.clear();
    for (std::size_t i = 0; i < count; ++i) {
        if ((i & 0xfff) == 0xfff && stop())
            return false;
        const std::int64_t* label = v + byValue[i] * s;
        bool dominated = false;
        for (std::size_t y = 0; y < b.traces.size() && !dominated; ++y) {
            const std::int64_t* other = kept.data() + y * s;
            dominated = std::equal(other, other + s, label, [](std::int64_t a, std::int64_t c) { return a <= c; });
        }
        if (dominated)
            continue;
        kept.insert(kept.end(), label, label + s);
        b.traces.push_back(static_cast<std::int32_t>(trace.size()));
        trace.push_back(candidates[byValue[i]]);
    }
    b.values = std::move(kept);
    return true;
}

}  // namespace

FrontierOrder frontierOrder(const Graph& graph)
{
    FrontierOrder best{graph.topologicalOrder(), 0};
    auto [width, sum] = frontierSizes(graph, best.order);
    std::vector<VertexIndex> greedy = greedyOrder(graph);
    const auto [greedyWidth, greedySum] = frontierSizes(graph, greedy);
    if (std::make_pair(greedyWidth, greedySum) < std::make_pair(width, sum)) {
        best.order = std::move(greedy);
        width = greedyWidth;
    }
    best.width = width;
    return best;
}

FrontierDpResult frontierDp(const Graph& graph, const FrontierOrder& order, const FrontierDpLimits& limits)
{
    FrontierDpResult result;
    result.width = order.width;
    result.lowerBound = 0;
    // A key stores component numbers in bytes.
    if (order.width > 255) {
        result.status = FrontierDpResult::Status::TooLarge;
        return result;
    }
    const std::vector<Step> plan = steps(graph, order.order);
    std::vector<Trace> trace;
    std::vector<Bucket> layer(1);
    layer[0].values = {0, 0};
    layer[0].traces = {-1};

    // Polled every step and every few thousand labels; the bound of the last complete step stays.
    const std::function<bool()> stop = [&limits, &result] {
        if (limits.checkCancelled)
            limits.checkCancelled();
        if (std::chrono::steady_clock::now() <= limits.deadline)
            return false;
        result.status = FrontierDpResult::Status::TimedOut;
        return true;
    };
    for (const Step& step : plan) {
        if (stop())
            return result;
        std::vector<Bucket> next;
        std::vector<std::vector<Trace>> nextFrom;
        std::unordered_map<std::string, std::size_t> index;
        std::size_t generated = 0;
        for (const Bucket& b : layer) {
            for (bool checkpoint : {true, false}) {
                if (!checkpoint && step.forced)
                    continue;
                const Transition t = transition(b, step, graph, checkpoint);
                auto [at, isNew] = index.try_emplace(t.key, next.size());
                if (isNew) {
                    next.push_back({t.key, t.components, {}, {}});
                    nextFrom.emplace_back();
                }
                Bucket& to = next[at->second];
                std::vector<Trace>& from = nextFrom[at->second];
                const int k = b.components, s = b.stride();
                std::vector<std::int64_t> groupCost(k + 2), label(to.stride());
                for (std::size_t l = 0; l < b.size(); ++l) {
                    if ((++generated & 0xffff) == 0 && stop())
                        return result;
                    const std::int64_t* old = b.values.data() + l * s;
                    std::fill(groupCost.begin(), groupCost.end(), 0);
                    for (int c = 1; c <= k; ++c)
                        groupCost[t.group[c]] += old[1 + c];
                    groupCost[k + 1] += t.vertexBytes;
                    label[0] = old[0] + t.addBytes;
                    label[1] = old[1];
                    for (int grp = 1; grp <= k + 1; ++grp) {
                        if (!t.exists[grp])
                            continue;
                        if (t.newIndex[grp] == 0)
                            label[1] = std::max(label[1], groupCost[grp]);
                        else
                            label[1 + t.newIndex[grp]] = groupCost[grp];
                    }
                    // Pruning: components only grow and bytes only add up.
                    if (step.forcedLater + partialObjective(label.data(), to.stride()) >= limits.incumbent)
                        continue;
                    to.values.insert(to.values.end(), label.begin(), label.end());
                    from.push_back({b.traces[l], checkpoint});
                }
            }
        }
        std::size_t kept = 0;
        double bound = static_cast<double>(limits.incumbent);
        for (std::size_t i = 0; i < next.size(); ++i) {
            if (!keepNonDominated(next[i], nextFrom[i], trace, limits.beam, stop))
                return result;
            kept += next[i].size();
            const int s = next[i].stride();
            for (std::size_t l = 0; l < next[i].size(); ++l) {
                const std::int64_t labelBound = step.forcedLater + partialObjective(next[i].values.data() + l * s, s);
                bound = std::min(bound, static_cast<double>(labelBound));
            }
        }
        result.peakLabels = std::max(result.peakLabels, kept);
        result.labels += kept;
        result.lowerBound = bound;
        if (limits.progress)
            limits.progress(bound);
        // Trace entries are indexed by 32-bit numbers.
        if (kept > limits.maxLabels || result.labels > 16 * limits.maxLabels || trace.size() > (1u << 30)) {
            result.status = FrontierDpResult::Status::TooLarge;
            return result;
        }
        layer = std::move(next);
    }

    // After the last step the frontier is empty: one key, labels [bytes, max segment].
    result.lowerBound = static_cast<double>(limits.incumbent);
    std::int32_t bestTrace = -1;
    for (const Bucket& b : layer)
        for (std::size_t l = 0; l < b.size(); ++l) {
            const std::int64_t objective = b.values[l * 2] + b.values[l * 2 + 1];
            if (objective < result.lowerBound) {
                result.lowerBound = static_cast<double>(objective);
                bestTrace = b.traces[l];
            }
        }
    if (bestTrace >= 0) {
        std::vector<VertexIndex> checkpoints;
        for (int i = static_cast<int>(plan.size()) - 1; i >= 0; --i) {
            if (trace[bestTrace].checkpoint)
                checkpoints.push_back(plan[i].vertex);
            bestTrace = trace[bestTrace].parent;
        }
        result.better = std::move(checkpoints);
    }
    return result;
}

}  // namespace ckpt
