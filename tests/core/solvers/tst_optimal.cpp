// optimal (OptimalSolver): equals an exhaustive search over every checkpoint set, and is never
// worse than the best IS plan, by each of its methods (the frontier DP, CBC row generation, and
// "auto" choosing between them); the frontier DP also on its own, without an incumbent.
// CKPT_LONG=1 runs thousands of graphs instead of a few hundred.
#include "RandomGraphs.h"
#include "TestData.h"

#include "solvers/FrontierDp.h"
#include "solvers/OptimalSolver.h"
#include "solvers/SolverRegistry.h"

#include <QtTest>

#include <algorithm>
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

// Half the graphs from randomDag (narrow frontiers), half of every shape of randomGraph (dense
// blocks and crossings have wide ones).
Graph randomGraph(std::mt19937& rng, std::mt19937_64& rng64, int maxVertices)
{
    const int n = std::uniform_int_distribution<int>(3, maxVertices)(rng);
    if (rng() % 2)
        return test::randomDag(rng64, n, 3);
    const auto shape = static_cast<test::RandomShape>(rng() % test::kRandomShapeCount);
    const test::RandomGraphSpec spec = test::randomGraph(shape, n, rng64);
    return test::makeGraph(spec.bytes, spec.edges);
}

}  // namespace

class TestOptimal : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void matchesExhaustiveSearch_data()
    {
        QTest::addColumn<QString>("method");
        QTest::addColumn<int>("seed");
        QTest::addColumn<int>("maxVertices");
        QTest::addColumn<int>("graphs");
        const bool longRun = qEnvironmentVariableIsSet("CKPT_LONG");
        QTest::newRow("frontier DP, up to 10 vertices") << "frontier-dp" << 1 << 10 << (longRun ? 2000 : 150);
        QTest::newRow("frontier DP, up to 16 vertices") << "frontier-dp" << 2 << 16 << (longRun ? 2000 : 150);
        QTest::newRow("row generation, up to 10 vertices") << "milp" << 1 << 10 << (longRun ? 2000 : 100);
        QTest::newRow("row generation, up to 16 vertices") << "milp" << 2 << 16 << (longRun ? 1000 : 40);
        QTest::newRow("auto, up to 16 vertices") << "auto" << 3 << 16 << (longRun ? 1000 : 60);
    }
    void matchesExhaustiveSearch()
    {
        QFETCH(QString, method);
        QFETCH(int, seed);
        QFETCH(int, maxVertices);
        QFETCH(int, graphs);
        std::mt19937 rng(seed);
        std::mt19937_64 rng64(seed);
        const OptimalSolver solver;
        SolverOptions options;
        options.values["time-limit"] = "30";
        options.values["method"] = method.toStdString();
        int strictlyBetter = 0;
        for (int i = 0; i < graphs; ++i) {
            const Graph g = randomGraph(rng, rng64, maxVertices);
            const Exhaustive truth = exhaustive(g);
            const Plan plan = solver.solve(g, options);
            QVERIFY2(plan.provenOptimal.value_or(false), qPrintable(QString("graph %1 not proven").arg(i)));
            QCOMPARE(plan.objective(), truth.general);
            QCOMPARE(plan.lowerBound.value_or(-1), static_cast<double>(truth.general));
            QCOMPARE(plan.objective(), evaluate(g, plan.checkpoints()).objective);
            QVERIFY(plan.objective() <= truth.isPlan);
            strictlyBetter += plan.objective() < truth.isPlan;
        }
        qInfo("%d of %d graphs: optimal strictly better than every IS plan", strictlyBetter, graphs);
    }

    // The DP alone, on both vertex orders: with no useful incumbent it must build the optimum
    // itself; with the optimum as incumbent it finds nothing better and proves it; with the
    // optimum + 1 it finds an optimal plan.
    void frontierDpMatchesExhaustiveSearch()
    {
        std::mt19937 rng(4);
        std::mt19937_64 rng64(4);
        const int graphs = qEnvironmentVariableIsSet("CKPT_LONG") ? 3000 : 300;
        for (int i = 0; i < graphs; ++i) {
            const Graph g = randomGraph(rng, rng64, 16);
            const std::int64_t truth = exhaustive(g).general;
            const FrontierOrder greedy = frontierOrder(g);
            QCOMPARE(static_cast<int>(greedy.order.size()), g.vertexCount());
            for (const FrontierOrder& order : {greedy, FrontierOrder{g.topologicalOrder(), 0}}) {
                for (std::int64_t incumbent : {g.totalBytes() + 1, truth + 1, truth}) {
                    FrontierDpLimits limits;
                    limits.incumbent = incumbent;
                    const FrontierDpResult r = frontierDp(g, order, limits);
                    QVERIFY(r.status == FrontierDpResult::Status::Solved);
                    QCOMPARE(r.lowerBound, static_cast<double>(truth));
                    QCOMPARE(r.better.has_value(), incumbent > truth);
                    if (r.better)
                        QCOMPARE(evaluate(g, *r.better).objective, truth);
                }
            }
        }
    }

    void frontierDpGivesUpWhenTooLarge()
    {
        std::mt19937_64 rng(5);
        const Graph g = test::randomDag(rng, 14, 3);
        FrontierDpLimits limits;
        limits.incumbent = g.totalBytes() + 1;
        limits.maxLabels = 1;
        QVERIFY(frontierDp(g, frontierOrder(g), limits).status == FrontierDpResult::Status::TooLarge);
        // ... and "auto" then falls back to row generation, still exact.
        SolverOptions options;
        options.values["max-labels"] = "1";
        const Plan plan = OptimalSolver().solve(g, options);
        QVERIFY(plan.provenOptimal.value_or(false));
        QCOMPARE(plan.objective(), exhaustive(g).general);
        QVERIFY(std::any_of(plan.notes.begin(), plan.notes.end(),
                            [](const std::string& n) { return n.find("CBC row generation instead") != std::string::npos; }));
    }

    void unknownMethodIsRefused()
    {
        SolverOptions options;
        options.values["method"] = "simplex";
        QVERIFY_THROWS_EXCEPTION(SolverError, OptimalSolver().solve(test::makeChain({1, 2, 3}), options));
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
