// optimal (OptimalSolver): equals an exhaustive search over every checkpoint set, and is never
// worse than the best IS plan. CKPT_LONG=1 runs thousands of graphs instead of a few hundred.
#include "RandomGraphs.h"
#include "TestData.h"

#include "solvers/OptimalSolver.h"
#include "solvers/SolverRegistry.h"

#include <QtTest>

#include <atomic>
#include <random>

using namespace ckpt;

namespace {

struct Exhaustive {
    std::int64_t general = 0;
    std::int64_t isPlan = 0;  // best IS plan
};

// The ground truth: the exhaustive solvers over every checkpoint set and over IS plans.
Exhaustive exhaustive(const Graph& g)
{
    return {runSolver("exhaustive-general", g).objective(), runSolver("exhaustive", g).objective()};
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
        std::mt19937_64 rng64(seed);
        const OptimalSolver solver;
        SolverOptions options;
        options.values["time-limit"] = "30";
        int strictlyBetter = 0;
        for (int i = 0; i < graphs; ++i) {
            const int n = std::uniform_int_distribution<int>(3, seed == 1 ? 10 : 16)(rng);
            const Graph g = test::randomDag(rng64, n, 3);
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
        std::mt19937_64 rng(7);
        const Graph g = test::randomDag(rng, 14, 3);
        std::atomic<bool> cancel{true};
        SolverOptions options;
        options.cancel = &cancel;
        QVERIFY_THROWS_EXCEPTION(SolverCancelled, OptimalSolver().solve(g, options));
    }

    void registered() { QVERIFY(findSolver("optimal") != nullptr); }
};

QTEST_GUILESS_MAIN(TestOptimal)
#include "tst_optimal.moc"
