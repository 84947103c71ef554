// checkmate-milp (002 §4): the MILP's optimum equals an exhaustive search over schedules in the
// same stage model, every solution replays within its budget, and it is never worse than a
// checkpoint baseline at that baseline's own peak. Also: the backward-node derivation rule
// reproduces the published training graphs. ctest: 24 graphs of 6-8 forward nodes (13-17
// training nodes) at 3 budgets; CKPT_LONG=1: 200 graphs at 7 budgets.
#include "TestData.h"

#include "graph/GraphBuilder.h"
#include "io/GraphJson.h"
#include "solvers/BudgetSweep.h"
#include "solvers/CheckmateMilpSolver.h"
#include "solvers/SolverRegistry.h"
#include "theory/TrainingGraph.h"

#include <QtTest>

#include <array>
#include <chrono>
#include <ctime>
#include <functional>
#include <map>
#include <queue>
#include <random>
#include <set>
#include <thread>
#include <unordered_map>

using namespace ckpt;

namespace {

Graph randomTraining(std::mt19937& rng, int forwardNodes)
{
    GraphBuilder b;
    for (int i = 0; i < forwardNodes; ++i) {
        Vertex v;
        v.id = "f" + std::to_string(i);
        v.bytes = std::uniform_int_distribution<int>(1, 10)(rng);
        v.compute = std::uniform_int_distribution<int>(1, 5)(rng);
        b.addVertex(v);
        if (i > 0)
            b.addEdge("f" + std::to_string(std::uniform_int_distribution<int>(std::max(0, i - 2), i - 1)(rng)),
                      v.id);
        if (i > 2 && std::uniform_int_distribution<int>(0, 2)(rng) == 0)
            b.addEdge("f" + std::to_string(i - 3), v.id);
    }
    return deriveTrainingGraph(b.build());
}

// ---- The test oracle: exhaustive search over schedules in the stage model (002 §4) ----
// Independent of the MILP code (core/solvers/CheckmateMilpSolver, core/theory/StageSchedule):
// its own numbering (the graph's topological order, as 002 §4.1 fixes it), its own memory
// accounting (Eq. 2-5 with FREE[t][k][k] = 0, §4.6), its own search.

struct StageModel {
    explicit StageModel(const Graph& training)
    {
        const auto& order = training.topologicalOrder();
        n = static_cast<int>(order.size());
        for (VertexIndex v : order) {
            bytes.push_back(training.bytes(v));
            cost.push_back(computeCost(training, v));
            std::uint32_t d = 0;
            for (VertexIndex p : training.predecessors(v))
                d |= 1u << training.topologicalPosition(p);
            deps.push_back(d);
        }
        users.assign(n, 0);
        for (int k = 0; k < n; ++k)
            for (int i = 0; i < n; ++i)
                if (deps[k] >> i & 1u)
                    users[i] |= 1u << k;
    }
    int n = 0;
    std::vector<std::int64_t> bytes;
    std::vector<double> cost;
    std::vector<std::uint32_t> deps, users;  // bit masks over nodes
};

std::int64_t bytesOf(const StageModel& m, std::uint32_t set)
{
    std::int64_t sum = 0;
    for (int i = 0; i < m.n; ++i)
        if (set >> i & 1u)
            sum += m.bytes[i];
    return sum;
}

// U[t][0..t] of stage t (after u[0], the memory entering it), entering with `kept` (S[t]),
// computing `computed` (R[t]) and keeping `next` (S[t+1]): U starts at the kept values (Eq. 2);
// computing k adds M_k (Eq. 3); after k, each input i of k goes (Eq. 4) when k was its last user
// in the stage and i is not kept (Eq. 5).
using Profile = std::array<std::int64_t, 33>;  // graphs of up to 32 nodes

Profile stageProfile(const StageModel& m, int t, std::uint32_t kept, std::uint32_t computed, std::uint32_t next)
{
    Profile u{};
    u[0] = bytesOf(m, kept);  // entering the stage; u[k + 1] = U[t][k]
    std::int64_t now = u[0];
    for (int k = 0; k <= t; ++k) {
        if (computed >> k & 1u) {
            now += m.bytes[k];
            u[k + 1] = now;
            const std::uint32_t laterInStage = computed & ~((2u << k) - 1) & ((2u << t) - 1);
            for (int i = 0; i < k; ++i)
                if ((m.deps[k] >> i & 1u) && !(next >> i & 1u) && !(m.users[i] & laterInStage))
                    now -= m.bytes[i];
        } else {
            u[k + 1] = now;
        }
    }
    return u;
}

std::int64_t stageMemory(const StageModel& m, int t, std::uint32_t kept, std::uint32_t computed, std::uint32_t next)
{
    const Profile u = stageProfile(m, t, kept, computed, next);
    return *std::max_element(u.begin(), u.begin() + t + 2);
}

// The same optimum without restrictions: dynamic programming over S[t] that tries every R[t]
// holding t and satisfying 1b, and every S[t+1] allowed by 1c (2^t x 2^(t+1) per state). The
// reference for the restricted search below, on graphs of up to 4 forward nodes.
std::optional<double> unrestrictedMinCompute(const StageModel& m, std::int64_t budget)
{
    std::map<std::uint32_t, double> states{{0u, 0.0}};
    for (int t = 0; t < m.n; ++t) {
        std::map<std::uint32_t, double> next;
        for (const auto& [kept, cost] : states)
            for (std::uint32_t others = 0; others < (1u << t); ++others) {
                const std::uint32_t computed = others | 1u << t;
                bool inputsThere = true;  // 1b
                for (int k = 0; k <= t; ++k)
                    if (computed >> k & 1u)
                        inputsThere = inputsThere && (m.deps[k] & ~(computed | kept)) == 0;
                if (!inputsThere)
                    continue;
                double c = cost;
                for (int k = 0; k <= t; ++k)
                    c += (computed >> k & 1u) ? m.cost[k] : 0;
                const std::uint32_t keepable = t + 1 < m.n ? (kept | computed) : 0;  // 1c
                for (std::uint32_t s = keepable;; s = (s - 1) & keepable) {
                    if (stageMemory(m, t, kept, computed, s) <= budget) {
                        auto [it, inserted] = next.try_emplace(s, c);
                        if (!inserted)
                            it->second = std::min(it->second, c);
                    }
                    if (s == 0)
                        break;
                }
            }
        states = std::move(next);
    }
    if (states.empty())
        return std::nullopt;
    return states.begin()->second;
}

// Calls visit(x) for every subset x of `candidates` with bytes(x | base) <= budget.
template <typename Visit>
void forSubsetsWithin(const StageModel& m, std::uint32_t candidates, std::uint32_t base, std::int64_t budget,
                      const Visit& visit)
{
    auto grow = [&](auto& self, int from, std::uint32_t set, std::int64_t bytes) -> void {
        visit(set);
        for (int i = from; i < m.n; ++i) {
            const std::int64_t more = (base >> i & 1u) ? 0 : m.bytes[i];
            if ((candidates >> i & 1u) && bytes + more <= budget)
                self(self, i + 1, set | 1u << i, bytes + more);
        }
    };
    const std::int64_t baseBytes = bytesOf(m, base);
    if (baseBytes <= budget)
        grow(grow, 0, 0, baseBytes);
}

// The least Eq. 1a cost subject to every U[t][k] <= budget. Best-first search over stages, state
// = the kept set S[t] entering stage t; transitions choose S[t+1]. Two restrictions keep it small
// and lose no optimum (unrestrictedMinCompute checks it on small graphs), by an exchange argument
// on any feasible schedule, stage t = n-1 down to 0:
//  (a) R[t] is the least set closed under 1b that holds t and S[t+1] \ S[t] (1c): R[t] already
//      contains it, and removing the rest never raises cost or any U[t][k]: each remaining
//      allocation happens at the same k, each remaining value is freed no later (its last user
//      in the stage can only come earlier), except a kept value whose only users were removed;
//  (b) such a value, kept into stage t, not used there and not kept on (S[t] \ S[t+1] without a
//      user in R[t]), is dropped from S[t]: that lowers every U[t][k] (with (a), the removed
//      computations outweighed its earlier free), relaxes 1c in stage t-1 and can only let stage
//      t-1 free it sooner (Eq. 5). Applying both to every stage gives a schedule of this form
//      that is no worse.
// The search pops states by cost so far + a lower bound on the cost still to come (A*), so the
// first finished schedule is optimal. The bound entering stage t with kept set S: each node t..n-1
// once, plus each earlier value not in S that a node >= t needs, directly or through such values
// (it must be computed again in some stage >= t).
std::optional<double> exhaustiveMinCompute(const Graph& training, std::int64_t budget, long* statesOut = nullptr)
{
    const StageModel m(training);
    const int n = m.n;
    std::vector<double> rest(n + 1, 0);           // cost of nodes t..n-1
    std::vector<std::uint32_t> needed(n + 1, 0);  // inputs of nodes t..n-1 that come before t
    for (int t = n - 1; t >= 0; --t) {
        rest[t] = rest[t + 1] + m.cost[t];
        needed[t] = (needed[t + 1] | m.deps[t]) & ((1u << t) - 1);
    }
    auto toCome = [&](int t, std::uint32_t kept) {
        double h = rest[t];
        std::uint32_t again = needed[t] & ~kept;
        for (int i = t - 1; i >= 0; --i)
            if (again >> i & 1u) {
                again |= m.deps[i] & ~kept;
                h += m.cost[i];
            }
        return h;
    };
    auto state = [](int t, std::uint32_t kept) { return std::uint64_t(t) << 32 | kept; };  // stage, S[stage]
    struct Entry {
        double f;
        int t;
        std::uint32_t kept;
        double g;
        bool operator<(const Entry& o) const { return f != o.f ? f > o.f : t < o.t; }
    };
    std::unordered_map<std::uint64_t, double> bestCost{{state(0, 0u), 0.0}};
    std::priority_queue<Entry> open;
    open.push({rest[0], 0, 0u, 0.0});
    long states = 0;
    while (!open.empty()) {
        const Entry e = open.top();
        open.pop();
        if (e.g > bestCost[state(e.t, e.kept)])
            continue;
        if (e.t == n) {
            if (statesOut)
                *statesOut = states;
            return e.g;
        }
        ++states;
        const int t = e.t;
        const std::uint32_t stageNodes = (2u << t) - 1;
        // Node t, its inputs and every value kept into stage t+1 are all in memory when t is
        // computed: sets of those over the budget are not enumerated.
        const std::uint32_t atT = 1u << t | m.deps[t];
        auto expand = [&](std::uint32_t b) {
            std::uint32_t computed = b | 1u << t;  // (a): the closure under 1b
            for (int k = t; k >= 0; --k)
                if (computed >> k & 1u)
                    computed |= m.deps[k] & ~e.kept;
            std::uint32_t used = 0;
            for (int k = 0; k <= t; ++k)
                if (computed >> k & 1u)
                    used |= m.deps[k];
            const std::uint32_t forced = e.kept & ~used;  // (b): kept on, or it must not be kept
            if (t + 1 == n && (b || forced))
                return;
            double g = e.g;
            for (int k = 0; k <= t; ++k)
                g += (computed >> k & 1u) ? m.cost[k] : 0;
            const std::uint32_t optional = t + 1 < n ? e.kept & used : 0;  // A = S[t+1] & S[t], beyond `forced`
            // Keeping a used value on (A) only adds its bytes after its last user in the stage, so
            // the sets A are grown one value at a time on the profile of U with none kept on.
            Profile u = stageProfile(m, t, e.kept, computed, b | forced);
            std::array<std::pair<int, int>, 32> keepable;  // value, its last user in the stage
            std::size_t keepables = 0;
            for (int i = 0; i < t; ++i)
                if (optional >> i & 1u)
                    keepable[keepables++] = {i, 31 - __builtin_clz(m.users[i] & computed)};
            auto grow = [&](auto& self, std::size_t from, std::uint32_t a) -> void {
                const std::uint32_t next = b | forced | a;
                auto [it, inserted] = bestCost.try_emplace(state(t + 1, next), g);
                if (inserted || g < it->second) {
                    it->second = g;
                    open.push({g + toCome(t + 1, next), t + 1, next, g});
                }
                for (std::size_t j = from; j < keepables; ++j) {
                    const auto [i, last] = keepable[j];
                    bool fits = true;
                    for (int k = last + 1; k <= t; ++k)
                        fits = fits && (u[k + 1] + m.bytes[i] <= budget);
                    if (!fits)
                        continue;
                    for (int k = last + 1; k <= t; ++k)
                        u[k + 1] += m.bytes[i];
                    self(self, j + 1, a | 1u << i);
                    for (int k = last + 1; k <= t; ++k)
                        u[k + 1] -= m.bytes[i];
                }
            };
            if (*std::max_element(u.begin(), u.begin() + t + 2) <= budget)
                grow(grow, 0, 0);
        };
        forSubsetsWithin(m, t + 1 < n ? stageNodes & ~e.kept : 0, atT, budget, expand);
    }
    if (statesOut)
        *statesOut = states;
    return std::nullopt;
}

}  // namespace

