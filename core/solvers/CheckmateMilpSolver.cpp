#include "solvers/CheckmateMilpSolver.h"

#include "theory/TrainingGraph.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>

namespace ckpt {

namespace {

// A time limit as the user wrote it ("60", "0.5"), not std::to_string's "60.000000".
std::string seconds(double value)
{
    char text[32];
    std::snprintf(text, sizeof text, "%g", value);
    return text;
}

// The MILP's columns. Bytes enter in `unit`s so that CBC's coefficients stay moderate.
struct CheckmateColumns {
    struct Free {
        int i, k, column;
    };
    std::vector<std::vector<int>> r, s, u;  // r[t][k], s[t][i] (i < t), u[t][k], -1 where absent
    std::vector<std::vector<Free>> free;    // per stage
    int peak = -1;                          // MinMemory's objective
};

double unitFor(const StageGraph& g, std::int64_t fixedBytes)
{
    std::int64_t most = fixedBytes;
    for (std::int64_t b : g.bytes)
        most = std::max(most, b);
    return most > (std::int64_t{1} << 24) ? double(1 << 20) : 1.0;
}

// nullopt when `stop` said so (it is asked once per stage: the model of a 2000-node training graph
// has millions of columns and takes longer to build than a short time limit).
std::optional<CheckmateColumns> buildModel(MilpModel& m, const StageGraph& g, const CheckmateSettings& settings,
                                           double unit, double forwardCost, double backwardCost,
                                           const std::function<bool()>& stop)
{
    const int n = g.size();
    CheckmateColumns c;
    c.r.assign(n, std::vector<int>(n, -1));
    c.s = c.r;
    c.u = c.r;
    c.free.resize(n);
    const bool minCompute = settings.mode == CheckmateSettings::Mode::MinCompute;
    for (int t = 0; t < n; ++t) {
        if (stop())
            return std::nullopt;
        for (int k = 0; k <= t; ++k) {
            c.r[t][k] = m.addBinary(minCompute ? g.cost[k] : 0.0);
            if (k == t)
                m.fix(c.r[t][k], 1);  // (1d)
            if (k < t)
                c.s[t][k] = m.addBinary(0);
        }
    }
    if (!minCompute)
        c.peak = m.addContinuous(0, 1e30, 1.0);
    const double budget = minCompute ? settings.budget / unit : 1e30;
    for (int t = 0; t < n; ++t)
        for (int k = 0; k <= t; ++k)
            c.u[t][k] = m.addContinuous(0, budget, 0);  // (8): U <= M_budget
    for (int t = 0; t < n; ++t)
        for (int k = 0; k <= t; ++k)
            for (int i : g.deps[k])
                c.free[t].push_back({i, k, m.addBinary(0)});

    for (int t = 0; t < n; ++t) {
        if (stop())
            return std::nullopt;
        for (int j = 0; j <= t; ++j)
            for (int i : g.deps[j])  // (1b) R[t][j] <= R[t][i] + S[t][i]
                m.addRow({{c.r[t][j], 1}, {c.r[t][i], -1}, {c.s[t][i], -1}}, 'L', 0);
        for (int i = 0; t > 0 && i < t; ++i) {  // (1c) S[t][i] <= R[t-1][i] + S[t-1][i]
            std::vector<MilpModel::Term> row{{c.s[t][i], 1}, {c.r[t - 1][i], -1}};
            if (i < t - 1)
                row.push_back({c.s[t - 1][i], -1});
            m.addRow(row, 'L', 0);
        }
        // (2), (3), (4) with FREE[t][k][k] = 0 (§4.6): U[t][k] - U[t][k-1] + sum M_i FREE[t][i][k-1] - M_k R[t][k] = 0
        std::vector<MilpModel::Term> first{{c.u[t][0], 1}, {c.r[t][0], -g.bytes[0] / unit}};
        for (int i = 0; i < t; ++i)
            first.push_back({c.s[t][i], -g.bytes[i] / unit});
        m.addRow(first, 'E', settings.fixedBytes / unit);
        std::size_t f = 0;
        for (int k = 1; k <= t; ++k) {
            std::vector<MilpModel::Term> row{{c.u[t][k], 1}, {c.u[t][k - 1], -1}, {c.r[t][k], -g.bytes[k] / unit}};
            for (; f < c.free[t].size() && c.free[t][f].k == k - 1; ++f)
                row.push_back({c.free[t][f].column, g.bytes[c.free[t][f].i] / unit});
            m.addRow(row, 'E', 0);
        }
        // (6), (7b), (7c): FREE = 1 exactly when num_hazards = 0, where
        // num_hazards = 1 - R[t][k] + S[t+1][i] + sum_{j in USERS[i], k < j <= t} R[t][j].
        for (const auto& fr : c.free[t]) {
            std::vector<MilpModel::Term> hazards{{c.r[t][fr.k], -1}};
            if (t + 1 < n)
                hazards.push_back({c.s[t + 1][fr.i], 1});
            for (int j : g.users[fr.i])
                if (j > fr.k && j <= t)
                    hazards.push_back({c.r[t][j], 1});
            const double kappa = 1.0 + static_cast<double>(hazards.size());
            auto b = hazards;  // (7b) 1 - FREE <= hazards  <=>  FREE + hazards_without_1 >= 0
            b.push_back({fr.column, 1});
            m.addRow(b, 'G', 0);
            auto cc = hazards;  // (7c) kappa (1 - FREE) >= hazards  <=>  kappa FREE + hazards_without_1 <= kappa - 1
            cc.push_back({fr.column, kappa});
            m.addRow(cc, 'L', kappa - 1);
        }
        if (c.peak >= 0)
            for (int k = 0; k <= t; ++k)
                m.addRow({{c.u[t][k], 1}, {c.peak, -1}}, 'L', 0);
    }
    if (!minCompute) {  // Eq. 9: at most one extra forward pass
        std::vector<MilpModel::Term> cost;
        for (int t = 0; t < n; ++t)
            for (int k = 0; k <= t; ++k)
                if (g.cost[k] != 0)
                    cost.push_back({c.r[t][k], g.cost[k]});
        m.addRow(cost, 'L', 2 * forwardCost + backwardCost + 1e-6);
    }
    return c;
}

// A full MILP assignment for a known schedule (the MIP start): FREE from Eq. 5, U from Eq. 2-3.
std::vector<double> startFrom(const MilpModel& m, const CheckmateColumns& c, const StageGraph& g,
                              const StageSchedule& s, double unit)
{
    const int n = g.size();
    std::vector<double> x(m.columnCount(), 0);
    double peak = 0;
    const std::vector<char> none(n, 0);
    for (int t = 0; t < n; ++t) {
        const auto& next = t + 1 < n ? s.S[t + 1] : none;
        for (int k = 0; k <= t; ++k) {
            x[c.r[t][k]] = s.R[t][k];
            if (k < t)
                x[c.s[t][k]] = s.S[t][k];
        }
        for (const auto& fr : c.free[t]) {
            bool hazard = !s.R[t][fr.k] || next[fr.i];
            for (int j : g.users[fr.i])
                hazard = hazard || (j > fr.k && j <= t && s.R[t][j]);
            x[fr.column] = hazard ? 0 : 1;
        }
        double u = s.fixedBytes / unit;
        for (int i = 0; i < t; ++i)
            u += s.S[t][i] * g.bytes[i] / unit;
        std::size_t f = 0;
        for (int k = 0; k <= t; ++k) {
            for (; k > 0 && f < c.free[t].size() && c.free[t][f].k == k - 1; ++f)
                u -= x[c.free[t][f].column] * g.bytes[c.free[t][f].i] / unit;
            u += s.R[t][k] * g.bytes[k] / unit;
            x[c.u[t][k]] = u;
            peak = std::max(peak, u);
        }
    }
    if (c.peak >= 0)
        x[c.peak] = peak;
    return x;
}

StageMatrix readMatrix(const std::vector<std::vector<int>>& columns, const std::vector<double>& x)
{
    StageMatrix out(columns.size(), std::vector<char>(columns.size(), 0));
    for (std::size_t t = 0; t < columns.size(); ++t)
        for (std::size_t k = 0; k < columns.size(); ++k)
            out[t][k] = columns[t][k] >= 0 && x[columns[t][k]] > 0.5;
    return out;
}

// The limit (or cancel) came before CBC could start: the best baseline schedule found so far, if
// any, judged against the trivial bound (`objective` and `bound` in the outcome's units).
CheckmateOutcome stoppedBeforeSolving(const CheckmateSettings& settings, std::optional<StageSchedule> start,
                                      double objective, double bound, int stages)
{
    CheckmateOutcome out;
    if (settings.cancel && settings.cancel->load()) {
        out.status = MilpStatus::Cancelled;
        return out;
    }
    out.bound = bound;
    out.message = "the time limit of " + seconds(settings.seconds) + " s ran out before CBC could start (MIP start and model of " +
                  std::to_string(stages) + " stages)" + (start ? "; this is the best baseline schedule" : "");
    out.status = start ? MilpStatus::Feasible : MilpStatus::NoSolution;
    if (start)
        out.gap = std::max(0.0, (objective - bound) / std::max(std::abs(objective), 1e-9));
    out.schedule = std::move(start);
    return out;
}

}  // namespace

CheckmateOutcome solveCheckmate(const Graph& training, const CheckmateSettings& settings)
{
    const auto started = std::chrono::steady_clock::now();
    const auto deadline = started + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                        std::chrono::duration<double>(std::max(0.0, settings.seconds)));
    const std::function<bool()> stop = [&] {
        return (settings.cancel && settings.cancel->load()) || std::chrono::steady_clock::now() >= deadline;
    };
    const StageGraph g(training);
    const int n = g.size();
    const bool minCompute = settings.mode == CheckmateSettings::Mode::MinCompute;
    double forwardCost = 0, backwardCost = 0;
    for (int k = 0; k < n; ++k)
        (training.vertex(g.vertex[k]).backward ? backwardCost : forwardCost) += g.cost[k];
    const double unit = unitFor(g, settings.fixedBytes);

