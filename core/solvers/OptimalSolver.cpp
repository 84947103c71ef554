#include "solvers/OptimalSolver.h"

#include "milp/MilpModel.h"
#include "solvers/SolverRegistry.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <set>
#include <sstream>

namespace ckpt {

namespace {

// A connected vertex set C and its bytes b(C). Row generation keeps a pool of them: in any plan
// whose segments all cost at most T, every C with b(C) > T holds a checkpoint.
struct ConnectedSet {
    std::vector<VertexIndex> vertices;  // sorted
    std::int64_t cost = 0;
};

class CutPool {
public:
    bool add(std::vector<VertexIndex> vertices, std::int64_t cost)
    {
        std::sort(vertices.begin(), vertices.end());
        if (!m_seen.insert(vertices).second)
            return false;
        m_sets.push_back({std::move(vertices), cost});
        return true;
    }
    const std::vector<ConnectedSet>& sets() const { return m_sets; }

private:
    std::set<std::vector<VertexIndex>> m_seen;
    std::vector<ConnectedSet> m_sets;
};

// Separation: inside a segment that costs more than `limit`, grow a connected set breadth-first
// from every vertex until it costs more than `limit` (a small violated set), plus the segment.
int separate(const Graph& g, const Segment& segment, double limit, CutPool& pool)
{
    std::vector<char> inside(g.vertexCount(), 0);
    for (VertexIndex v : segment.vertices)
        inside[v] = 1;
    int added = pool.add(segment.vertices, segment.cost) ? 1 : 0;
    std::vector<char> taken(g.vertexCount(), 0);
    for (VertexIndex start : segment.vertices) {
        std::vector<VertexIndex> set{start};
        std::int64_t cost = g.bytes(start);
        taken[start] = 1;
        for (std::size_t head = 0; head < set.size() && cost <= limit; ++head)
            for (auto list : {g.predecessors(set[head]), g.successors(set[head])})
                for (VertexIndex w : list)
                    if (inside[w] && !taken[w] && cost <= limit) {
                        taken[w] = 1;
                        set.push_back(w);
                        cost += g.bytes(w);
                    }
        for (VertexIndex v : set)
            taken[v] = 0;
        if (cost > limit)
            added += pool.add(std::move(set), cost) ? 1 : 0;
    }
    return added;
}

// A cheap warm start: cut the topological order greedily into runs of at most T bytes, for
// every interval boundary T, and keep the best plan (valid in the general model).
std::vector<VertexIndex> greedyRuns(const Graph& g, const std::vector<std::int64_t>& thresholds, std::int64_t& best)
{
    std::vector<VertexIndex> bestSet;
    best = evaluate(g, {}).objective;
    for (std::int64_t t : thresholds) {
        std::vector<VertexIndex> set;
        std::int64_t run = 0;
        for (VertexIndex v : g.topologicalOrder()) {
            if (run + g.bytes(v) > t) {
                set.push_back(v);
                run = 0;
            } else {
                run += g.bytes(v);
            }
        }
        const std::int64_t objective = evaluate(g, set).objective;
        if (objective < best) {
            best = objective;
            bestSet = std::move(set);
        }
    }
    return bestSet;
}

// Interval boundaries for the max-segment term T: 0, then geometric steps of 1.25 from the
// smallest positive vertex size up to the total size.
std::vector<std::int64_t> boundaries(const Graph& g)
{
    std::int64_t smallest = 0;
    for (const Vertex& v : g.vertices())
        if (v.bytes > 0 && (smallest == 0 || v.bytes < smallest))
            smallest = v.bytes;
    std::vector<std::int64_t> out{0};
    for (double t = std::max<std::int64_t>(smallest, 1); t < g.totalBytes(); t = std::ceil(t * 1.25))
        out.push_back(static_cast<std::int64_t>(t));
    out.push_back(std::max<std::int64_t>(g.totalBytes(), 1));
    return out;
}

}  // namespace

std::vector<OptionSpec> OptimalSolver::options() const
{
    return {{"time-limit", "60", "seconds in all; at the limit the best plan and the proven gap are reported"},
            {"warm-start", "feng-acg,checkpoint-all",
             "solvers (by registry name) whose plans start the search; unknown names are skipped"}};
}

Plan OptimalSolver::solve(const Graph& graph, const SolverOptions& options) const
{
    std::vector<Plan> starts;
    std::stringstream names(options.text("warm-start", "feng-acg,checkpoint-all"));
    for (std::string name; std::getline(names, name, ',');) {
        const Solver* s = findSolver(name);
        if (!s || s == this)
            continue;
        try {
            starts.push_back(s->solve(graph, {}));
        } catch (const SolverError&) {
        }
    }
    return solveFrom(graph, options, starts);
}

// Method (docs/THEORY.md "## optimal"): split the range of the max term T into intervals
// [lo, hi]. Within one interval the problem is the MILP
//     min  sum_v b_v x_v + T,   lo <= T <= hi,
//     sum_{v in C} x_v >= 1                         for pooled connected C with b(C) > hi,
//     T + (b(C) - lo) sum_{v in C} x_v >= b(C)      for pooled connected C with lo < b(C) <= hi,
// a relaxation of "every segment costs at most T" that is exact once the pool holds a violated
// set for every too-expensive segment. Each round solves it on CBC, evaluates the plan with
// evaluate() and adds connected sets from segments costing more than T (row generation); the
// round whose plan satisfies all segments proves the interval's optimum. Intervals whose lower
// end cannot beat the incumbent are skipped; CBC's cutoff prunes the rest.
Plan OptimalSolver::solveFrom(const Graph& graph, const SolverOptions& options, const std::vector<Plan>& warmStarts) const
{
    using Clock = std::chrono::steady_clock;
    const auto deadline = Clock::now() + std::chrono::duration<double>(options.number("time-limit", 60));
    auto remaining = [&deadline] { return std::chrono::duration<double>(deadline - Clock::now()).count(); };
    const int n = graph.vertexCount();
    const std::vector<std::int64_t> bounds = boundaries(graph);
    const std::int64_t forced = graph.bytes(graph.source()) + graph.bytes(graph.sink());

    std::int64_t greedyObjective = 0;
    PlanEvaluation best = evaluate(graph, greedyRuns(graph, bounds, greedyObjective));
    std::string startedFrom = "greedy runs";
    for (const Plan& p : warmStarts) {
        PlanEvaluation e = evaluate(graph, p.checkpoints());
        if (e.objective < best.objective) {
            best = std::move(e);
            startedFrom = p.solver;
        }
    }
    const std::int64_t startObjective = best.objective;

    CutPool pool;
    for (VertexIndex v = 0; v < n; ++v)
        pool.add({v}, graph.bytes(v));
    bool timedOut = false;
    double openBound = static_cast<double>(best.objective);  // lower bound of what is left open
    int rounds = 0, cbcCalls = 0;
    for (std::size_t iv = 0; iv + 1 < bounds.size() && !timedOut; ++iv) {
        const double lo = static_cast<double>(iv == 0 ? 0 : bounds[iv]), hi = static_cast<double>(bounds[iv + 1]);
        if (lo + forced >= best.objective)
            break;  // intervals ascend: no later one can improve either
        for (;;) {
            options.checkCancelled();
            if (remaining() <= 0) {
                timedOut = true;
                openBound = lo + forced;
                break;
            }
            MilpModel m;
            std::vector<int> x(n);
            for (VertexIndex v = 0; v < n; ++v)
                x[v] = m.addBinary(static_cast<double>(graph.bytes(v)));
            m.fix(x[graph.source()], 1);
            m.fix(x[graph.sink()], 1);
            const int t = m.addContinuous(lo, hi, 1.0);
            for (const ConnectedSet& c : pool.sets()) {
                if (c.cost <= lo)
                    continue;
                std::vector<MilpModel::Term> row;
                const double coefficient = c.cost > hi ? 1.0 : static_cast<double>(c.cost) - lo;
                for (VertexIndex v : c.vertices)
                    row.push_back({x[v], coefficient});
                if (c.cost > hi) {
                    m.addRow(row, 'G', 1);
                } else {
                    row.push_back({t, 1});
                    m.addRow(row, 'G', static_cast<double>(c.cost));
                }
            }
            if (best.maxSegmentCost <= hi) {
                std::vector<double> start(m.columnCount(), 0);
                for (VertexIndex v : best.checkpoints)
                    start[x[v]] = 1;
                start[t] = std::max(lo, static_cast<double>(best.maxSegmentCost));
                m.setStart(std::move(start));
            }
            MilpLimits limits;
            limits.seconds = remaining();
            limits.cutoff = best.objective - 0.5;
            limits.integralObjective = true;
            limits.cancel = options.cancel;
            const double incumbent = static_cast<double>(best.objective);
            if (options.milpProgress)
                limits.progress = [&options, incumbent, lo, forced](const MilpProgress& p) {
                    options.milpProgress({std::min(incumbent, p.incumbent),
                                          std::min(incumbent, std::max(p.bound, lo + forced)), p.seconds});
                };
            const MilpResult r = m.solve(limits);
            ++cbcCalls;
            if (r.status == MilpStatus::Cancelled)
                throw SolverCancelled();
            if (r.status == MilpStatus::Failed)
                throw SolverError("CBC failed: " + r.message);
            if (r.status == MilpStatus::Infeasible)
                break;  // nothing in this interval beats the incumbent
            if (!r.hasSolution()) {
                timedOut = true;
                openBound = std::max(lo + forced, r.bound);
                break;
            }
            std::vector<VertexIndex> chosen;
            for (VertexIndex v = 0; v < n; ++v)
                if (r.values[x[v]] > 0.5)
                    chosen.push_back(v);
            PlanEvaluation e = evaluate(graph, chosen);
            if (e.objective < best.objective)
                best = e;
            const double tValue = r.values[t];
            if (e.maxSegmentCost <= tValue + 0.5) {
                if (r.status != MilpStatus::Optimal) {
                    timedOut = true;
                    openBound = std::max(lo + forced, r.bound);
                }
                break;
            }
            ++rounds;
            for (const Segment& s : e.segments)
                if (s.cost > tValue + 0.5)
                    separate(graph, s, tValue, pool);
        }
        if (options.milpProgress && !timedOut)
            options.milpProgress({static_cast<double>(best.objective),
                                  std::min<double>(best.objective, hi + forced), 0});
    }

    Plan plan = makePlan(graph, *this, options, best.checkpoints);
    plan.provenOptimal = !timedOut;
    plan.lowerBound = timedOut ? std::min<double>(openBound, best.objective) : best.objective;
    plan.notes.push_back("started from " + startedFrom + " (objective " + std::to_string(startObjective) + ")");
    plan.notes.push_back(std::to_string(cbcCalls) + " CBC solves, " + std::to_string(rounds) +
                         " row-generation rounds, " + std::to_string(pool.sets().size()) + " connected sets");
    if (timedOut)
        plan.notes.push_back("time limit reached: proven lower bound " + std::to_string(*plan.lowerBound) + ", gap " +
                             std::to_string(100.0 * (best.objective - *plan.lowerBound) / std::max<double>(1, best.objective)) + "%");
    else
        plan.notes.push_back("proven optimal over every checkpoint set");
    if (!plan.evaluation.isISPlan)
        plan.notes.push_back("not an IS plan: " + plan.evaluation.whyNotIS);
    return plan;
}

}  // namespace ckpt
