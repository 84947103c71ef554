// checkmate-milp (002 §4): the MILP's optimum equals an exhaustive search over schedules in the
// same stage model, every solution replays within its budget, and it is never worse than a
// checkpoint baseline at that baseline's own peak. Also: the backward-node derivation rule
// reproduces the published training graphs. CKPT_LONG=1 goes up to 5 forward nodes (11 training
// nodes; the exhaustive search visits every kept set, 2^(2n) per stage).
#include "TestData.h"

#include "graph/GraphBuilder.h"
#include "io/GraphJson.h"
#include "solvers/BudgetSweep.h"
#include "solvers/CheckmateMilpSolver.h"
#include "solvers/SolverRegistry.h"
#include "theory/TrainingGraph.h"

#include <QtTest>

#include <map>
#include <random>
#include <set>

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

// Exhaustive search in the stage model: dynamic programming over the kept set S[t], trying every
// S[t+1]. For given S[t] and S[t+1] the cheapest R[t] computes node t and every value newly
// kept, plus their missing dependencies: any other computation can be dropped without raising
// the cost or any U[t][k] (it only adds an allocation; the values it would have freed are freed
// no later by the remaining users or the end of the stage). Any value may be kept, since a
// value whose users all ran may still feed their recomputation later.
std::optional<double> exhaustiveMinCompute(const Graph& training, std::int64_t budget)
{
    const StageGraph g(training);
    const int n = g.size();
    std::map<std::uint32_t, double> states{{0u, 0.0}};
    for (int t = 0; t < n; ++t) {
        std::vector<int> candidates;
        for (int i = 0; i <= t; ++i)
            if (t + 1 < n)
                candidates.push_back(i);
        std::map<std::uint32_t, double> next;
        for (const auto& [kept, costSoFar] : states) {
            std::vector<char> st(n, 0);
            for (int i = 0; i < n; ++i)
                st[i] = (kept >> i) & 1u;
            for (std::uint32_t mask = 0; mask < (1u << candidates.size()); ++mask) {
                std::vector<char> sn(n, 0), rt(n, 0);
                std::uint32_t nextKept = 0;
                for (std::size_t c = 0; c < candidates.size(); ++c)
                    if (mask & (1u << c)) {
                        sn[candidates[c]] = 1;
                        nextKept |= 1u << candidates[c];
                        if (!st[candidates[c]])
                            rt[candidates[c]] = 1;
                    }
                rt[t] = 1;
                for (int k = t; k >= 0; --k)
                    if (rt[k])
                        for (int i : g.deps[k])
                            if (!st[i])
                                rt[i] = 1;
                if (stagePeak(g, t, st, rt, sn, 0) > budget)
                    continue;
                double cost = costSoFar;
                for (int k = 0; k <= t; ++k)
                    cost += rt[k] ? g.cost[k] : 0;
                auto it = next.find(nextKept);
                if (it == next.end() || cost < it->second)
                    next[nextKept] = cost;
            }
        }
        states = std::move(next);
    }
    if (states.empty())
        return std::nullopt;
    return states.begin()->second;
}

}  // namespace

class TestCheckmateMilp : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void matchesExhaustiveSearch()
    {
        const bool longRun = qEnvironmentVariableIsSet("CKPT_LONG");
        std::mt19937 rng(11);
        const int graphs = longRun ? 40 : 12;
        for (int i = 0; i < graphs; ++i) {
            const int forward = std::uniform_int_distribution<int>(2, longRun ? 5 : 4)(rng);
            const Graph training = randomTraining(rng, forward);
            const BudgetSweepResult range = budgetSweep(training, {{"checkpoint-all"}, 1, 10, nullptr});
            for (double f : {0.0, 0.3, 0.6, 1.0}) {
                const auto budget = static_cast<std::int64_t>(range.lowerBound +
                                                              f * (range.baselinePeak - range.lowerBound));
                CheckmateSettings settings;
                settings.budget = budget;
                settings.seconds = 30;
                const CheckmateOutcome milp = solveCheckmate(training, settings);
                const auto truth = exhaustiveMinCompute(training, budget);
                const QString where = QString("graph %1 (%2 forward nodes), budget %3").arg(i).arg(forward).arg(budget);
                if (!truth) {
                    QVERIFY2(milp.status == MilpStatus::Infeasible, qPrintable(where));
                    continue;
                }
                QVERIFY2(milp.status == MilpStatus::Optimal, qPrintable(where + ": " + QString::fromStdString(toString(milp.status))));
                QVERIFY2(std::abs(milp.schedule->cost - *truth) < 1e-6,
                         qPrintable(where + QString(": milp %1, exhaustive %2").arg(milp.schedule->cost).arg(*truth)));
                const ReplayResult replayed = replay(StageGraph(training), *milp.schedule, budget);
                QVERIFY2(replayed.ok, replayed.error.c_str());
                QVERIFY(replayed.peakBytes <= budget);
            }
        }
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
