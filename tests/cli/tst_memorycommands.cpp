#include "TestData.h"
#include "graph/GraphBuilder.h"
#include "io/GraphJson.h"
#include "io/PlanJson.h"
#include "io/TextFile.h"
#include "io/TraceJson.h"
#include "memory/MemoryProfile.h"
#include "memory/PlanMemory.h"
#include "theory/PlanEvaluation.h"
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

        // P35: where the optimizer's step (measured by the export) outgrows every plan's step, all
        // iterations peak there, and the plan that recomputes least is recommended.
        QTemporaryDir dir;
        const QString measured = dir.filePath("measured.json");
        writeGraphFile(measured.toStdString(),
                       withMetadata(readGraphFile(graph.toStdString()), {{"optimizer", "\"AdamW\""},
                                                                         {"optimizer_state_bytes", "0"},
                                                                         {"optimizer_step_workspace_bytes", "1000000000"}}));
        const QString solvers = QStringLiteral("hong-dynamic,feng-acg,checkpoint-all");
        const auto plain = nlohmann::json::parse(runCkptx({"compare", graph, "--solvers", solvers, "--json"}).out.toStdString());
        const auto withStep =
            nlohmann::json::parse(runCkptx({"compare", measured, "--solvers", solvers, "--json"}).out.toStdString());
        QVERIFY(plain["recommended"] != "checkpoint-all" && !plain["rows"][0].contains("peak_iteration"));
        QCOMPARE(withStep["recommended"].get<std::string>(), std::string("checkpoint-all"));
        for (const auto& row : withStep["rows"]) {
            QVERIFY(row["optimizer_step_bytes"].get<std::int64_t>() > 1000000000);
            QCOMPARE(row["peak_iteration"], row["optimizer_step_bytes"]);
        }
        const ToolRun text = runCkptx({"compare", measured, "--solvers", solvers});
        QVERIFY2(text.out.contains("optimizer.step()") && text.out.contains("recommended: checkpoint-all (lowest iteration"),
                 qPrintable(text.out));
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

    // Live lists cost O(phases × live): above kLiveListsUpTo vertices they are left out unless --live.
    void simulateListsLiveTensorsOnSmallGraphsOrWhenAsked()
    {
        QTemporaryDir dir;
        const Graph g = test::makeResidualNetwork(kLiveListsUpTo / 3 + 1);
        QVERIFY(g.vertexCount() > kLiveListsUpTo);
        const QString graph = dir.filePath("big.json");
        writeGraphFile(graph.toStdString(), g);
        const QString plan = dir.filePath("plan.json");
        writePlanFile(plan.toStdString(), g, test::planOf(g, {g.topologicalOrder()[std::size_t(g.vertexCount() / 2)]}));
        const auto simulate = [&](QStringList extra) {
            const ToolRun r = runCkptx(QStringList{"simulate", graph, "--plan", plan, "--model", "pytorch", "--json"} + extra);
            return r.exitCode == 0 ? nlohmann::json::parse(r.out.toStdString()) : nlohmann::json();
        };
        const auto brief = simulate({});
        const auto listed = simulate({"--live"});
        QVERIFY(!brief["live_listed"].get<bool>());
        QVERIFY(listed["live_listed"].get<bool>());
        QCOMPARE(brief["peak_bytes"], listed["peak_bytes"]);
        QCOMPARE(brief["phases"].size(), listed["phases"].size());
        const std::size_t peak = listed["peak_phase"].get<std::size_t>();
        QVERIFY(brief["phases"][peak]["live"].empty());
        QVERIFY(!listed["phases"][peak]["live"].empty());
        const ToolRun text = runCkptx({"simulate", graph, "--plan", plan, "--model", "pytorch"});
        QVERIFY2(text.out.contains("live tensors not listed"), qPrintable(text.out.left(300)));
    }

    void simulateAgainstATrace()
    {
        // A trace that measured exactly the pytorch prediction (plus 1000 bytes of weights): the
        // trace numbers the input as forward phase 1, so simulated phase p (1..2N) is the trace's p+1;
        // the trace's 2V (the input's backward) has no counterpart.
        QTemporaryDir dir;
        const std::string graphPath = test::sourcePath("resources/examples/vgg19-chain.json").toStdString();
        const Graph g = readGraphFile(graphPath);
        const Plan plan = runSolver("hong-dynamic", g);
        const QString planPath = dir.filePath("plan.json");
        writePlanFile(planPath.toStdString(), g, plan);
        const MemoryProfile predicted = simulatePlanMemory(g, plan.evaluation, MemoryModel::PyTorch);
        const int n = g.vertexCount() - 1, v = g.vertexCount();
        ProfileTrace trace;
        trace.device = "cpu";
        for (VertexIndex u : g.topologicalOrder())
            trace.vertices.push_back(g.vertex(u).id);
        trace.baselineBytes = 1000 + g.bytes(g.source());
        trace.checkpointed.phases.resize(2 * v + 2);
        trace.regular.phases.resize(2 * v + 2);
        for (int i = 0; i < 2 * v + 2; ++i)
            trace.checkpointed.phases[i].index = trace.regular.phases[i].index = i;
        for (const PhaseMemory& p : predicted.phases) {
            const int t = p.index == 0 ? 0 : p.index <= 2 * n ? p.index + 1 : 2 * v + 1;
            trace.checkpointed.phases[t].endBytes = p.endBytes + 1000;
        }
        trace.checkpointed.peakBytes = predicted.peakBytes + 1000;
        const QString tracePath = dir.filePath("trace.json");
        writeTextFileAtomically(tracePath.toStdString(), toTraceJson(trace));

        const QStringList base{"simulate", QString::fromStdString(graphPath), "--plan", planPath, "--model", "pytorch",
                               "--trace", tracePath};
        const ToolRun r = runCkptx(base + QStringList{"--json"});
        QCOMPARE(r.exitCode, 0);
        const auto j = nlohmann::json::parse(r.out.toStdString())["trace"];
        QCOMPARE(j["phases"].size(), 50u);
        QCOMPARE(j["mean_abs_error_percent"].get<double>(), 0.0);
        QCOMPARE(j["peak_error_percent"].get<double>(), 0.0);
        QCOMPARE(j["measured_peak_bytes"].get<std::int64_t>(), predicted.peakBytes);
        // The regular step measured nothing: every phase but 0 is 100 % off.
        const ToolRun regular = runCkptx(base + QStringList{"--step", "regular", "--json"});
        QCOMPARE(regular.exitCode, 0);
        QVERIFY(nlohmann::json::parse(regular.out.toStdString())["trace"]["mean_abs_error_percent"].get<double>() > 90);
        const ToolRun text = runCkptx(base);
        QVERIFY(text.out.contains("vs trace: mean |error| 0.00 %"));

        QCOMPARE(runCkptx(base + QStringList{"--step", "both"}).exitCode, 2);
        const ToolRun other = runCkptx({"simulate", QString::fromStdString(graphPath), "--plan", planPath, "--model", "chen",
                                 "--trace", test::sourcePath("resources/examples/vgg19-chain.json")});
        QCOMPARE(other.exitCode, 1);
    }

    // A CUDA profile's trace counts torch.cuda.memory_allocated(): simulate counts the caching
    // allocator's blocks against it unless told otherwise (rule A1).
    void simulateAgainstACudaProfile()
    {
        QTemporaryDir dir;
        const QString graphPath = test::sourcePath("tests/data/snapshots/resnet50-h200.graph.json");
        const QString tracePath = test::sourcePath("tests/data/snapshots/resnet50-h200.trace.json");
        const Graph g = readGraphFile(graphPath.toStdString());
        const ProfileTrace trace = parseTraceJson(readTextFile(tracePath.toStdString()));
        Plan plan = runSolver("checkpoint-all", g);
        plan.evaluation = evaluateIds(g, trace.checkpoints);
        const QString planPath = dir.filePath("plan.json");
        writePlanFile(planPath.toStdString(), g, plan);
        const QStringList base{"simulate", graphPath, "--plan", planPath, "--model", "pytorch", "--trace", tracePath, "--json"};
        auto peakError = [](const ToolRun& r, const char* allocator) {
            const auto j = nlohmann::json::parse(r.out.toStdString());
            [&] { QCOMPARE(j["allocator"].get<std::string>(), std::string(allocator)); }();
            return j["trace"]["peak_error_percent"].get<double>();
        };
        const double blocks = peakError(runCkptx(base), "cuda");
        const double requested = peakError(runCkptx(base + QStringList{"--allocator", "requested"}), "requested");
        QVERIFY2(std::abs(blocks) < 1.0, qPrintable(QString::number(blocks)));
        QVERIFY2(requested < -1.5, qPrintable(QString::number(requested)));
        QCOMPARE(runCkptx(base + QStringList{"--allocator", "pool"}).exitCode, 2);
        const ToolRun chen = runCkptx({"simulate", graphPath, "--plan", planPath, "--model", "chen", "--allocator", "cuda"});
        QCOMPARE(chen.exitCode, 2);
        QVERIFY(chen.err.contains("--model pytorch"));
        // Chen's model against the CUDA trace counts requested bytes, and says so.
        const ToolRun chenTrace =
            runCkptx({"simulate", graphPath, "--plan", planPath, "--model", "chen", "--trace", tracePath, "--json"});
        QCOMPARE(chenTrace.exitCode, 0);
        QCOMPARE(nlohmann::json::parse(chenTrace.out.toStdString())["allocator"].get<std::string>(), std::string("requested"));
    }
};

QTEST_GUILESS_MAIN(MemoryCommandsTest)
#include "tst_memorycommands.moc"
