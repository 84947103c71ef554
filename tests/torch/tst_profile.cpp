// ckptx-torch profile: the checkpointed step's gradients equal the regular step's on residual,
// dense and inception-like graphs (op and module granularity, plans with several entries and
// exits per segment), one trace entry per training phase, and a smaller measured peak.
#include "TorchTool.h"

#include "io/GraphJson.h"
#include "io/PlanJson.h"
#include "io/TextFile.h"
#include "io/TraceJson.h"
#include "theory/PlanEvaluation.h"

#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

using namespace ckpt;
using namespace ckpt::test;

namespace {

struct Profiled {
    Graph graph;
    ProfileTrace trace;
    PlanEvaluation plan;
};

// Checkpoints every `stride`-th vertex of the topological order (none for stride 0).
std::vector<std::string> everyNth(const Graph& graph, int stride)
{
    std::vector<std::string> ids;
    const auto& order = graph.topologicalOrder();
    for (std::size_t k = 1; stride > 0 && k + 1 < order.size(); ++k)
        if (k % stride == 0)
            ids.push_back(graph.vertex(order[k]).id);
    return ids;
}

Profiled profile(const QString& model, const QString& input, const QString& granularity, int stride, const QString& dir)
{
    const QString graphFile = dir + "/graph.json", planFile = dir + "/plan.json", traceFile = dir + "/trace.json";
    ToolRun run = runCkptxTorch({"import", modelPath(model), "--input", input, "--granularity", granularity, "-o", graphFile});
    if (run.exitCode != 0)
        throw std::runtime_error(run.err.toStdString());
    Profiled result{readGraphFile(graphFile.toStdString()), {}, {}};
    const auto checkpoints = everyNth(result.graph, stride);
    result.plan = evaluateIds(result.graph, checkpoints);
    Plan plan;
    plan.solver = "every-nth";
    plan.evaluation = result.plan;
    writePlanFile(planFile.toStdString(), result.graph, plan);
    run = runCkptxTorch({"profile", modelPath(model), "--graph", graphFile, "--plan", planFile, "--input", input,
                         "--device", "cpu", "-o", traceFile});
    if (run.exitCode != 0)
        throw std::runtime_error(run.err.toStdString());
    result.trace = parseTraceJson(readTextFile(traceFile.toStdString()), traceFile.toStdString());
    return result;
}

// A segment with several exits and an entry between two of them (as in a dense block, where a
// checkpoint both reads the segment and feeds it): each exit must back-propagate through the
// segment before that entry's own backward.
bool hasEntryBetweenExits(const Profiled& p)
{
    for (const Segment& s : p.plan.segments)
        for (VertexIndex e : s.entries)
            if (s.exits.size() > 1 && p.graph.topologicalPosition(e) > p.graph.topologicalPosition(s.exits.front()) &&
                p.graph.topologicalPosition(e) < p.graph.topologicalPosition(s.exits.back()))
                return true;
    return false;
}

}  // namespace

class TorchProfileTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void gradientsAndPhases_data();
    void gradientsAndPhases();
    void checkpointedPeakIsLower();
    void badPlan();
};

void TorchProfileTest::gradientsAndPhases_data()
{
    QTest::addColumn<QString>("model");
    QTest::addColumn<QString>("granularity");
    QTest::addColumn<int>("stride");
    for (const char* model : {"residual", "dense", "inception_like"})
        for (auto [granularity, stride] : {std::pair{"op", 0}, {"op", 2}, {"module", 3}}) {
            const QString tag = QString("%1/%2/every %3").arg(model, granularity).arg(stride);
            QTest::newRow(qPrintable(tag)) << QString(model) << QString(granularity) << stride;
        }
}

