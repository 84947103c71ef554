// optimal (OptimalSolver): equals an exhaustive search over every checkpoint set, and is never
// worse than the best IS plan. CKPT_LONG=1 runs thousands of graphs instead of a few hundred.
#include "TestData.h"

#include "solvers/OptimalSolver.h"
#include "solvers/SolverRegistry.h"

#include <QtTest>

#include <atomic>
#include <random>

using namespace ckpt;

namespace {

// A random connected DAG: vertex i > 0 gets one or two predecessors among the earlier ones.
Graph randomDag(std::mt19937& rng, int n)
{
    std::vector<std::int64_t> bytes(n);
    std::vector<std::pair<int, int>> edges;
    for (int i = 0; i < n; ++i) {
        bytes[i] = std::uniform_int_distribution<int>(1, 20)(rng);
        if (i == 0)
            continue;
        const int first = std::uniform_int_distribution<int>(std::max(0, i - 3), i - 1)(rng);
        edges.emplace_back(first, i);
        if (i > 1 && std::uniform_int_distribution<int>(0, 2)(rng) == 0) {
            const int second = std::uniform_int_distribution<int>(0, i - 1)(rng);
            if (second != first)
                edges.emplace_back(second, i);
        }
    }
    return test::makeGraph(bytes, edges);
}

struct Exhaustive {
    std::int64_t general = 0;
    std::int64_t isPlan = 0;  // best IS plan
};

// Every subset of the vertices other than source and sink (which evaluate() always adds).
Exhaustive exhaustive(const Graph& g)
{
    std::vector<VertexIndex> free;
    for (VertexIndex v = 0; v < g.vertexCount(); ++v)
        if (v != g.source() && v != g.sink())
            free.push_back(v);
    Exhaustive best{g.totalBytes() + 1, g.totalBytes() + 1};
    for (std::uint32_t mask = 0; mask < (1u << free.size()); ++mask) {
        std::vector<VertexIndex> set;
        for (std::size_t i = 0; i < free.size(); ++i)
            if (mask & (1u << i))
                set.push_back(free[i]);
        const PlanEvaluation e = evaluate(g, set);
        best.general = std::min(best.general, e.objective);
        if (e.isISPlan)
            best.isPlan = std::min(best.isPlan, e.objective);
    }
    return best;
}

}  // namespace

class TestOptimal : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void matchesExhaustiveSearch_data()
    {
        QTest::addColumn<int>("seed");
        QTest::addColumn<int>("graphs");
        const bool longRun = qEnvironmentVariableIsSet("CKPT_LONG");
        QTest::newRow("up to 10 vertices") << 1 << (longRun ? 2000 : 150);
        QTest::newRow("up to 16 vertices") << 2 << (longRun ? 1000 : 40);
    }
    void matchesExhaustiveSearch()
    {
        QFETCH(int, seed);
        QFETCH(int, graphs);
        std::mt19937 rng(seed);
        const OptimalSolver solver;
        SolverOptions options;
        options.values["time-limit"] = "30";
        int strictlyBetter = 0;
        for (int i = 0; i < graphs; ++i) {
            const int n = std::uniform_int_distribution<int>(3, seed == 1 ? 10 : 16)(rng);
            const Graph g = randomDag(rng, n);
            const Exhaustive truth = exhaustive(g);
            const Plan plan = solver.solve(g, options);
            QVERIFY2(plan.provenOptimal.value_or(false), qPrintable(QString("graph %1 not proven").arg(i)));
            QCOMPARE(plan.objective(), truth.general);
            QCOMPARE(plan.objective(), evaluate(g, plan.checkpoints()).objective);
            QVERIFY(plan.objective() <= truth.isPlan);
            strictlyBetter += plan.objective() < truth.isPlan;
        }
        qInfo("%d of %d graphs: optimal strictly better than every IS plan", strictlyBetter, graphs);
    }

    void chainKnownOptimum()
    {
        // Chain of nine 1-byte tensors: checkpoints {v0, v4, v8} (+ v... ) -> 3 + 3 = 6 is optimal.
        const Graph g = test::makeChain({1, 1, 1, 1, 1, 1, 1, 1, 1});
        const Plan plan = runSolver("optimal", g);
        QCOMPARE(plan.objective(), exhaustive(g).general);
        QCOMPARE(plan.objective(), std::int64_t{6});
    }

    void cancelStopsTheSearch()
    {
        std::mt19937 rng(7);
        const Graph g = randomDag(rng, 14);
        std::atomic<bool> cancel{true};
        SolverOptions options;
        options.cancel = &cancel;
        QVERIFY_THROWS_EXCEPTION(SolverCancelled, OptimalSolver().solve(g, options));
    }

    void registered() { QVERIFY(findSolver("optimal") != nullptr); }
};

QTEST_GUILESS_MAIN(TestOptimal)
#include "tst_optimal.moc"