class TestCheckmateMilp : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // The restricted search equals the unrestricted one (every R and S) on small graphs, at
    // budgets from below the least peak to above checkpoint-all's.
    void exhaustiveSearchLosesNothing()
    {
        const bool longRun = qEnvironmentVariableIsSet("CKPT_LONG");
        std::mt19937 rng(23);
        const int graphs = longRun ? 60 : 20;
        int feasible = 0, infeasible = 0;
        for (int i = 0; i < graphs; ++i) {
            const int forward = std::uniform_int_distribution<int>(1, longRun ? 4 : 3)(rng);
            const Graph training = randomTraining(rng, forward);
            const StageModel m(training);
            const std::int64_t all = bytesOf(m, ~0u);
            for (int step = 0; step <= 8; ++step) {
                const std::int64_t budget = all * step / 8;
                const auto restricted = exhaustiveMinCompute(training, budget);
                const auto unrestricted = unrestrictedMinCompute(m, budget);
                const QString where = QString("graph %1 (%2 forward nodes), budget %3").arg(i).arg(forward).arg(budget);
                QVERIFY2(restricted.has_value() == unrestricted.has_value(), qPrintable(where));
                if (!restricted) {
                    ++infeasible;
                    continue;
                }
                ++feasible;
                QVERIFY2(std::abs(*restricted - *unrestricted) < 1e-9,
                         qPrintable(where + QString(": %1 vs %2").arg(*restricted).arg(*unrestricted)));
            }
        }
        QVERIFY(feasible > 0 && infeasible > 0);
    }

    // 002 §4 / issue 8 §7: the MILP optimum equals the exhaustive search on random training graphs
    // of 6-8 forward nodes (13-17 training nodes); every schedule replays within its budget and
    // costs no more than any baseline schedule that fits the same budget. The search is also shown
    // to tell budgets apart: where two budgets have different optima, the MILP's answer at one
    // disagrees with the search at the other.
    void matchesExhaustiveSearch()
    {
        const bool longRun = qEnvironmentVariableIsSet("CKPT_LONG");
        std::mt19937 rng(11);
        const int graphs = longRun ? 200 : 24;
        int compared = 0, infeasible = 0, told = 0;
        double milpSeconds = 0, searchSeconds = 0, slowestMilp = 0, slowestSearch = 0;
        for (int i = 0; i < graphs; ++i) {
            const int forward = std::uniform_int_distribution<int>(6, 8)(rng);
            const Graph training = randomTraining(rng, forward);
            const StageGraph g(training);
            const BudgetSweepResult range = budgetSweep(training, {{"checkpoint-all"}, 1, 10, nullptr});
            std::vector<StageSchedule> baselines;  // keep every gradient and each k-th forward node
            for (int stride = 1; stride <= forward + 1; ++stride) {
                std::vector<char> keep(g.size());
                int f = 0;
                for (int k = 0; k < g.size(); ++k)
                    keep[k] = training.vertex(g.vertex[k]).backward || (++f % stride == 0 && stride <= forward);
                baselines.push_back(scheduleFromKept(g, training, keep, 0));
            }
            std::optional<double> previous;
            const std::vector<double> fractions = longRun ? std::vector<double>{-0.1, 0.0, 0.2, 0.4, 0.6, 0.8, 1.0}
                                                          : std::vector<double>{-0.1, 0.3, 1.0};
            for (double fraction : fractions) {
                const auto budget = static_cast<std::int64_t>(
                    std::floor(range.lowerBound + fraction * double(range.baselinePeak - range.lowerBound)));
                CheckmateSettings settings;
                settings.budget = budget;
                settings.seconds = 120;  // each proof takes seconds; the limit only guards a busy machine
                const auto t0 = std::chrono::steady_clock::now();
                const CheckmateOutcome milp = solveCheckmate(training, settings);
                const auto t1 = std::chrono::steady_clock::now();
                const std::clock_t c1 = std::clock();  // CPU time: the machine may be busy
                const auto truth = exhaustiveMinCompute(training, budget);
                const double search = double(std::clock() - c1) / CLOCKS_PER_SEC;
                milpSeconds += std::chrono::duration<double>(t1 - t0).count();
                slowestMilp = std::max(slowestMilp, std::chrono::duration<double>(t1 - t0).count());
                searchSeconds += search;
                slowestSearch = std::max(slowestSearch, search);
                const QString where = QString("graph %1 (%2 forward nodes), budget %3").arg(i).arg(forward).arg(budget);
                if (!truth) {
                    QVERIFY2(milp.status == MilpStatus::Infeasible, qPrintable(where));
                    ++infeasible;
                    continue;
                }
                QVERIFY2(milp.status == MilpStatus::Optimal,
                         qPrintable(where + ": " + QString::fromStdString(toString(milp.status) + " " + milp.message)));
                QVERIFY2(std::abs(milp.schedule->cost - *truth) < 1e-6,
                         qPrintable(where + QString(": milp %1, exhaustive %2").arg(milp.schedule->cost).arg(*truth)));
                ++compared;
                const ReplayResult replayed = replay(g, *milp.schedule, budget);
                QVERIFY2(replayed.ok, replayed.error.c_str());
                QVERIFY(replayed.peakBytes <= budget);
                for (const StageSchedule& b : baselines)
                    if (modelPeak(g, b.R, b.S, 0) <= budget)
                        QVERIFY2(milp.schedule->cost <= b.cost + 1e-9, qPrintable(where));
                if (previous && std::abs(*previous - *truth) > 1e-9) {
                    QVERIFY2(std::abs(milp.schedule->cost - *previous) > 1e-9, qPrintable(where));
                    ++told;
                }
                previous = truth;
            }
        }
        qInfo("%d graphs: %d budgets compared, %d infeasible, %d budget pairs told apart; MILP %.1f s (slowest "
              "%.2f s), exhaustive search %.1f s CPU (slowest %.2f s)",
              graphs, compared, infeasible, told, milpSeconds, slowestMilp, searchSeconds, slowestSearch);
        QVERIFY(compared > graphs && infeasible > 0 && told > 0);
    }

    void neverWorseThanABaseline()
    {
        std::mt19937 rng(5);
        for (int i = 0; i < 8; ++i) {
            const Graph training = randomTraining(rng, 5);
            const StageGraph g(training);
            std::vector<char> keep(g.size());
            for (int k = 0; k < g.size(); ++k)
                keep[k] = training.vertex(g.vertex[k]).backward || std::uniform_int_distribution<int>(0, 1)(rng);
            const StageSchedule baseline = scheduleFromKept(g, training, keep, 0);
            CheckmateSettings settings;
            settings.budget = modelPeak(g, baseline.R, baseline.S, 0);
            const CheckmateOutcome milp = solveCheckmate(training, settings);
            QVERIFY(milp.status == MilpStatus::Optimal);
            QVERIFY(milp.schedule->cost <= baseline.cost + 1e-9);
        }
    }

    void memoryModeKeepsEq9()
    {
        std::mt19937 rng(3);
        const Graph training = randomTraining(rng, 6);
        SolverOptions options;
        options.values["mode"] = "memory";
        const Plan plan = runSolver("checkmate-milp", training, options);
        QVERIFY(plan.stageSchedule.has_value());
        double forward = 0, backward = 0;
        for (VertexIndex v = 0; v < training.vertexCount(); ++v)
            (training.vertex(v).backward ? backward : forward) += computeCost(training, v);
        QVERIFY(plan.stageSchedule->cost <= 2 * forward + backward + 1e-9);
        const StageGraph g(training);
        const StageSchedule all = scheduleFromKept(g, training, std::vector<char>(g.size(), 1), 0);
        QVERIFY(plan.stageSchedule->peakBytes <= all.peakBytes);
        QVERIFY(replay(g, *plan.stageSchedule).ok);
    }

    void infeasibleBudgetIsAClearError()
    {
        std::mt19937 rng(9);
        const Graph training = randomTraining(rng, 4);
        SolverOptions options;
        options.values["mode"] = "compute";
        options.values["budget"] = "1";
        try {
            runSolver("checkmate-milp", training, options);
            QFAIL("expected a SolverError");
        } catch (const SolverError& e) {
            QVERIFY2(QString(e.what()).contains("no schedule fits"), e.what());
        }
        options.values.erase("budget");
        QVERIFY_THROWS_EXCEPTION(SolverError, runSolver("checkmate-milp", training, options));
    }

    // ResNet-50's training graph (287k variables): CBC's root LP alone takes minutes, yet the solve
    // stops at the time limit with the MIP start and the trivial bound, and cancel stops it at once.
    void largeModelKeepsTheTimeLimitAndCancel()
    {
        if (!test::haveSharedData())
            QSKIP("../shared/data/checkmate-graphs is absent");
        const Graph training =
            readGraphFile(test::sharedPath("data/checkmate-graphs/ResNet50_256_224x224x3_train_nx.json").toStdString());
        const BudgetSweepResult range = budgetSweep(training, {{"checkpoint-all"}, 1, 10, nullptr});
        CheckmateSettings settings;
        settings.budget = (range.lowerBound + range.baselinePeak) / 2;
        settings.seconds = 4;
        auto start = std::chrono::steady_clock::now();
        const CheckmateOutcome out = solveCheckmate(training, settings);
        const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        QVERIFY2(took < (settings.seconds + 3) * test::timingSlack(), qPrintable(QString("took %1 s").arg(took)));
        QVERIFY2(out.status == MilpStatus::Feasible, qPrintable(QString::fromStdString(toString(out.status))));
        QVERIFY(out.schedule && out.schedule->peakBytes <= settings.budget);
        QVERIFY(out.bound > 0 && out.bound <= out.schedule->cost);
        QVERIFY(QString::fromStdString(statusText(out)).startsWith("time limit"));

        std::atomic<bool> cancel{false};
        settings.seconds = 60;
        settings.cancel = &cancel;
        std::thread stopper([&cancel] {
            std::this_thread::sleep_for(std::chrono::seconds(2));
            cancel = true;
        });
        start = std::chrono::steady_clock::now();
        const CheckmateOutcome cancelled = solveCheckmate(training, settings);
        stopper.join();
        const double stopped = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        QVERIFY(cancelled.status == MilpStatus::Cancelled);
        QVERIFY2(stopped < 4 * test::timingSlack(), qPrintable(QString("took %1 s").arg(stopped)));
    }

    void derivationReproducesPublishedTrainingGraphs_data()
    {
        QTest::addColumn<QString>("net");
        for (const char* net : {"VGG16_256_224x224x3", "ResNet50_256_224x224x3", "vgg_unet_32_416x608x3",
                                "MobileNet_512_224x224x3"})
            QTest::newRow(net) << QString(net);
    }
    void derivationReproducesPublishedTrainingGraphs()
    {
        if (!test::haveSharedData())
            QSKIP("../shared/data/checkmate-graphs is absent");
        QFETCH(QString, net);
        const QString dir = test::sharedPath("data/checkmate-graphs/");
        const Graph derived = deriveTrainingGraph(readGraphFile((dir + net + "_test_nx.json").toStdString()));
        const Graph published = readGraphFile((dir + net + "_train_nx.json").toStdString());
        auto edgesByName = [](const Graph& g) {
            std::set<std::pair<std::string, std::string>> out;
            auto label = [&g](VertexIndex v) { return g.vertex(v).backward && g.vertex(v).name == "Loss" ? std::string("Loss") : g.vertex(v).name; };
            for (const Edge& e : g.edges())
                out.insert({label(e.from), label(e.to)});
            return out;
        };
        QCOMPARE(derived.vertexCount(), published.vertexCount());
        QVERIFY(edgesByName(derived) == edgesByName(published));
        for (VertexIndex v = 0; v < published.vertexCount(); ++v)
            if (published.vertex(v).name != "Loss")
                QCOMPARE(derived.vertex(derived.topologicalOrder()[published.topologicalPosition(v)]).bytes,
                         published.vertex(v).bytes);
    }
};

QTEST_GUILESS_MAIN(TestCheckmateMilp)
#include "tst_checkmatemilp.moc"
