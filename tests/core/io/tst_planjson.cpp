#include "TestData.h"
#include "graph/GraphError.h"
#include "graph/GraphFingerprint.h"
#include "io/PlanJson.h"
#include "solvers/Comparison.h"
#include "solvers/SolverRegistry.h"

#include <QtTest>

#include <nlohmann/json.hpp>

using namespace ckpt;

class PlanJsonTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void roundTrip_data()
    {
        QTest::addColumn<QString>("solver");
        QTest::newRow("hong-dynamic") << "hong-dynamic";
        QTest::newRow("chen-greedy") << "chen-greedy";
        QTest::newRow("griewank-logn (schedule)") << "griewank-logn";
    }

    void roundTrip()
    {
        QFETCH(QString, solver);
        const Graph g = test::makeChain({10, 8, 9, 6, 7, 10, 3, 12});
        const Plan plan = runSolver(solver.toStdString(), g);
        const std::string text = toPlanJson(g, plan);
        const auto j = nlohmann::json::parse(text);
        QCOMPARE(j["schema"].get<std::string>(), std::string(kPlanSchema));
        QCOMPARE(j["graph"]["fingerprint"].get<std::string>(), graphFingerprint(g));
        const PlanCosts costs = planCosts(g, plan);
        QCOMPARE(j["predicted_peaks"]["chen"].get<std::int64_t>(), costs.peakChen);
        QCOMPARE(j["predicted_peaks"]["pytorch"].get<std::int64_t>(), costs.peakPyTorch);
        QCOMPARE(j["recompute"]["compute"].get<double>(), costs.recomputedCompute);
        QCOMPARE(j["recompute"]["overhead"].get<double>(), costs.recomputeOverhead());
        // Every non-checkpoint vertex is re-forwarded once (S2): on this chain, one compute each
        // (a REVOLVE schedule counts its own forward actions instead).
        if (!plan.schedule)
            QCOMPARE(j["recompute"]["compute"].get<double>(), double(g.vertexCount() - int(plan.checkpoints().size())));
        QCOMPARE(j["segments"].size(), plan.evaluation.segments.size());

        const Plan back = parsePlanJson(g, text);
        QCOMPARE(back.solver, plan.solver);
        QCOMPARE(back.options, plan.options);
        QCOMPARE(back.checkpoints(), plan.checkpoints());
        QCOMPARE(back.objective(), plan.objective());
        QCOMPARE(back.schedule.has_value(), plan.schedule.has_value());
        if (plan.schedule)
            QCOMPARE(back.schedule->actions, plan.schedule->actions);
        QCOMPARE(planCosts(g, back).peakPyTorch, costs.peakPyTorch);
    }

    void refusedForADifferentGraph()
    {
        const Graph g = test::makeChain({10, 8, 9});
        const Graph other = test::makeChain({10, 8, 10});  // same ids, one size differs
        const std::string text = toPlanJson(g, runSolver("checkpoint-all", g));
        try {
            parsePlanJson(other, text, "plan.json");
            QFAIL("expected a refusal");
        } catch (const GraphError& e) {
            QCOMPARE(e.where(), std::string("/graph/fingerprint"));
            QCOMPARE(e.file(), std::string("plan.json"));
            QVERIFY(std::string(e.what()).find("different graph") != std::string::npos);
        }
    }

    void malformedPlansAreErrors_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("where");
        QTest::newRow("not json") << "{" << "";
        QTest::newRow("wrong schema") << "{\"schema\": \"x\", \"version\": 1}" << "/schema";
        QTest::newRow("no graph") << "{\"schema\": \"checkpoint-explorer/plan\", \"version\": 1}" << "/graph";
        QTest::newRow("unknown vertex")
            << "{\"schema\": \"checkpoint-explorer/plan\", \"version\": 1, \"graph\": {\"fingerprint\": \"FP\"}, "
               "\"solver\": \"s\", \"checkpoints\": [\"v0\", \"nope\"]}"
            << "/checkpoints/1";
        QTest::newRow("bad action")
            << "{\"schema\": \"checkpoint-explorer/plan\", \"version\": 1, \"graph\": {\"fingerprint\": \"FP\"}, "
               "\"solver\": \"s\", \"checkpoints\": [], \"schedule\": {\"slots\": 1, \"actions\": [[\"jump\", 1]]}}"
            << "/schedule/actions/0";
        QTest::newRow("schedule that cannot run")
            << "{\"schema\": \"checkpoint-explorer/plan\", \"version\": 1, \"graph\": {\"fingerprint\": \"FP\"}, "
               "\"solver\": \"s\", \"checkpoints\": [], \"schedule\": {\"slots\": 1, \"actions\": [[\"backward\", 0]]}}"
            << "/schedule";
    }

    void malformedPlansAreErrors()
    {
        QFETCH(QString, text);
        QFETCH(QString, where);
        const Graph g = test::makeChain({1, 2, 3});
        std::string json = text.toStdString();
        if (auto at = json.find("FP"); at != std::string::npos)
            json.replace(at, 2, graphFingerprint(g));
        try {
            parsePlanJson(g, json, "p.json");
            QFAIL("expected an error");
        } catch (const GraphError& e) {
            QCOMPARE(e.where(), where.toStdString());
        }
    }
};

QTEST_GUILESS_MAIN(PlanJsonTest)
#include "tst_planjson.moc"
