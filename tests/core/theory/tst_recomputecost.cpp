// The one recompute-cost model (theory/RecomputeCost.h): every non-checkpoint vertex re-forwarded
// once, weighted by its compute; the same number in compare's rows and the budget sweep's
// checkpoint-plan points (issue 14: the sweep said ×7.14 for {input, fc} on residual.json, a plan
// that re-forwards the network once).
#include "TestData.h"

#include "graph/GraphBuilder.h"
#include "io/GraphJson.h"
#include "solvers/BudgetSweep.h"
#include "solvers/Comparison.h"
#include "solvers/SolverRegistry.h"
#include "theory/RecomputeCost.h"

#include <QtTest>

using namespace ckpt;

class TestRecomputeCost : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void inputAndClassifierReForwardTheNetworkOnce()
    {
        const Graph g = readGraphFile(test::sourcePath("resources/examples/residual.json").toStdString());
        const RecomputeCost cost = recomputeCost(g, evaluateIds(g, {"input", "fc"}));
        // No compute in this graph: one unit per vertex; all but the input and fc are recomputed.
        QCOMPARE(cost.forward, double(g.vertexCount() - 1));
        QCOMPARE(cost.recomputed, double(g.vertexCount() - 2));
        QCOMPARE(recomputeCost(g, evaluate(g, g.topologicalOrder())).overhead(), 0.0);
    }

    void weightsByComputeAndSkipsVirtualVertices()
    {
        GraphBuilder b;
        const std::vector<double> compute{0, 4, 1, 5};
        for (int i = 0; i < 4; ++i) {
            Vertex v;
            v.id = "v" + std::to_string(i);
            v.bytes = 8;
            v.compute = compute[i];
            b.addVertex(v);
        }
        b.addEdge("v0", "v1");
        b.addEdge("v1", "v2");
        b.addEdge("v0", "v3");  // two sinks: a virtual one joins them
        const Graph g = b.build();
        QVERIFY(g.hasVirtualVertices());
        QCOMPARE(forwardPassCompute(g), 10.0);
        const RecomputeCost cost = recomputeCost(g, evaluateIds(g, {"v0"}));
        QCOMPARE(cost.recomputed, 10.0);
        QCOMPARE(cost.overhead(), 1.0);
    }

    void checkpointedFunctionsRecomputeWhatTheyDoNotReturn()
    {
        // x -> a -> e1 -> c -> b -> e2 -> y and a -> e2, compute 0, 1, 2, 4, 8, 16, 32; plan {x, e1, c, e2}.
        // As segments, a and b are re-forwarded (9). Under apply_plan (a Python export, P12) they share
        // e2's function, which reads e1 and c inside it and returns neither: both are computed again (15).
        // With torch 2.x's early stop that is all; torch 1.13 runs the function whole, its exit e2 too (31).
        for (const QString& executor : {QStringLiteral("segments"), QStringLiteral("early stop"), QStringLiteral("whole")}) {
            const bool functions = executor != QStringLiteral("segments");
            const bool whole = executor == QStringLiteral("whole");
            GraphBuilder b;
            if (functions) {
                b.setMetadata("plan_executor", "\"torch.utils.checkpoint\"");
                b.setMetadata("checkpoint_early_stop", whole ? "false" : "true");
            }
            const std::vector<std::string> ids{"x", "a", "e1", "c", "b", "e2", "y"};
            for (std::size_t i = 0; i < ids.size(); ++i) {
                Vertex v;
                v.id = ids[i];
                v.bytes = 8;
                v.compute = double((1 << i) / 2);
                b.addVertex(v);
            }
            for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{
                     {"x", "a"}, {"a", "e1"}, {"e1", "c"}, {"c", "b"}, {"b", "e2"}, {"a", "e2"}, {"e2", "y"}})
                b.addEdge(from, to);
            const Graph g = b.build();
            const RecomputeCost cost = recomputeCost(g, evaluateIds(g, {"x", "e1", "c", "e2"}));
            QCOMPARE(cost.recomputed, whole ? 31.0 : functions ? 15.0 : 9.0);
            QCOMPARE(cost.recomputedBytes, std::int64_t(whole ? 40 : functions ? 32 : 16));
            // compare, solve's plan file and the app read the same price (planCosts).
            Plan plan;
            plan.evaluation = evaluateIds(g, {"x", "e1", "c", "e2"});
            const PlanCosts costs = planCosts(g, plan);
            QCOMPARE(costs.recomputedCompute, cost.recomputed);
            QCOMPARE(costs.recomputedBytes, cost.recomputedBytes);
        }
    }

    void budgetSweepRefusesGraphsTooLargeForTheStageModel()
    {
        // A 2,100-vertex chain has 4,201 training nodes (with the loss): the n^2 stage replay would take gigabytes.
        const Graph g = test::makeChain(std::vector<std::int64_t>(2100, 64));
        BudgetSweepSettings settings;
        settings.solvers = {"checkpoint-all"};
        try {
            budgetSweep(g, settings);
            QFAIL("a graph above maxBudgetSweepNodes was swept");
        } catch (const SolverError& e) {
            QVERIFY2(std::string(e.what()).find("4201 training nodes") != std::string::npos, e.what());
        }
    }

    void compareAndBudgetSweepAgree()
    {
        const Graph g = readGraphFile(test::sourcePath("resources/examples/residual.json").toStdString());
        BudgetSweepSettings settings;
        settings.solvers = {"checkpoint-all", "feng-acg", "linearized-greedy", "chen-greedy"};
        const BudgetSweepResult sweep = budgetSweep(g, settings);
        int points = 0;
        for (const BudgetSweepRow& row : sweep.rows) {
            if (!row.hasPoint())
                continue;
            ++points;
            QCOMPARE(row.costModel, std::string("re-forward"));
            std::vector<std::string> ids = row.checkpoints;
            const RecomputeCost cost = recomputeCost(g, evaluateIds(g, ids));
            QCOMPARE(row.overhead, 1 + cost.overhead());
            QVERIFY(row.overhead >= 1 && row.overhead <= 2);
        }
        QVERIFY(points > 3);
        for (const ComparisonRow& row : compareSolvers(g, {"feng-acg", "checkpoint-all"})) {
            const Plan plan = runSolver(row.solver, g);
            QCOMPARE(row.costs.recomputeOverhead(), recomputeCost(g, plan.evaluation).overhead());
        }
    }
};

QTEST_GUILESS_MAIN(TestRecomputeCost)
#include "tst_recomputecost.moc"