void TorchProfileTest::gradientsAndPhases()
{
    QFETCH(QString, model);
    QFETCH(QString, granularity);
    QFETCH(int, stride);
    QTemporaryDir dir;
    const Profiled p = profile(model, "2x3x16x16", granularity, stride, dir.path());
    QVERIFY2(p.trace.gradientsMatch, p.trace.mismatch.c_str());
    QCOMPARE(p.trace.device, std::string("cpu"));
    const int n = p.graph.vertexCount();
    QCOMPARE(int(p.trace.vertices.size()), n);
    for (const StepMemory* step : {&p.trace.regular, &p.trace.checkpointed}) {
        QCOMPARE(int(step->phases.size()), 2 * n + 2);
        std::int64_t peak = 0;
        for (int i = 0; i < int(step->phases.size()); ++i) {
            const MeasuredPhase& phase = step->phases[i];
            QCOMPARE(phase.index, i);
            QVERIFY(phase.peakBytes >= phase.endBytes);
            QVERIFY(phase.endBytes >= 0);
            peak = std::max(peak, phase.peakBytes);
        }
        QCOMPARE(step->peakBytes, peak);
        QCOMPARE(step->phases.front().endBytes, p.trace.baselineBytes);
        // Forward allocates beyond the weights and input; after the step the gradients remain.
        QVERIFY(step->peakBytes > p.trace.baselineBytes);
        QVERIFY(step->phases.back().endBytes >= p.trace.baselineBytes);
        QVERIFY(step->stepMs > 0);
    }
    if (stride == 0)
        QVERIFY(p.trace.checkpoints.size() == 2);  // the input and the output
    else
        QVERIFY(!p.plan.isISPlan || p.plan.segments.size() > 1);
    if (model == "dense" && granularity == "module")
        QVERIFY(hasEntryBetweenExits(p));
}

// A chain whose activations dominate (no convolution workspaces): keeping a few of them cuts
// the measured peak, as the plan's objective predicts.
void TorchProfileTest::checkpointedPeakIsLower()
{
    QTemporaryDir dir;
    const Profiled p = profile("mlp", "512x256", "op", 4, dir.path());
    QVERIFY2(p.trace.gradientsMatch, p.trace.mismatch.c_str());
    QVERIFY2(p.trace.checkpointed.peakBytes < p.trace.regular.peakBytes,
             qPrintable(QString("checkpointed %1 >= regular %2").arg(p.trace.checkpointed.peakBytes).arg(p.trace.regular.peakBytes)));
    QVERIFY(p.trace.checkpointed.stepMs > 0);
}

void TorchProfileTest::badPlan()
{
    QTemporaryDir dir;
    const QString graphFile = dir.path() + "/graph.json", planFile = dir.path() + "/plan.json";
    QCOMPARE(runCkptxTorch({"import", modelPath("residual"), "--input", "1x3x16x16", "-o", graphFile}).exitCode, 0);
    // A plan file for this graph that names a vertex it does not have.
    const Graph graph = readGraphFile(graphFile.toStdString());
    Plan plan;
    plan.solver = "hand-written";
    plan.evaluation = evaluate(graph, {});
    nlohmann::json planJson = nlohmann::json::parse(toPlanJson(graph, plan));
    planJson["checkpoints"] = {"no such vertex"};
    writeTextFileAtomically(planFile.toStdString(), planJson.dump());
    ToolRun run = runCkptxTorch({"profile", modelPath("residual"), "--graph", graphFile, "--plan", planFile, "--input",
                                 "1x3x16x16", "-o", dir.path() + "/t.json"});
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.err.contains("no such vertex"), run.err.constData());
    // A plan made for another graph is refused by its fingerprint.
    const QString otherGraph = dir.path() + "/dense.json";
    QCOMPARE(runCkptxTorch({"import", modelPath("dense"), "--input", "1x3x16x16", "-o", otherGraph}).exitCode, 0);
    writePlanFile(planFile.toStdString(), graph, plan);
    run = runCkptxTorch({"profile", modelPath("dense"), "--graph", otherGraph, "--plan", planFile, "--input",
                         "1x3x16x16", "-o", dir.path() + "/t.json"});
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.err.contains("the plan was made for a different graph"), run.err.constData());
    // A graph of another model is refused by name.
    run = runCkptxTorch({"profile", modelPath("dense"), "--graph", graphFile, "--plan", planFile, "--input", "1x3x16x16",
                         "-o", dir.path() + "/t.json"});
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.err.contains("dense.pt: the graph has vertex"), run.err.constData());
}

QTEST_GUILESS_MAIN(TorchProfileTest)
#include "tst_profile.moc"
