#include "solvers/OptimalSolver.h"

#include "memory/OptimizerStep.h"
#include "memory/PlanMemory.h"
#include "milp/MilpModel.h"
#include "solvers/FrontierDp.h"
#include "solvers/PyTorchPeakSearch.h"
#include "solvers/SolverRegistry.h"
#include "theory/RecomputeCost.h"
#include "util/Units.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <set>
#include <cstdio>
#include <optional>
#include <sstream>
#include <thread>

namespace ckpt {

namespace {

// How far a plan's objective may be above what is proven least, in % of the objective: "4.25%".
std::string gapPercent(double objective, double lowerBound)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.2f%%", 100.0 * (objective - lowerBound) / std::max(1.0, objective));
    return text;
}

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

// Separation at a fractional LP point: from every vertex grow a connected set, always taking the
// neighbour with the smallest x next, until it costs more than T; keep it when the point
// violates its row (see solveFrom for the two row forms).
int separateFractional(const Graph& g, const std::vector<double>& x, double tValue, double lo, double hi, CutPool& pool)
{
    const int n = g.vertexCount();
    int added = 0;
    std::vector<char> taken(n, 0);
    for (VertexIndex start = 0; start < n; ++start) {
        if (x[start] > 0.999)
            continue;
        std::vector<VertexIndex> set;
        std::vector<std::pair<double, VertexIndex>> frontier{{x[start], start}};
        std::int64_t cost = 0;
        double xSum = 0;
        while (!frontier.empty() && cost <= tValue) {
            auto it = std::min_element(frontier.begin(), frontier.end());
            const VertexIndex v = it->second;
            frontier.erase(it);
            if (taken[v])
                continue;
            taken[v] = 1;
            set.push_back(v);
            cost += g.bytes(v);
            xSum += x[v];
            for (auto list : {g.predecessors(v), g.successors(v)})
                for (VertexIndex w : list)
                    if (!taken[w] && x[w] < 0.999)
                        frontier.push_back({x[w], w});
        }
        for (VertexIndex v : set)
            taken[v] = 0;
        if (cost <= tValue)
            continue;
        const double c = static_cast<double>(cost);
        const bool violated = c > hi ? xSum < 1 - 1e-6 : tValue + (c - lo) * xSum < c - 1e-6 * c;
        if (violated)
            added += pool.add(std::move(set), cost) ? 1 : 0;
    }
    return added;
}

// The interval's MILP over the pooled sets (see solveFrom); x[v] and t are its columns.
MilpModel intervalModel(const Graph& g, const CutPool& pool, double lo, double hi, std::vector<int>& x, int& t)
{
    MilpModel m;
    x.resize(g.vertexCount());
    for (VertexIndex v = 0; v < g.vertexCount(); ++v)
        x[v] = m.addBinary(static_cast<double>(g.bytes(v)));
    m.fix(x[g.source()], 1);
    m.fix(x[g.sink()], 1);
    t = m.addContinuous(lo, hi, 1.0);
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
    return m;
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

// Repair (an incumbent heuristic): a plan whose segments exceed T gets extra checkpoints that cut
// each such segment, in topological order, into runs of at most T bytes.
std::vector<VertexIndex> repaired(const PlanEvaluation& plan, double t, const Graph& g)
{
    std::vector<VertexIndex> out = plan.checkpoints;
    for (const Segment& s : plan.segments) {
        if (s.cost <= t)
            continue;
        std::int64_t run = 0;
        for (VertexIndex v : s.vertices) {
            if (run + g.bytes(v) > t) {
                out.push_back(v);
                run = 0;
            } else {
                run += g.bytes(v);
            }
        }
    }
    return out;
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
    for (double t = std::max<std::int64_t>(smallest, 1); t < g.totalBytes(); t = std::ceil(t * 1.08))
        out.push_back(static_cast<std::int64_t>(t));
    out.push_back(std::max<std::int64_t>(g.totalBytes(), 1));
    return out;
}

using Clock = std::chrono::steady_clock;

// How the search ended: whether `best` is proven optimal, the proven lower bound, and what ran.
struct Outcome {
    bool proven = false;
    double lowerBound = 0;
    std::string method;  // what ran, with its statistics
    std::string by;      // its short name
};

// The fallback for wide frontiers (docs/THEORY.md "## optimal"): split the range of the max term T into intervals
// [lo, hi]. Within one interval the problem is the MILP
//     min  sum_v b_v x_v + T,   lo <= T <= hi,
//     sum_{v in C} x_v >= 1                         for pooled connected C with b(C) > hi,
//     T + (b(C) - lo) sum_{v in C} x_v >= b(C)      for pooled connected C with lo < b(C) <= hi,
// a relaxation of "every segment costs at most T" that is exact once the pool holds a violated
// set for every too-expensive segment. Phase 1 strengthens the pool on each interval's LP
// relaxation (cheap) and records its LP value, a lower bound for every plan whose max segment
// lies in the interval. Phase 2 visits the intervals by ascending LP bound: each round solves
// the MILP on CBC (cutoff: the incumbent), evaluates the plans CBC kept with evaluate() and adds
// connected sets from segments costing more than T (row generation); a round whose best plan
// satisfies every segment and is proven optimal closes the interval. Intervals whose bound
// reaches the incumbent close at once, so the smallest open bound is always a proven lower bound.
Outcome rowGeneration(const Graph& graph, const SolverOptions& options, Clock::time_point deadline, PlanEvaluation& best)
{
    auto remaining = [&deadline] { return std::chrono::duration<double>(deadline - Clock::now()).count(); };
    const int n = graph.vertexCount();
    const std::vector<std::int64_t> bounds = boundaries(graph);
    const std::int64_t forced = graph.bytes(graph.source()) + graph.bytes(graph.sink());

    auto report = [&options, &best](double bound) {
        if (options.milpProgress)
            options.milpProgress({static_cast<double>(best.objective), std::min<double>(bound, best.objective), 0});
    };

    CutPool pool;
    for (VertexIndex v = 0; v < n; ++v)
        pool.add({v}, graph.bytes(v));
    int rounds = 0, cbcCalls = 0, lpSolves = 0;

    struct Interval {
        double lo = 0, hi = 0, bound = 0;
    };
    std::vector<Interval> intervals;
    for (std::size_t iv = 0; iv + 1 < bounds.size(); ++iv) {
        const double lo = static_cast<double>(iv == 0 ? 0 : bounds[iv]), hi = static_cast<double>(bounds[iv + 1]);
        intervals.push_back({lo, hi, lo + forced});
    }
    auto openBound = [&intervals, &best](std::size_t from) {
        double b = static_cast<double>(best.objective);
        for (std::size_t i = from; i < intervals.size(); ++i)
            b = std::min(b, intervals[i].bound);
        return b;
    };

    // Phase 1: LP bounds and a pool that is tight on every interval's LP relaxation. It gets at
    // most 40% of the time; intervals it does not reach keep their trivial bound lo + forced.
    bool timedOut = false;
    const double phase1Until = 0.6 * remaining();
    for (Interval& in : intervals) {
        for (int lpRound = 0; lpRound < 200 && in.bound < best.objective - 0.5; ++lpRound) {
            options.checkCancelled();
            if (remaining() <= phase1Until)
                break;
            std::vector<int> x;
            int t = 0;
            MilpLimits limits;
            limits.relax = true;
            limits.seconds = remaining();
            const MilpResult lp = intervalModel(graph, pool, in.lo, in.hi, x, t).solve(limits);
            ++lpSolves;
            if (lp.status == MilpStatus::Infeasible) {
                in.bound = static_cast<double>(best.objective);
                break;
            }
            if (!lp.hasSolution())
                break;
            in.bound = std::max(in.bound, lp.objective - 1e-6 * std::abs(lp.objective));
            std::vector<double> xv(n);
            std::vector<VertexIndex> rounded;
            for (VertexIndex v = 0; v < n; ++v) {
                xv[v] = lp.values[x[v]];
                if (xv[v] >= 0.5)
                    rounded.push_back(v);
            }
            // Incumbent heuristic: round the LP point, then repair the segments above T.
            PlanEvaluation fixed =
                evaluate(graph, repaired(evaluate(graph, rounded), std::max(lp.values[t], in.lo), graph));
            if (fixed.objective < best.objective)
                best = std::move(fixed);
            if (separateFractional(graph, xv, lp.values[t], in.lo, in.hi, pool) == 0)
                break;
        }
    }
    std::stable_sort(intervals.begin(), intervals.end(),
                     [](const Interval& a, const Interval& b) { return a.bound < b.bound; });
    report(openBound(0));

    // Phase 2: the MILP with row generation, best bound first.
    std::size_t current = 0;
    for (; current < intervals.size() && !timedOut; ++current) {
        Interval& in = intervals[current];
        double roundSeconds = 1;
        while (in.bound < best.objective - 0.5) {
            options.checkCancelled();
            if (remaining() <= 0) {
                timedOut = true;
                break;
            }
            std::vector<int> x;
            int t = 0;
            MilpModel m = intervalModel(graph, pool, in.lo, in.hi, x, t);
            if (best.maxSegmentCost <= in.hi) {
                std::vector<double> start(m.columnCount(), 0);
                for (VertexIndex v : best.checkpoints)
                    start[x[v]] = 1;
                start[t] = std::max(in.lo, static_cast<double>(best.maxSegmentCost));
                m.setStart(std::move(start));
            }
            MilpLimits limits;
            // Rounds that only need a violated plan stop early; a proof gets more time.
            limits.seconds = std::min(remaining(), roundSeconds);
            limits.cutoff = best.objective - 0.5;
            limits.integralObjective = true;
            limits.cancel = options.cancel;
            const double incumbent = static_cast<double>(best.objective);
            const double floor = in.bound, others = openBound(current + 1);
            if (options.milpProgress)
                limits.progress = [&options, incumbent, floor, others](const MilpProgress& p) {
                    // CBC's incumbent solves the relaxation and may break a segment: not reported.
                    options.milpProgress({incumbent, std::min({incumbent, others, std::max(p.bound, floor)}), p.seconds});
                };
            const MilpResult r = m.solve(limits);
            ++cbcCalls;
            if (r.status == MilpStatus::Cancelled)
                throw SolverCancelled();
            if (r.status == MilpStatus::Failed)
                throw SolverError("CBC failed: " + r.message);
            if (r.status == MilpStatus::Infeasible)
                break;  // nothing in this interval beats the incumbent
            in.bound = std::max(in.bound, r.bound);
            if (!r.hasSolution()) {
                roundSeconds *= 4;
                continue;
            }
            // Every plan CBC kept: evaluate it, and cut off the ones with a segment above T.
            int added = 0;
            bool bestHolds = false;
            for (std::size_t k = 0; k <= r.otherSolutions.size(); ++k) {
                const std::vector<double>& values = k == 0 ? r.values : r.otherSolutions[k - 1];
                std::vector<VertexIndex> chosen;
                for (VertexIndex v = 0; v < n; ++v)
                    if (values[x[v]] > 0.5)
                        chosen.push_back(v);
                PlanEvaluation e = evaluate(graph, chosen);
                const double tValue = values[t];
                if (e.maxSegmentCost <= tValue + 0.5) {
                    bestHolds = bestHolds || k == 0;
                } else {
                    for (const Segment& s : e.segments)
                        if (s.cost > tValue + 0.5)
                            added += separate(graph, s, tValue, pool);
                    PlanEvaluation fixed = evaluate(graph, repaired(e, std::max(tValue, in.lo), graph));
                    if (fixed.objective < best.objective)
                        best = std::move(fixed);
                }
                if (e.objective < best.objective)
                    best = std::move(e);
            }
            if (bestHolds && r.status == MilpStatus::Optimal)
                break;  // the interval's relaxation is exact at its optimum: closed
            ++rounds;
            if (bestHolds || added == 0)
                roundSeconds *= 4;  // the plan holds (or no new rows): CBC must prove it
        }
        if (!timedOut)
            in.bound = static_cast<double>(best.objective);
        report(openBound(current));
    }

    const double lowerBound = timedOut ? openBound(current) : static_cast<double>(best.objective);
    Outcome out;
    out.by = "CBC row generation";
    // Objectives are integers: a bound above objective - 1 proves the objective.
    out.proven = !timedOut || lowerBound >= best.objective - 0.5;
    out.lowerBound = out.proven ? static_cast<double>(best.objective) : std::min<double>(lowerBound, best.objective);
    out.method = "CBC row generation: " + std::to_string(cbcCalls) + " MILP solves, " + std::to_string(lpSolves) +
                 " LP solves, " + std::to_string(rounds) + " row-generation rounds, " +
                 std::to_string(pool.sets().size()) + " connected sets, " + std::to_string(intervals.size()) +
                 " intervals of T";
    return out;
}

// The frontier DP (FrontierDp.h), exact when it finishes. When its labels outgrow the limit or
// it reaches the deadline it returns nullopt if `mayFallBack` (with the reason in `why`; the caller
// runs row generation with the time that is left and the incumbent the DP improved), else the
// incumbent with the DP's bound.
std::optional<Outcome> frontierSearch(const Graph& graph, const SolverOptions& options, const FrontierOrder& order,
                                      Clock::time_point deadline, std::size_t maxLabels, bool mayFallBack,
                                      PlanEvaluation& best, std::string& why)
{
    FrontierDpLimits limits;
    limits.maxLabels = maxLabels;
    limits.deadline = deadline;
    limits.checkCancelled = [&options] { options.checkCancelled(); };
    // Heuristic passes with growing beams first: the exact pass prunes against the incumbent, and
    // a tight one cuts its labels several-fold (Inception-v3: 22.8 s -> 1.0 s).
    const std::int64_t before = best.objective;
    for (std::size_t beam : {16, 64, 256, 1024}) {
        limits.incumbent = best.objective;
        limits.beam = beam;
        const FrontierDpResult r = frontierDp(graph, order, limits);
        if (r.status != FrontierDpResult::Status::Solved)
            break;
        if (r.better)
            best = evaluate(graph, *r.better);
    }
    limits.beam = 0;
    limits.incumbent = best.objective;
    const std::int64_t beamed = best.objective;
    const double incumbent = static_cast<double>(beamed);
    const auto started = Clock::now();
    if (options.milpProgress)
        limits.progress = [&options, incumbent, started](double bound) {
            options.milpProgress({incumbent, bound, std::chrono::duration<double>(Clock::now() - started).count()});
        };
    const FrontierDpResult r = frontierDp(graph, order, limits);
    if (r.status != FrontierDpResult::Status::Solved && mayFallBack) {
        why = "the frontier DP (width " + std::to_string(r.width) + ", incumbent " + std::to_string(beamed) + ") " +
              (r.status == FrontierDpResult::Status::TooLarge
                   ? "kept more than " + std::to_string(maxLabels) + " labels in one step"
                   : "did not finish in its half of the time limit") +
              ": CBC row generation instead";
        return std::nullopt;
    }
    if (r.better)
        best = evaluate(graph, *r.better);
    Outcome out;
    out.by = "frontier DP";
    out.proven = r.status == FrontierDpResult::Status::Solved;
    out.lowerBound = std::min<double>(r.lowerBound, best.objective);
    out.method = "frontier DP over a vertex order of frontier width " + std::to_string(r.width) +
                 ": beam passes took the incumbent from " + std::to_string(before) + " to " +
                 std::to_string(beamed) + ", the exact pass kept " + std::to_string(r.labels) + " labels, at most " +
                 std::to_string(r.peakLabels) + " in one step" +
                 (r.status == FrontierDpResult::Status::TimedOut   ? " (stopped at the time limit)"
                  : r.status == FrontierDpResult::Status::TooLarge ? " (stopped: too many labels)"
                                                                   : "");
    return out;
}

Clock::time_point deadlineOf(const SolverOptions& options, Clock::time_point start)
{
    const std::chrono::duration<double> limit(options.number("time-limit", 60));
    return start + std::chrono::duration_cast<Clock::duration>(limit);
}

// Sets a flag at the deadline or when the caller cancels, for solvers that only poll a flag
// (the warm starts): the time limit holds for them too.
class CancelAtDeadline {
public:
    CancelAtDeadline(Clock::time_point deadline, const std::atomic<bool>* callerCancel)
        : m_watch([this, deadline, callerCancel](const std::stop_token& stop) {
              while (!stop.stop_requested()) {
                  if (Clock::now() >= deadline || (callerCancel && callerCancel->load())) {
                      m_flag = true;
                      return;
                  }
                  std::this_thread::sleep_for(std::chrono::milliseconds(5));
              }
          })
    {
    }
    const std::atomic<bool>& flag() const { return m_flag; }

private:
    std::atomic<bool> m_flag = false;
    std::jthread m_watch;  // last: starts once the flag exists, joined before it goes
};

// solveFrom with a deadline that may have started earlier (solve's warm starts count).
Plan solveUntil(const Solver& solver, const Graph& graph, const SolverOptions& options,
                const std::vector<Plan>& warmStarts, Clock::time_point deadline);

}  // namespace

std::vector<OptionSpec> OptimalSolver::options() const
{
    return {{"time-limit", "60", "seconds in all; at the limit the best plan and the proven gap are reported"},
            {"warm-start", "feng-acg,checkpoint-all",
             "solvers (by registry name) whose plans start the search; unknown names are skipped"},
            {"method", "auto",
             "auto: the frontier DP when the vertex order's frontier is at most max-width wide and its labels stay "
             "under max-labels, CBC row generation otherwise; frontier-dp or milp force one"},
            {"max-width", std::to_string(defaultMaxWidth), "auto: widest frontier the DP is tried on"},
            {"max-labels", std::to_string(defaultMaxLabels),
             "labels one DP step may keep before auto falls back to row generation"},
            {"memory-model", "eq2",
             "eq2: minimise Feng & Huang Eq. 2; pytorch: minimise the pytorch memory model's peak (ckptx simulate "
             "--model pytorch), ties broken by least recompute"},
            {"budget", "",
             "with memory-model=pytorch: bytes (e.g. 20GiB); the least recompute whose pytorch peak fits instead"},
            {"enough", "",
             "with memory-model=pytorch: bytes; stop at the first plan whose pytorch peak is at most this (does any "
             "plan fit?), or prove that none is"},
            {"exact-vertices", std::to_string(PeakSearchSettings{}.exactVertices),
             "memory-model=pytorch: largest count of free vertices branch and bound runs on; above it the local "
             "search's plan and its gap to the lower bound are reported"}};
}

namespace {

// A byte-size option (20GiB, 123456), none where absent.
std::optional<std::int64_t> byteOption(const SolverOptions& options, const std::string& key)
{
    const std::string text = options.text(key, "");
    if (text.empty())
        return std::nullopt;
    const std::optional<std::int64_t> bytes = parseBytes(text);
    if (!bytes)
        throw SolverError("option " + key + " must be a byte size such as 20GiB or 123456, got \"" + text + "\"");
    return bytes;
}

// "recomputing 12.34 % of a forward".
std::string percentOfForward(const Graph& graph, double compute)
{
    char text[64];
    std::snprintf(text, sizeof text, "%.2f %% of a forward", 100 * compute / std::max(1e-300, forwardPassCompute(graph)));
    return text;
}

// Where the search stopped before settling the least recompute, what it is known to be at least
// (PeakSearchResult::recomputeLowerBound), in the plan's options and a note after `unproven`.
void noteRecomputeGap(Plan& plan, const Graph& graph, const PeakSearchResult& found, const std::string& unproven)
{
    if (!found.recomputeLowerBound) {
        plan.notes.push_back(unproven);
        return;
    }
    const double least = *found.recomputeLowerBound;
    plan.options["recompute-lower-bound"] = std::to_string(least / std::max(1e-300, forwardPassCompute(graph)));
    const double points = 100 * (found.best.recomputed - least) / std::max(1e-300, forwardPassCompute(graph));
    char gap[64];
    std::snprintf(gap, sizeof gap, points < 0.005 ? ", gap under 0.01 points" : ", gap %.2f points", points);
    plan.notes.push_back(unproven + ": it is at least " + percentOfForward(graph, least) + gap);
}

}  // namespace

// memory-model=pytorch: the search of PyTorchPeakSearch.h from every fast solver's plan.
Plan OptimalSolver::solvePyTorchPeak(const Graph& graph, const SolverOptions& options) const
{
    PeakSearchSettings settings;
    settings.seconds = options.number("time-limit", 60);
    settings.exactVertices = static_cast<int>(options.integer("exact-vertices", settings.exactVertices));
    settings.budget = byteOption(options, "budget");
    settings.enough = byteOption(options, "enough");
    if (settings.budget && settings.enough)
        throw SolverError("options budget and enough ask two questions: give one");
    std::vector<std::vector<VertexIndex>> starts;
    for (const Solver* s : allSolvers())
        if (s->fast() && s != this) {
            options.checkCancelled();
            try {
                starts.push_back(s->solve(graph, {}).checkpoints());
            } catch (const SolverError&) {
            }
        }
    // P35: where the export measured the optimizer, optimizer.step() peaks on what every plan leaves;
    // a step peak below that buys nothing, so the plan that recomputes least under it is the least
    // iteration peak. Only when none fits there does the step's own peak decide.
    if (!settings.budget && !settings.enough && !starts.empty())
        if (const std::optional<OptimizerMemory> optimizer = measuredOptimizer(graph)) {
            const Plan any = makePlan(graph, *this, options, starts.front());
            const std::int64_t floor =
                optimizerStepBytes(simulatePlanMemory(graph, any.evaluation, MemoryModel::PyTorch, false), *optimizer);
            PeakSearchSettings underFloor = settings;
            underFloor.budget = floor;
            const PeakSearchResult found = searchPyTorchPeak(graph, starts, underFloor, options);
            if (found.fits) {
                Plan plan = makePlan(graph, *this, options, found.best.checkpoints);
                plan.options["pytorch-peak"] = std::to_string(found.best.peak);
                plan.options["optimizer-step"] = std::to_string(floor);
                plan.notes.push_back(found.method + " (" + std::to_string(found.evaluations) + " plans simulated)");
                plan.notes.push_back("the iteration peaks in optimizer.step() (" + optimizer->name + ", measured): " +
                                     formatBytes(floor) + " on what the step leaves, above the step's " +
                                     formatBytes(found.best.peak) + "; no plan lowers it");
                if (found.proven)
                    plan.notes.push_back("proven: no checkpoint set under it recomputes less");
                else
                    noteRecomputeGap(plan, graph, found, "not proven to recompute the least under it (time or size limit)");
                plan.provenOptimal = found.proven;
                return plan;
            }
        }
    const PeakSearchResult found = searchPyTorchPeak(graph, starts, settings, options);
    if (!found.fits)
        throw SolverError("no checkpoint set found whose pytorch-model peak fits the budget of " +
                          formatBytes(*settings.budget) + ": the least found is " + formatBytes(found.best.peak) +
                          (found.proven ? " (every checkpoint set was searched)" : ""));
    Plan plan = makePlan(graph, *this, options, found.best.checkpoints);
    plan.options["pytorch-peak"] = std::to_string(found.best.peak);
    plan.notes.push_back(found.method + " (" + std::to_string(found.evaluations) + " plans simulated)");
    plan.notes.push_back("pytorch-model peak " + formatBytes(found.best.peak) + ", recomputing " +
                         percentOfForward(graph, found.best.recomputed));
    if (settings.budget) {
        if (found.proven)
            plan.notes.push_back("proven: no checkpoint set within the budget recomputes less");
        else
            noteRecomputeGap(plan, graph, found, "not proven to recompute the least within the budget (time or size limit)");
        return plan;
    }
    const bool noneWithinEnough = settings.enough && found.best.peak > *settings.enough;
    if (noneWithinEnough)
        plan.notes.push_back(found.exhausted ? "proven: no checkpoint set has a pytorch-model peak within " +
                                                   formatBytes(*settings.enough)
                                             : "none found within " + formatBytes(*settings.enough) +
                                                   " (time or size limit)");
    // A search that ran out of sets within `enough` has proven the least peak above it.
    const std::int64_t lowerBound =
        noneWithinEnough && found.exhausted ? std::max(found.lowerBound, *settings.enough + 1) : found.lowerBound;
    plan.provenOptimal = found.proven;
    plan.lowerBound = static_cast<double>(lowerBound);
    plan.notes.push_back(found.proven ? "proven: no checkpoint set has a smaller pytorch-model peak"
                                      : "not proven: lower bound " + formatBytes(lowerBound) + " on the peak, gap " +
                                            gapPercent(double(found.best.peak), double(lowerBound)));
    if (found.proven && !found.settled)
        noteRecomputeGap(plan, graph, found,
                         "not proven to recompute the least among the plans of that peak (time or size limit)");
    return plan;
}

Plan OptimalSolver::solve(const Graph& graph, const SolverOptions& options) const
{
    const std::string model = options.text("memory-model", "eq2");
    if (model == "pytorch")
        return solvePyTorchPeak(graph, options);
    if (model != "eq2")
        throw SolverError("optimal: unknown memory-model \"" + model + "\" (eq2 or pytorch)");
    if (!options.text("budget", "").empty())
        throw SolverError("optimal: option budget needs memory-model=pytorch");
    // The time limit counts from here, warm starts included; they get at most half of it.
    const Clock::time_point start = Clock::now();
    const Clock::time_point deadline = deadlineOf(options, start);
    std::vector<Plan> starts;
    std::vector<std::string> stopped;
    {
        const CancelAtDeadline watch(start + (deadline - start) / 2, options.cancel);
        SolverOptions warm;
        warm.cancel = &watch.flag();
        std::stringstream names(options.text("warm-start", "feng-acg,checkpoint-all"));
        for (std::string name; std::getline(names, name, ',');) {
            const Solver* s = findSolver(name);
            if (!s || s == this)
                continue;
            try {
                starts.push_back(s->solve(graph, warm));
            } catch (const SolverError&) {
            } catch (const SolverCancelled&) {
                options.checkCancelled();  // the caller's cancel ends optimal too
                stopped.push_back(name);
            }
        }
    }
    Plan plan = solveUntil(*this, graph, options, starts, deadline);
    for (const std::string& name : stopped)
        plan.notes.push_back("warm start " + name + " stopped at half the time limit");
    return plan;
}

Plan OptimalSolver::solveFrom(const Graph& graph, const SolverOptions& options, const std::vector<Plan>& warmStarts) const
{
    return solveUntil(*this, graph, options, warmStarts, deadlineOf(options, Clock::now()));
}

namespace {

Plan solveUntil(const Solver& solver, const Graph& graph, const SolverOptions& options,
                const std::vector<Plan>& warmStarts, Clock::time_point deadline)
{
    const std::string method = options.text("method", "auto");
    if (method != "auto" && method != "frontier-dp" && method != "milp")
        throw SolverError("optimal: unknown method \"" + method + "\" (auto, frontier-dp or milp)");

    std::int64_t greedyObjective = 0;
    PlanEvaluation best = evaluate(graph, greedyRuns(graph, boundaries(graph), greedyObjective));
    std::string startedFrom = "greedy runs";
    for (const Plan& p : warmStarts) {
        PlanEvaluation e = evaluate(graph, p.checkpoints());
        if (e.objective < best.objective) {
            best = std::move(e);
            startedFrom = p.solver;
        }
    }
    const std::int64_t startObjective = best.objective;

    std::optional<Outcome> outcome;
    std::string fallback;
    if (method != "milp") {
        const FrontierOrder order = frontierOrder(graph);
        const auto maxWidth = options.integer("max-width", OptimalSolver::defaultMaxWidth);
        const auto maxLabels =
            static_cast<std::size_t>(std::max<std::int64_t>(1, options.integer("max-labels", OptimalSolver::defaultMaxLabels)));
        if (method == "frontier-dp" || order.width <= maxWidth) {
            // "auto" gives the DP half the time, so that row generation still gets a fair share.
            const Clock::time_point dpDeadline =
                method == "auto" ? Clock::now() + (deadline - Clock::now()) / 2 : deadline;
            outcome = frontierSearch(graph, options, order, dpDeadline, maxLabels, method == "auto", best, fallback);
        } else {
            fallback = "frontier width " + std::to_string(order.width) + " > " + std::to_string(maxWidth) +
                       ": CBC row generation instead of the frontier DP";
        }
    }
    if (!outcome)
        outcome = rowGeneration(graph, options, deadline, best);

    Plan plan = makePlan(graph, solver, options, best.checkpoints);
    plan.provenOptimal = outcome->proven;
    plan.lowerBound = outcome->lowerBound;
    plan.notes.push_back("started from " + startedFrom + " (objective " + std::to_string(startObjective) + ")");
    if (!fallback.empty())
        plan.notes.push_back(fallback);
    plan.notes.push_back(outcome->method);
    if (!*plan.provenOptimal)
        plan.notes.push_back("not proven optimal (time or label limit): proven lower bound " +
                             std::to_string(*plan.lowerBound) + ", gap " +
                             gapPercent(double(best.objective), *plan.lowerBound));
    else
        plan.notes.push_back("proven optimal over every checkpoint set by the " + outcome->by);
    if (!plan.evaluation.isISPlan)
        plan.notes.push_back("not an IS plan: " + plan.evaluation.whyNotIS);
    return plan;
}

}  // namespace

}  // namespace ckpt