    CheckmateOutcome out;
    // The trivial bounds: each node is computed at least once (R[t][t] = 1), and U[t][t] holds
    // node t with all its inputs. A budget below the latter is infeasible without asking CBC,
    // which on a large model could not prove it within the time limit.
    const std::int64_t least = leastPeak(g, settings.fixedBytes);
    if (minCompute && settings.budget < least) {
        out.status = MilpStatus::Infeasible;
        out.message = "no schedule fits in " + std::to_string(settings.budget) + " bytes: some node with its inputs" +
                      (settings.fixedBytes ? " and the fixed overhead" : "") + " needs " + std::to_string(least) +
                      " bytes";
        return out;
    }
    const double trivialBound = minCompute ? forwardCost + backwardCost : least / unit;

    // MIP start: the cheapest baseline schedule that fits (002 §5.1.1): keep everything, only
    // gradients, or gradients plus every s-th forward node (a linearized Chen-style stride). On
    // models too large for CBC's root LP within the time limit it is the answer.
    std::vector<std::vector<char>> keeps{std::vector<char>(n, 1)};
    std::vector<int> forwardNodes;
    for (int k = 0; k < n; ++k)
        if (!training.vertex(g.vertex[k]).backward)
            forwardNodes.push_back(k);
    for (std::size_t stride = 1; stride <= forwardNodes.size() + 1; ++stride) {
        std::vector<char> keep(n, 0);
        for (int k = 0; k < n; ++k)
            keep[k] = training.vertex(g.vertex[k]).backward;
        for (std::size_t f = stride - 1; stride <= forwardNodes.size() && f < forwardNodes.size(); f += stride)
            keep[forwardNodes[f]] = 1;
        keeps.push_back(std::move(keep));
    }
    std::optional<StageSchedule> start;
    std::int64_t startPeak = 0;
    auto meetsTrivialBound = [&] {
        return start && minCompute && start->cost <= trivialBound + 1e-9 * std::max(1.0, trivialBound);
    };
    for (const auto& keep : keeps) {
        if (stop())
            break;
        // Judged on R and S; only a new best is built and replayed (on 2000 nodes that takes seconds).
        // Each of these steps is O(n^2): the limit is checked between them, not only per candidate.
        KeptMatrices candidate = keptMatrices(g, keep);
        if (stop())
            break;
        const std::int64_t peak = modelPeak(g, candidate.R, candidate.S, settings.fixedBytes);
        const bool fits = minCompute ? peak <= settings.budget : candidate.cost <= 2 * forwardCost + backwardCost + 1e-6;
        const bool better = !start || (minCompute ? candidate.cost < start->cost : peak < startPeak);
        if (fits && better && !stop()) {
            start = makeStageSchedule(g, training, std::move(candidate.R), std::move(candidate.S), settings.fixedBytes);
            startPeak = peak;
        }
        if (meetsTrivialBound())
            break;
    }
    // A start that meets the trivial bound (checkpoint-all within a loose budget) is optimal.
    if (meetsTrivialBound()) {
        out.status = MilpStatus::Optimal;
        out.bound = start->cost;
        out.schedule = std::move(start);
        return out;
    }
    MilpModel m;
    const std::optional<CheckmateColumns> c =
        stop() ? std::nullopt : buildModel(m, g, settings, unit, forwardCost, backwardCost, stop);
    if (!c)
        return stoppedBeforeSolving(settings, std::move(start), minCompute && start ? start->cost : double(startPeak),
                                    minCompute ? trivialBound : double(least), n);
    out.modelBuilt = true;
    out.variables = m.columnCount();
    out.rows = m.rowCount();
    if (start)
        m.setStart(startFrom(m, *c, g, *start, unit));

