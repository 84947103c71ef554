#include "TestData.h"
#include "io/GraphJson.h"
#include "io/PlanJson.h"
#include "solvers/SolverRegistry.h"

#include "ToolRun.h"

#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

using namespace ckpt;
using namespace ckpt::test;

class MemoryCommandsTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void compareJson()
    {
        const QString graph = test::sourcePath("resources/examples/residual.json");
        const ToolRun r = runCkptx({"compare", graph, "--solvers", "checkpoint-all,chen-sqrtn,hong-dynamic", "--json"});
        QCOMPARE(r.exitCode, 0);
        const auto j = nlohmann::json::parse(r.out.toStdString());
        QCOMPARE(j["rows"].size(), 3u);
        QCOMPARE(j["rows"][0]["recomputed_bytes"].get<std::int64_t>(), 0);
        QVERIFY(!j["rows"][1]["ok"].get<bool>());
        QVERIFY(j["rows"][1]["error"].get<std::string>().find("needs a chain") != std::string::npos);
        QVERIFY(j["rows"][2]["peak_pytorch"].get<std::int64_t>() > 0);
        QCOMPARE(runCkptx({"compare", graph, "--solvers", ""}).exitCode, 2);
    }

    void simulateAPlan()
    {
        QTemporaryDir dir;
        const std::string graphPath = test::sourcePath("resources/examples/vgg19-chain.json").toStdString();
        const Graph g = readGraphFile(graphPath);
        const QString plan = dir.filePath("plan.json");
        writePlanFile(plan.toStdString(), g, runSolver("hong-dynamic", g));

        const ToolRun r = runCkptx({"simulate", QString::fromStdString(graphPath), "--plan", plan, "--model", "pytorch", "--json"});
        QCOMPARE(r.exitCode, 0);
        const auto j = nlohmann::json::parse(r.out.toStdString());
        QCOMPARE(j["phases"].size(), 50u);  // 0 .. 2*24+1
        std::int64_t peak = 0;
        for (const auto& p : j["phases"])
            peak = std::max(peak, p["peak_bytes"].get<std::int64_t>());
        QCOMPARE(j["peak_bytes"].get<std::int64_t>(), peak);
        QCOMPARE(j["phases"][0]["live"], nlohmann::json::array({"d0_input"}));
        const auto planJson = nlohmann::json::parse(ckpt::toPlanJson(g, runSolver("hong-dynamic", g)));
        QCOMPARE(peak, planJson["predicted_peaks"]["pytorch"].get<std::int64_t>());

        const ToolRun csv = runCkptx({"simulate", QString::fromStdString(graphPath), "--plan", plan, "--model", "chen", "--csv"});
        QCOMPARE(csv.exitCode, 0);
        QVERIFY(csv.out.startsWith("index,end_bytes,peak_bytes,live\n0,"));

        QCOMPARE(runCkptx({"simulate", QString::fromStdString(graphPath), "--plan", plan, "--model", "tf"}).exitCode, 2);
        const ToolRun wrong = runCkptx({"simulate", test::sourcePath("resources/examples/alexnet-chain.json"), "--plan", plan,
                                 "--model", "chen"});
        QCOMPARE(wrong.exitCode, 1);
        QVERIFY(wrong.err.contains("different graph"));
    }
};

QTEST_GUILESS_MAIN(MemoryCommandsTest)
#include "tst_memorycommands.moc"
