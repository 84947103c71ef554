#include "RandomGraphs.h"
#include "TestData.h"
#include "graph/ArticulationPoints.h"
#include "graph/GraphBuilder.h"
#include "io/GraphJson.h"
#include "solvers/ChenGreedySolver.h"
#include "solvers/Comparison.h"
#include "solvers/SolverRegistry.h"

#include <QtTest>

using namespace ckpt;

namespace {

std::vector<std::string> ids(const Graph& g, const std::vector<VertexIndex>& vs)
{
    std::vector<std::string> out;
    for (VertexIndex v : vs)
        out.push_back(g.vertex(v).id);
    return out;
}

const std::vector<std::string> kBaselines{"checkpoint-all", "ap-sqrtn", "ap-greedy", "linearized-sqrtn",
                                          "linearized-greedy", "random"};

}  // namespace

class BaselinesTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void cutVertices()
    {
        // v0 -> v1 -> {v2, v3} -> v4 -> v5: the cut vertices are v1 and v4.
        const Graph g = test::makeGraph({1, 1, 1, 1, 1, 1}, {{0, 1}, {1, 2}, {1, 3}, {2, 4}, {3, 4}, {4, 5}});
        QCOMPARE(ids(g, ckpt::articulationPoints(g)), (std::vector<std::string>{"v1", "v4"}));
        // A skip connection around v1..v2 removes them; v3 remains.
        const Graph skip = test::makeGraph({1, 1, 1, 1, 1}, {{0, 1}, {1, 2}, {2, 3}, {0, 3}, {3, 4}});
        QCOMPARE(ids(skip, ckpt::articulationPoints(skip)), (std::vector<std::string>{"v3"}));
        // On a chain every interior vertex is one.
        QCOMPARE(ckpt::articulationPoints(test::makeChain({1, 2, 3, 4})).size(), 2u);
    }

    void everyBaselinePlanIsCorrectOnRandomDags()
    {
        std::mt19937_64 rng(99);
        for (int round = 0; round < 150; ++round) {
            const Graph g = test::randomDag(rng, 3 + round % 40, 1 + round % 5);
            for (const std::string& name : kBaselines) {
                SolverOptions options;
                options.values["seed"] = std::to_string(round);
                Plan plan;
                try {
                    plan = runSolver(name, g, options);
                } catch (const SolverError& e) {
                    QCOMPARE(name, std::string("random"));
                    QCOMPARE(std::string(e.what()), std::string("no valid set in 100 trials"));
                    continue;
                }
                const PlanEvaluation again = evaluate(g, plan.checkpoints());
                QCOMPARE(plan.objective(), again.objective);
                QCOMPARE(plan.checkpoints(), again.checkpoints);
                const PlanCosts costs = planCosts(g, plan);
                QVERIFY(costs.peakChen >= costs.objective);
                // Minimal recomputation: every non-checkpoint tensor exactly once.
                std::int64_t outside = g.totalBytes();
                for (VertexIndex c : plan.checkpoints())
                    outside -= g.bytes(c);
                QCOMPARE(costs.recomputedBytes, outside);
                if (name == "random")
                    QVERIFY(plan.evaluation.isISPlan);
            }
        }
    }

    void generalizationsReproduceChenOnChains()
    {
        // Checkmate §5.1: "all proposed generalizations exactly reproduce the original heuristics
        // on linear networks".
        std::mt19937_64 rng(5);
        for (int round = 0; round < 60; ++round) {
            const Graph g = test::randomChain(rng, 2 + round % 30, 50);
            for (const char* family : {"sqrtn", "greedy"}) {
                const Plan chen = runSolver(std::string("chen-") + family, g);
                QCOMPARE(runSolver(std::string("ap-") + family, g).checkpoints(), chen.checkpoints());
                QCOMPARE(runSolver(std::string("linearized-") + family, g).checkpoints(), chen.checkpoints());
            }
        }
    }

    void chainSolversRefuseDags()
    {
        const Graph g = test::makeGraph({1, 1, 1, 1}, {{0, 1}, {0, 2}, {1, 3}, {2, 3}});
        for (const char* name : {"chen-sqrtn", "chen-greedy", "griewank-logn"})
            QVERIFY_THROWS_EXCEPTION(SolverError, runSolver(name, g));
    }

    void greedyFollowsChensRule()
    {
        // Running sums 4, 4+4 > 6 -> checkpoint v2; 3, 3+5 > 6 -> v4; 2 (v5 is the sink).
        const Graph g = test::makeChain({9, 4, 4, 3, 5, 2, 9});
        SolverOptions options;
        options.values["budget"] = "6";
        const Plan plan = runSolver("chen-greedy", g, options);
        QCOMPARE(ids(g, plan.checkpoints()), (std::vector<std::string>{"v0", "v2", "v4", "v6"}));
        QCOMPARE(plan.options.at("budget"), std::string("6"));
        // The search never does worse than any single budget it could have been given.
        const Plan searched = runSolver("chen-greedy", g);
        for (std::int64_t b = 0; b <= 30; ++b) {
            options.values["budget"] = std::to_string(b);
            QVERIFY(searched.objective() <= runSolver("chen-greedy", g, options).objective());
        }
    }

    void sqrtNStepIsAnOption()
    {
        const Graph g = test::makeChain(std::vector<std::int64_t>(10, 1));
        SolverOptions options;
        options.values["step"] = "4";
        QCOMPARE(ids(g, runSolver("chen-sqrtn", g, options).checkpoints()),
                 (std::vector<std::string>{"v0", "v4", "v8", "v9"}));
        // Default: 8 candidates, ceil(sqrt(8)) = 3.
        QCOMPARE(ids(g, runSolver("chen-sqrtn", g).checkpoints()),
                 (std::vector<std::string>{"v0", "v3", "v6", "v9"}));
    }

    void randomIsSeededAndReportsFailure()
    {
        std::mt19937_64 rng(3);
        const Graph g = test::randomChain(rng, 30);
        SolverOptions a, b;
        a.values["seed"] = b.values["seed"] = "17";
        QCOMPARE(runSolver("random", g, a).checkpoints(), runSolver("random", g, b).checkpoints());
        // A dense DAG where any single interior checkpoint breaks the IS property.
        std::vector<std::pair<int, int>> edges;
        for (int i = 0; i < 8; ++i)
            for (int j = i + 1; j < 8; ++j)
                edges.emplace_back(i, j);
        const Graph dense = test::makeGraph(std::vector<std::int64_t>(8, 1), edges);
        SolverOptions few;
        few.values["trials"] = "100";
        try {
            runSolver("random", dense, few);
            QFAIL("expected a refusal");
        } catch (const SolverError& e) {
            QCOMPARE(std::string(e.what()), std::string("no valid set in 100 trials"));
        }
    }

    void comparisonRowsIncludeFailures()
    {
        const Graph g = test::makeGraph({1, 2, 3, 4}, {{0, 1}, {0, 2}, {1, 3}, {2, 3}});
        const auto rows = compareSolvers(g, {"checkpoint-all", "chen-sqrtn", "no-such-solver"});
        QCOMPARE(rows.size(), 3u);
        QVERIFY(!rows[0].error);
        QCOMPARE(rows[0].costs.recomputedBytes, 0);
        QCOMPARE(rows[0].costs.objective, 10);
        QVERIFY(rows[1].error && rows[1].error->find("needs a chain") != std::string::npos);
        QVERIFY(rows[2].error && rows[2].error->find("unknown solver") != std::string::npos);
        // Default: every fast solver, each a row.
        std::size_t fast = 0;
        for (const Solver* s : allSolvers())
            fast += s->fast();
        QCOMPARE(compareSolvers(g, {}).size(), fast);
    }

    void recomputedComputeUsesVertexCost()
    {
        GraphBuilder b;
        for (int i = 0; i < 4; ++i) {
            Vertex v;
            v.id = "v" + std::to_string(i);
            v.bytes = 10;
            if (i == 1)
                v.compute = 2.5;
            b.addVertex(v);
            if (i)
                b.addEdge("v" + std::to_string(i - 1), v.id);
        }
        const Graph g = b.build();
        Plan plan;
        plan.evaluation = evaluate(g, {0, 3});
        const PlanCosts costs = planCosts(g, plan);
        QCOMPARE(costs.recomputedBytes, 20);
        QCOMPARE(costs.recomputedCompute, 3.5);  // 2.5 for v1, unit cost for v2
    }
};

QTEST_GUILESS_MAIN(BaselinesTest)
#include "tst_baselines.moc"