    MilpLimits limits;
    limits.seconds = settings.seconds - std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    limits.cancel = settings.cancel;
    limits.progress = settings.progress;
    const MilpResult r = m.solve(limits);
    out.status = r.status;
    out.message = r.message;
    // The callers (the solver, the budget sweep) show this message when there is no schedule.
    if (out.message.empty() && r.status == MilpStatus::Infeasible)
        out.message = "no schedule fits in a budget of " + std::to_string(settings.budget) + " bytes (fixed overhead " +
                      std::to_string(settings.fixedBytes) + " bytes included)";
    else if (out.message.empty() && r.status == MilpStatus::NoSolution)
        out.message = "CBC found no schedule within the time limit of " + seconds(settings.seconds) + " s";
    out.lpBound = r.bound > -std::numeric_limits<double>::infinity();
    const double bound = r.status == MilpStatus::Optimal ? r.objective : std::max(r.bound, trivialBound);
    out.bound = bound * (minCompute ? 1.0 : unit);
    out.gap = r.hasSolution() ? std::max(0.0, (r.objective - bound) / std::max(std::abs(r.objective), 1e-9)) : 0.0;
    if (r.hasSolution()) {
        StageSchedule s = makeStageSchedule(g, training, readMatrix(c->r, r.values), readMatrix(c->s, r.values),
                                            settings.fixedBytes);
        const ReplayResult check = replay(g, s, minCompute ? std::optional<std::int64_t>(settings.budget) : std::nullopt);
        if (!check.ok) {
            out.status = MilpStatus::Failed;
            out.message = "the MILP's schedule does not replay: " + check.error;
            return out;
        }
        out.schedule = std::move(s);
    }
    return out;
}

