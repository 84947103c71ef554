#include "theory/StageSchedule.h"

#include "theory/TrainingGraph.h"

#include <algorithm>
#include <map>
#include <stdexcept>

namespace ckpt {

StageGraph::StageGraph(const Graph& graph)
{
    const auto& order = graph.topologicalOrder();
    const int n = static_cast<int>(order.size());
    vertex = order;
    deps.resize(n);
    users.resize(n);
    for (int k = 0; k < n; ++k) {
        bytes.push_back(graph.bytes(order[k]));
        cost.push_back(computeCost(graph, order[k]));
        for (VertexIndex p : graph.predecessors(order[k]))
            deps[k].push_back(graph.topologicalPosition(p));
        for (VertexIndex s : graph.successors(order[k]))
            users[k].push_back(graph.topologicalPosition(s));
        std::sort(deps[k].begin(), deps[k].end());
        std::sort(users[k].begin(), users[k].end());
    }
}

namespace {

// Eq. 5: after computing k in stage t, dependency i may go unless it is kept for stage t+1
// or a later node of this stage still uses it.
bool mayFree(const StageGraph& g, int t, int i, int k, const std::vector<char>& rt, const std::vector<char>& next)
{
    if (next[i])
        return false;
    for (int j : g.users[i])
        if (j > k && j <= t && rt[j])
            return false;
    return true;
}

const std::vector<char>& nextRow(const StageMatrix& S, int t, const std::vector<char>& none)
{
    return t + 1 < static_cast<int>(S.size()) ? S[t + 1] : none;
}

}  // namespace

std::int64_t stagePeak(const StageGraph& g, int t, const std::vector<char>& st, const std::vector<char>& rt,
                       const std::vector<char>& next, std::int64_t fixedBytes)
{
    std::int64_t u = fixedBytes;  // Eq. 2
    for (int i = 0; i < t; ++i)
        if (st[i])
            u += g.bytes[i];
    std::int64_t peak = u;
    for (int k = 0; k <= t; ++k) {
        if (!rt[k])
            continue;
        u += g.bytes[k];  // Eq. 3
        peak = std::max(peak, u);
        for (int i : g.deps[k])  // Eq. 4 over DEPS[k] only (§4.6)
            if (mayFree(g, t, i, k, rt, next))
                u -= g.bytes[i];
    }
    return peak;
}

std::int64_t modelPeak(const StageGraph& g, const StageMatrix& R, const StageMatrix& S, std::int64_t fixedBytes)
{
    const int n = g.size();
    const std::vector<char> none(n, 0);
    std::int64_t peak = fixedBytes;
    for (int t = 0; t < n; ++t)
        peak = std::max(peak, stagePeak(g, t, S[t], R[t], nextRow(S, t, none), fixedBytes));
    return peak;
}

std::int64_t leastPeak(const StageGraph& g, std::int64_t fixedBytes)
{
    std::int64_t most = 0;
    for (int k = 0; k < g.size(); ++k) {
        std::int64_t need = g.bytes[k];
        for (int i : g.deps[k])
            need += g.bytes[i];
        most = std::max(most, need);
    }
    return most + fixedBytes;
}

std::vector<ScheduleStatement> executionPlan(const StageGraph& g, const StageMatrix& R, const StageMatrix& S)
{
    using Kind = ScheduleStatement::Kind;
    const int n = g.size();
    const std::vector<char> none(n, 0);
    std::vector<ScheduleStatement> plan;
    std::vector<std::vector<int>> regs(n);  // allocated registers per node, newest last
    int next = 0;
    for (int t = 0; t < n; ++t) {
        const std::vector<char>& keep = nextRow(S, t, none);
        auto release = [&](int stage, int node) {
            plan.push_back({Kind::Deallocate, stage, node, regs[node].back()});
            regs[node].pop_back();
        };
        for (int k = 0; k <= t; ++k) {
            if (!R[t][k])
                continue;
            plan.push_back({Kind::Allocate, t, k, next});
            plan.push_back({Kind::Compute, t, k, next});
            regs[k].push_back(next++);
            for (int i : g.deps[k])
                if (!regs[i].empty() && mayFree(g, t, i, k, R[t], keep))
                    release(t, i);
            if (mayFree(g, t, k, k, R[t], keep))  // FREE[t][k][k], recovered after solving (§4.6)
                release(t, k);
        }
        // End of stage: values still allocated that stage t+1 does not keep, and duplicates.
        for (int i = 0; i < n; ++i)
            while (static_cast<int>(regs[i].size()) > (keep[i] ? 1 : 0))
                release(t, i);
    }
    return plan;
}

ReplayResult replay(const StageGraph& g, const StageSchedule& schedule, std::optional<std::int64_t> budget)
{
    using Kind = ScheduleStatement::Kind;
    const int n = g.size();
    ReplayResult result;
    auto fail = [&result](std::string why) {
        if (result.ok) {
            result.ok = false;
            result.error = std::move(why);
        }
    };
    auto name = [&schedule](int k) {
        return k < static_cast<int>(schedule.nodeIds.size()) ? schedule.nodeIds[k] : std::to_string(k);
    };
    std::map<int, int> registerNode;
    std::vector<int> live(n, 0);
    std::vector<char> computed(n, 0);
    std::int64_t memory = schedule.fixedBytes;
    result.peakBytes = memory;
    int stage = -1;
    auto enterStage = [&](int t) {
        for (; stage < t;) {
            ++stage;
            if (stage < n && !schedule.R[stage][stage])
                fail("stage " + std::to_string(stage) + " does not compute its node " + name(stage));
            for (int i = 0; stage < n && i < stage; ++i)
                if (schedule.S[stage][i] && live[i] == 0)
                    fail("stage " + std::to_string(stage) + " keeps " + name(i) + ", which is not in memory");
        }
    };
    for (const ScheduleStatement& s : schedule.plan) {
        enterStage(s.stage);
        switch (s.kind) {
        case Kind::Allocate:
            registerNode[s.registerId] = s.node;
            ++live[s.node];
            memory += g.bytes[s.node];
            result.peakBytes = std::max(result.peakBytes, memory);
            if (budget && memory > *budget)
                fail("memory " + std::to_string(memory) + " exceeds the budget " + std::to_string(*budget) +
                     " when " + name(s.node) + " is allocated in stage " + std::to_string(s.stage));
            break;
        case Kind::Compute:
            if (!registerNode.count(s.registerId))
                fail("compute " + name(s.node) + " into a register that was never allocated");
            for (int i : g.deps[s.node])
                if (live[i] == 0)
                    fail("compute " + name(s.node) + " in stage " + std::to_string(s.stage) + " needs " + name(i) +
                         ", which is not in memory");
            computed[s.node] = 1;
            result.cost += g.cost[s.node];
            break;
        case Kind::Deallocate: {
            auto it = registerNode.find(s.registerId);
            if (it == registerNode.end()) {
                fail("deallocate of register %" + std::to_string(s.registerId) + ", which is not allocated");
                break;
            }
            --live[it->second];
            memory -= g.bytes[it->second];
            registerNode.erase(it);
            break;
        }
        }
    }
    enterStage(n - 1);
    for (int k = 0; k < n; ++k)
        if (!computed[k])
            fail(name(k) + " is never computed");
    return result;
}

StageSchedule makeStageSchedule(const StageGraph& g, const Graph& graph, StageMatrix R, StageMatrix S,
                                std::int64_t fixedBytes)
{
    StageSchedule schedule;
    for (VertexIndex v : g.vertex)
        schedule.nodeIds.push_back(graph.vertex(v).id);
    schedule.plan = executionPlan(g, R, S);
    schedule.R = std::move(R);
    schedule.S = std::move(S);
    schedule.fixedBytes = fixedBytes;
    const ReplayResult replayed = replay(g, schedule);
    if (!replayed.ok)
        throw std::logic_error("invalid schedule: " + replayed.error);
    schedule.cost = replayed.cost;
    schedule.peakBytes = replayed.peakBytes;
    return schedule;
}

KeptMatrices keptMatrices(const StageGraph& g, const std::vector<char>& keep)
{
    const int n = g.size();
    KeptMatrices m;
    m.R.assign(n, std::vector<char>(n, 0));
    m.S.assign(n, std::vector<char>(n, 0));
    for (int t = 0; t < n; ++t) {
        auto& R = m.R[t];
        for (int i = 0; i < t; ++i)
            m.S[t][i] = keep[i] && !g.users[i].empty() && g.users[i].back() >= t;
        R[t] = 1;
        for (int k = t; k >= 0; --k)
            if (R[k]) {
                m.cost += g.cost[k];
                for (int i : g.deps[k])
                    if (!m.S[t][i])
                        R[i] = 1;
            }
    }
    return m;
}

StageSchedule scheduleFromKept(const StageGraph& g, const Graph& graph, const std::vector<char>& keep,
                               std::int64_t fixedBytes)
{
    KeptMatrices m = keptMatrices(g, keep);
    return makeStageSchedule(g, graph, std::move(m.R), std::move(m.S), fixedBytes);
}

}  // namespace ckpt