std::string statusText(const CheckmateOutcome& outcome)
{
    if (outcome.status == MilpStatus::Optimal)
        return "optimal";
    if (!outcome.schedule)
        return toString(outcome.status);
    char gap[32];
    std::snprintf(gap, sizeof gap, "%.1f%%", outcome.gap * 100);
    if (outcome.lpBound)
        return std::string("time limit (gap ") + gap + ")";
    return std::string(outcome.modelBuilt ? "time limit (root LP unfinished" : "time limit (MILP not built") +
           ", gap <= " + gap + " to the trivial bound)";
}

std::vector<OptionSpec> CheckmateMilpSolver::options() const
{
    return {{"mode", "memory",
             "compute: least recomputation within --budget; memory: least peak with at most one extra forward "
             "pass (Eq. 9)"},
            {"budget", "", "memory budget in bytes, fixed overhead included (mode compute)"},
            {"time-limit", "60", "seconds CBC may search"},
            {"fixed-bytes", "", "Eq. 2's constant overhead (default: 2 x the graph's parameter_bytes, else 0)"}};
}

Plan CheckmateMilpSolver::solve(const Graph& graph, const SolverOptions& options) const
{
    const Graph training = asTrainingGraph(graph);
    CheckmateSettings settings;
    const std::string mode = options.text("mode", "memory");
    settings.mode = mode == "compute" ? CheckmateSettings::Mode::MinCompute : CheckmateSettings::Mode::MinMemory;
    if (mode != "compute" && mode != "memory")
        throw SolverError("option mode must be \"compute\" or \"memory\", got \"" + mode + "\"");
    settings.fixedBytes = options.integer("fixed-bytes", fixedOverheadBytes(graph));
    if (settings.mode == CheckmateSettings::Mode::MinCompute) {
        if (options.text("budget", "").empty())
            throw SolverError("checkmate-milp in mode compute needs a memory budget (option budget, bytes)");
        settings.budget = options.integer("budget", 0);
    }
    settings.seconds = options.number("time-limit", 60);
    settings.cancel = options.cancel;
    settings.progress = options.milpProgress;
    const CheckmateOutcome out = solveCheckmate(training, settings);
    if (out.status == MilpStatus::Cancelled)
        throw SolverCancelled();
    if (!out.schedule) {
        if (out.status == MilpStatus::Infeasible || out.status == MilpStatus::NoSolution)
            throw SolverError(out.message);
        throw SolverError("CBC failed: " + (out.message.empty() ? toString(out.status) : out.message));
    }

    // The forward values kept into some backward stage are the plan's checkpoints.
    const StageSchedule& s = *out.schedule;
    const int n = static_cast<int>(s.nodeIds.size());
    std::vector<VertexIndex> checkpoints;
    for (int i = 0; i < n; ++i) {
        const auto v = graph.find(s.nodeIds[i]);
        if (!v || graph.vertex(*v).backward)
            continue;
        for (int t = i + 1; t < n; ++t)
            if (s.S[t][i] && training.vertex(*training.find(s.nodeIds[t])).backward) {
                checkpoints.push_back(*v);
                break;
            }
    }
    Plan plan = makePlan(graph, *this, options, std::move(checkpoints));
    double baseline = 0;
    for (VertexIndex v = 0; v < training.vertexCount(); ++v)
        baseline += computeCost(training, v);
    plan.provenOptimal = out.status == MilpStatus::Optimal;
    plan.lowerBound = out.bound;
    plan.notes.push_back("Checkmate MILP (" + mode + " mode) on " + std::to_string(n) + " training nodes" +
                         (isTrainingGraph(graph) ? "" : " (backward nodes derived)") + ": " +
                         std::to_string(out.variables) + " variables, " + std::to_string(out.rows) + " rows");
    plan.notes.push_back("status: " + statusText(out) + (out.message.empty() ? "" : "; " + out.message));
    plan.notes.push_back("compute " + std::to_string(s.cost) + " (overhead x" + std::to_string(s.cost / baseline) +
                         "), peak " + std::to_string(s.peakBytes) + " bytes including fixed overhead " +
                         std::to_string(settings.fixedBytes) + " bytes (2 x parameters, Eq. 2)");
    plan.stageSchedule = s;
    return plan;
}

}  // namespace ckpt
