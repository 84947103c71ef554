// Tools ▸ Profile…: ckptx-torch runs as a subprocess, its measured step is drawn over the
// predictions with each memory model's error, and a failed run leaves the window working.
#include "GraphDocument.h"
#include "MainWindow.h"
#include "MemoryPrediction.h"
#include "MeasuredOverlay.h"
#include "MemoryChart.h"
#include "MemoryTimelineBuilder.h"
#include "ProfileRunner.h"
#include "TestData.h"
#include "ToolRun.h"
#include "graph/GraphBuilder.h"
#include "io/GraphJson.h"
#include "io/TextFile.h"
#include "io/TraceJson.h"
#include "solvers/Comparison.h"
#include "theory/PlanEvaluation.h"

#include <QDir>
#include <QFileInfo>
#include <QLineSeries>
#include <QMessageBox>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

using namespace ckpt;
using namespace ckpt::ui;

namespace {

// A trace whose checkpointed step measured exactly what the chen model predicts, plus weights.
ProfileTrace traceMatching(const Graph& g, const Plan& plan, std::int64_t weights)
{
    const MemoryProfile predicted = simulateMemory(g, plan, MemoryModel::Chen, false);
    ProfileTrace t;
    t.device = "cpu";
    for (VertexIndex v : g.topologicalOrder())
        t.vertices.push_back(g.vertex(v).id);
    const int n = g.vertexCount();  // the trace's N (the input is its forward phase 1)
    const std::int64_t input = g.bytes(g.topologicalOrder().front());
    t.baselineBytes = weights + input;
    t.checkpointed.phases.resize(std::size_t(2 * n + 2));
    for (int i = 0; i < 2 * n + 2; ++i)
        t.checkpointed.phases[std::size_t(i)] = {i, weights, weights};
    // Simulated phase p is the trace's phase p+1 forward, 2n−(2(n−1)+1−p) backward (TraceComparison.h).
    for (const PhaseMemory& p : predicted.phases) {
        const int sn = n - 1;
        const int index = p.index == 0 ? 0 : p.index <= sn ? p.index + 1 : p.index <= 2 * sn ? 2 * n - (2 * sn + 1 - p.index) : 2 * n + 1;
        t.checkpointed.phases[std::size_t(index)] = {index, p.endBytes + weights, p.peakBytes + weights + 7};
    }
    return t;
}

QString modelDir()
{
    return QFileInfo(test::binPath(QStringLiteral("ckptx-torch"))).dir().filePath(QStringLiteral("../models"));
}

struct Window {
    MainWindow window;
    Window() { window.show(); }
    bool waitForErrorDialog()
    {
        return QTest::qWaitFor([this] { return window.findChild<QMessageBox*>(QStringLiteral("errorDialog")) != nullptr; }, 5000);
    }
};

}  // namespace

class TestProfile : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void init() { QStandardPaths::setTestModeEnabled(true); }

    // The measured line is the trace less the baseline (weights), on the simulators' phases:
    // a trace that measured the chen prediction gives chen's line back and a 0 % error.
    void overlayOfAMatchingTrace()
    {
        const Graph g = test::makeGraph({100, 400, 200, 300}, {{0, 1}, {1, 2}, {2, 3}, {0, 2}});
        const Plan plan = test::planOf(g, {1});
        const MeasuredOverlay overlay = makeMeasuredOverlay(g, plan, traceMatching(g, plan, 5000));
        const MemoryProfile chen = simulateMemory(g, plan, MemoryModel::Chen, false);
        QVERIFY(overlay.measured.measured);
        QCOMPARE(overlay.measured.endBytes.size(), chen.phases.size());
        for (std::size_t i = 0; i < chen.phases.size(); ++i) {
            QCOMPARE(overlay.measured.endBytes[i], chen.phases[i].endBytes);
            QCOMPARE(overlay.measured.peakBytes[i], chen.phases[i].peakBytes + 7);
        }
        QCOMPARE(overlay.errors.size(), allMemoryModels().size());
        QCOMPARE(overlay.errors.front().model, MemoryModel::Chen);
        QCOMPARE(overlay.errors.front().comparison.meanAbsErrorPercent, 0.0);
        QVERIFY(describeErrors(overlay.errors).contains(QStringLiteral("chen: mean |error| 0.0 %")));
        QVERIFY(!overlay.stepTime);  // the trace timed no forward
        // A timed trace: the plan {1} re-forwards vertex 2 (unit compute) of a 3-vertex forward.
        ProfileTrace timed = traceMatching(g, plan, 5000);
        timed.regular.stepMs = 90;
        timed.regular.forwardMs = 30;
        timed.checkpointed.stepMs = 99;
        const auto stepTime = makeMeasuredOverlay(g, plan, timed).stepTime;
        QVERIFY(stepTime);
        QCOMPARE(stepTime->overhead, 1.0 / 3);
        QCOMPARE(describeStepTime(*stepTime),
                 QStringLiteral("step time: predicted 11 % (recompute 0.33 × the forward's 30.0 ms), measured 10 %"));
        // A trace of another graph is refused, not drawn.
        const Graph other = test::makeChain({10, 20, 30});
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, makeMeasuredOverlay(other, test::planOf(other, {}), traceMatching(g, plan, 0)));
    }

    // P35: a trace that measured the optimizer's step, of a graph whose export measured the optimizer:
    // the measured line ends with it, on the phases' offset, and its error is named.
    void overlayEndsWithTheMeasuredOptimizerStep()
    {
        const Graph g = withMetadata(test::makeGraph({100, 400, 200, 300}, {{0, 1}, {1, 2}, {2, 3}, {0, 2}}),
                                     {{"optimizer", "\"Adam\""},
                                      {"optimizer_state_bytes", "0"},
                                      {"optimizer_step_workspace_bytes", "900"}});
        const Plan plan = test::planOf(g, {1});
        ProfileTrace trace = traceMatching(g, plan, 5000);
        QVERIFY(!makeMeasuredOverlay(g, plan, trace).measured.endsWithOptimizerStep);
        const MeasuredPhase last = trace.checkpointed.phases.back();
        trace.checkpointed.optimizerStep = MeasuredPhase{last.index + 1, last.endBytes, last.endBytes + 990};
        const MeasuredOverlay overlay = makeMeasuredOverlay(g, plan, trace);
        const MemoryTimeline predicted = makeMemoryTimeline(g, plan, MemoryModel::PyTorch);
        QVERIFY(overlay.measured.endsWithOptimizerStep);
        QCOMPARE(overlay.measured.peakBytes.size(), predicted.peakBytes.size());
        const TraceComparison& pytorch = overlay.errors.back().comparison;
        QCOMPARE(*pytorch.predictedOptimizerStep, predicted.peakBytes.back());
        QCOMPARE(overlay.measured.peakBytes.back(), *pytorch.measuredOptimizerStep);
        QCOMPARE(overlay.measured.endBytes.back(), overlay.measured.endBytes[overlay.measured.endBytes.size() - 2]);
        QVERIFY(describeErrors(overlay.errors).contains(QStringLiteral(", optimizer.step() ")));
    }

    // A CUDA profile measured torch.cuda.memory_allocated(): the overlay and the predicted lines
    // beside it count the caching allocator's blocks (rule A1), and the pytorch error says so.
    void overlayOfACudaProfileCountsBlocks()
    {
        const Graph g = readGraphFile(test::sourcePath(QStringLiteral("tests/data/snapshots/resnet50-h200.graph.json")).toStdString());
        const ProfileTrace trace = parseTraceJson(readTextFile(
            test::sourcePath(QStringLiteral("tests/data/snapshots/resnet50-h200.trace.json")).toStdString()));
        Plan plan = test::planOf(g, {});
        plan.evaluation = evaluateIds(g, trace.checkpoints);
        const MeasuredOverlay overlay = makeMeasuredOverlay(g, plan, trace);
        QCOMPARE(overlay.count, MemoryCount::CudaBlocks);
        const TraceComparison& pytorch = overlay.errors.back().comparison;
        QCOMPARE(overlay.errors.back().model, MemoryModel::PyTorch);
        QVERIFY2(std::abs(pytorch.peakErrorPercent) < 1.0, qPrintable(QString::number(pytorch.peakErrorPercent)));
        const MemoryTimeline line = makeMemoryTimeline(g, plan, MemoryModel::PyTorch, overlay.count);
        QVERIFY(line.label.endsWith(QStringLiteral("CUDA blocks")));
        QCOMPARE(*std::max_element(line.peakBytes.begin(), line.peakBytes.end()), pytorch.predictedPeak);
        QVERIFY(!makeMemoryTimeline(g, plan, MemoryModel::PyTorch).label.contains(QStringLiteral("CUDA")));
    }

    // A graph exported in mixed precision (export --autocast): its lines say so, whatever the model.
    void linesOfAMixedPrecisionExportNameItsAutocast()
    {
        const Graph plain = test::makeChain({10, 20, 30});
        const Graph mixed = withMetadata(plain, {{"autocast", "\"bfloat16\""}});
        for (MemoryModel model : allMemoryModels()) {
            const MemoryTimeline line = makeMemoryTimeline(mixed, test::planOf(mixed, {}), model);
            QVERIFY2(line.label.endsWith(QStringLiteral(" · bfloat16 autocast")), qPrintable(line.label));
            QVERIFY(line.counts.contains(QStringLiteral("bfloat16 autocast forward")));
            QVERIFY(!makeMemoryTimeline(plain, test::planOf(plain, {}), model).label.contains(QStringLiteral("autocast")));
        }
    }

    void linesOfAnAccumulationStepSaySo()
    {
        const Graph plain = test::makeChain({10, 20, 30});
        const Graph accumulating = withMetadata(plain, {{"accumulate_gradients", "true"}});
        const MemoryTimeline line = makeMemoryTimeline(accumulating, test::planOf(accumulating, {}), MemoryModel::PyTorch);
        QVERIFY2(line.label.endsWith(QStringLiteral(" · accumulating gradients")), qPrintable(line.label));
        QVERIFY(line.counts.contains(QStringLiteral("gradient-accumulation step")));
        // Chen's model counts no gradients, and a plain export's step starts without them.
        QVERIFY(!makeMemoryTimeline(accumulating, test::planOf(accumulating, {}), MemoryModel::Chen)
                     .label.contains(QStringLiteral("accumulating")));
        QVERIFY(!makeMemoryTimeline(plain, test::planOf(plain, {}), MemoryModel::PyTorch)
                     .label.contains(QStringLiteral("accumulating")));
    }

    // P35: a graph whose export measured the optimizer: the pytorch line ends with optimizer.step(),
    // on what the step left plus its scratch, named so in the tooltip's pass and the CSV.
    void linesEndWithTheOptimizerStepWhereMeasured()
    {
        const Graph plain = test::makeChain({10, 20, 30});
        const Graph measured = withMetadata(plain, {{"optimizer", "\"AdamW\""},
                                                    {"optimizer_state_bytes", "64"},
                                                    {"optimizer_step_workspace_bytes", "500"}});
        const MemoryTimeline before = makeMemoryTimeline(plain, test::planOf(plain, {}), MemoryModel::PyTorch);
        const MemoryTimeline line = makeMemoryTimeline(measured, test::planOf(measured, {}), MemoryModel::PyTorch);
        QVERIFY2(line.label.endsWith(QStringLiteral(" · with optimizer.step()")), qPrintable(line.label));
        QVERIFY(line.counts.contains(QStringLiteral("AdamW's optimizer.step()")));
        QCOMPARE(line.peakBytes.size(), before.peakBytes.size() + 1);
        QCOMPARE(line.peakBytes.back(), before.endBytes.back() + 500);
        QCOMPARE(line.endBytes.back(), before.endBytes.back());
        QCOMPARE(line.passName(line.peakBytes.size() - 1), QStringLiteral("optimizer.step()"));
        QCOMPARE(line.passName(line.peakBytes.size() - 2), before.passName(before.peakBytes.size() - 1));
        MemoryChart chart;
        chart.setTimelines({line});
        QVERIFY(chart.toCsv().contains(",optimizer.step(),"));
        QVERIFY(!makeMemoryTimeline(measured, test::planOf(measured, {}), MemoryModel::Chen).endsWithOptimizerStep);
    }

    // File ▸ Open profile trace…: a trace profiled where the model trains (here a CUDA one) is drawn
    // over the prediction of the plan it lists; files that are not such a trace, or not of this graph,
    // are refused with a message naming the file, and the window keeps what it showed.
    void openAProfileTrace()
    {
        const QString trace = test::sourcePath(QStringLiteral("tests/data/snapshots/resnet50-h200.trace.json"));
        Window w;
        QVERIFY(w.window.openFile(test::sourcePath(QStringLiteral("tests/data/snapshots/resnet50-h200.graph.json"))));
        QVERIFY(w.window.openProfileTrace(trace));
        const MeasuredOverlay* overlay = w.window.measuredOverlay();
        QVERIFY(overlay);
        QCOMPARE(overlay->count, MemoryCount::CudaBlocks);
        QVERIFY2(w.window.profileText().startsWith(QStringLiteral("Measured (cuda, 1 iteration(s))")),
                 qPrintable(w.window.profileText()));
        // The measured line and the prediction of the trace's own plan (no plan shown before).
        w.window.memoryPrediction()->waitForFinished();
        const auto lines = w.window.findChild<MemoryChart*>()->timelines();
        QCOMPARE(int(lines.size()), 2);
        QVERIFY(lines[0].label.startsWith(QStringLiteral("resnet50-h200.trace · pytorch · CUDA blocks")));
        QVERIFY(lines[1].measured);

        QTemporaryDir dir;
        const QString notATrace = test::sourcePath(QStringLiteral("tests/data/snapshots/resnet50-h200.graph.json"));
        const QString otherGraph = test::sourcePath(QStringLiteral("resources/examples/residual.json"));
        for (const QString& bad : {notATrace, dir.filePath(QStringLiteral("missing.json"))}) {
            QVERIFY(!w.window.openProfileTrace(bad));
            QVERIFY(w.waitForErrorDialog());
            auto* box = w.window.findChild<QMessageBox*>(QStringLiteral("errorDialog"));
            QVERIFY2(box->text().contains(bad), qPrintable(box->text()));
            delete box;
            QCOMPARE(w.window.measuredOverlay(), overlay);  // the earlier overlay stays
        }
        QVERIFY(w.window.openFile(otherGraph));
        QVERIFY(!w.window.openProfileTrace(trace));
        QVERIFY(w.waitForErrorDialog());
        QVERIFY(w.window.findChild<QMessageBox*>(QStringLiteral("errorDialog"))->text().contains(trace));
    }

    void failedRunsLeaveTheWindowWorking_data()
    {
        QTest::addColumn<bool>("missingTool");
        QTest::newRow("ckptx-torch missing") << true;
        QTest::newRow("bogus model") << false;
    }
    void failedRunsLeaveTheWindowWorking()
    {
        QFETCH(bool, missingTool);
        const QString tool = missingTool ? QStringLiteral("/nonexistent/ckptx-torch") : test::binPath(QStringLiteral("ckptx-torch"));
        if (!missingTool && !QFileInfo::exists(tool))
            QSKIP("ckptx-torch is not built (CKPT_BUILD_TORCH off)");
        Window w;
        QVERIFY(w.window.openFile(test::sourcePath(QStringLiteral("resources/examples/residual.json"))));
        const Graph& g = *w.window.document()->graph();
        const Plan plan = test::planOf(g, {});
        w.window.setCurrentPlan(&plan);
        w.window.profiler()->setTool(tool);
        QVERIFY(w.window.startProfile({QStringLiteral("/nonexistent/model.pt"), QStringLiteral("1x3x16x16")}));
        w.window.profiler()->waitForFinished();
        QVERIFY(w.waitForErrorDialog());
        auto* box = w.window.findChild<QMessageBox*>(QStringLiteral("errorDialog"));
        QVERIFY2(box->text().contains(missingTool ? QStringLiteral("Cannot run") : QStringLiteral("exited with code 1")),
                 qPrintable(box->text()));
        QVERIFY(w.window.profileText().startsWith(QStringLiteral("Profile failed")));
        QVERIFY(!w.window.measuredOverlay());
        box->close();
        // Still usable: another profile starts, another graph opens.
        QVERIFY(w.window.startProfile({QStringLiteral("/nonexistent/model.pt"), QStringLiteral("1x3x16x16")}));
        w.window.profiler()->cancel();
        w.window.profiler()->waitForFinished();
        QVERIFY(!w.window.profiler()->isRunning());
        QVERIFY(w.window.openFile(test::sourcePath(QStringLiteral("resources/examples/fig3.json"))));
    }

    // End to end on a small TorchScript model: import (File ▸ Open TorchScript model…), profile a
    // plan, see the measured line.
    void overlayAfterAProfileRun()
    {
        const QString tool = test::binPath(QStringLiteral("ckptx-torch"));
        const QString model = QDir(modelDir()).filePath(QStringLiteral("residual.pt"));
        if (!QFileInfo::exists(tool) || !QFileInfo::exists(model))
            QSKIP("ckptx-torch or its test models are not built");
        Window w;
        w.window.profiler()->setTool(tool);
        // File ▸ Open TorchScript model…: a bogus model is reported, the real one opens.
        QVERIFY(w.window.importTorchModel({QStringLiteral("/nonexistent/model.pt"), QStringLiteral("1x3x16x16")}));
        w.window.profiler()->waitForFinished();
        QVERIFY(w.waitForErrorDialog());
        QVERIFY(!w.window.document()->graph());
        w.window.findChild<QMessageBox*>(QStringLiteral("errorDialog"))->close();
        QVERIFY(w.window.importTorchModel({model, QStringLiteral("1x3x16x16")}));
        w.window.profiler()->waitForFinished();
        QVERIFY(w.window.document()->graph());
        const Graph& g = *w.window.document()->graph();
        QVERIFY(g.find("input").has_value());
        const Plan plan = test::planOf(g, {g.topologicalOrder()[std::size_t(g.vertexCount() / 2)]});
        w.window.setCurrentPlan(&plan);
        QVERIFY(w.window.startProfile({model, QStringLiteral("1x3x16x16")}));
        w.window.profiler()->waitForFinished();
        QVERIFY2(w.window.measuredOverlay(), qPrintable(w.window.profileText()));
        QVERIFY2(w.window.profileText().contains(QStringLiteral("pytorch: mean |error|")), qPrintable(w.window.profileText()));
        QVERIFY2(w.window.profileText().contains(QStringLiteral("step time: predicted")), qPrintable(w.window.profileText()));
        w.window.memoryPrediction()->waitForFinished();
        const MemoryChart* chart = w.window.memoryChart();
        const auto& timelines = chart->timelines();
        QCOMPARE(timelines.size(), std::size_t(2));  // the plan's prediction and the measured step
        QVERIFY(!timelines.front().measured);
        QVERIFY(timelines.back().measured);
        const MemoryTimeline& measured = w.window.measuredOverlay()->measured;
        const QLineSeries* line = chart->peakSeries(1);
        QCOMPARE(line->count(), int(measured.peakBytes.size()));
        QCOMPARE(std::size_t(line->count()), std::size_t(2 * g.vertexCount()));
        for (int i = 0; i < line->count(); ++i)
            QCOMPARE(line->at(i).y() * chart->unitBytes(), double(measured.peakBytes[std::size_t(i)]));
        for (const ModelError& e : w.window.measuredOverlay()->errors)
            QCOMPARE(e.comparison.phases.size(), measured.endBytes.size());
    }

    // Tools ▸ Profile… with a Python model (FILE.py:FACTORY): the graph the package exported, the
    // plan shown, profiled by `python3 -m checkpoint_explorer profile` with the interpreter named; the
    // inputs as typed, one per argument, positional or by keyword (NAME=SHAPE, as Hugging Face models
    // take input_ids=).
    void overlayAfterAPythonProfileRun_data()
    {
        QTest::addColumn<QString>("factory");
        QTest::addColumn<QString>("inputs");
        QTest::newRow("positional") << QStringLiteral("vit") << QStringLiteral("2x3x32x32");
        QTest::newRow("keywords") << QStringLiteral("keyword_lm")
                                  << QStringLiteral("input_ids=2x64:int64:1000 attention_mask=2x64:int64:2");
    }

    void overlayAfterAPythonProfileRun()
    {
        QFETCH(QString, factory);
        QFETCH(QString, inputs);
        const QString python = QStringLiteral("/usr/bin/python3");
        const QString models = QStringLiteral(CKPT_SOURCE_DIR "/tests/python/models.py");
        QProcess probe;
        probe.start(python, {QStringLiteral("-c"), QStringLiteral("import torch, torchvision")});
        if (!probe.waitForFinished(60000) || probe.exitCode() != 0)
            QSKIP("no /usr/bin/python3 with torch and torchvision");
        QTemporaryDir dir;
        const QString graphFile = dir.filePath(QStringLiteral("graph.json"));
        QProcess exporter;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("PYTHONPATH"), QStringLiteral(CKPT_SOURCE_DIR "/app/python"));
        exporter.setProcessEnvironment(env);
        QStringList exportArguments{QStringLiteral("-m"), QStringLiteral("checkpoint_explorer"), QStringLiteral("export"),
                                    models + QLatin1Char(':') + factory};
        for (const QString& input : inputs.split(QLatin1Char(' ')))
            exportArguments << QStringLiteral("--input") << input;
        exporter.start(python, exportArguments << QStringLiteral("-o") << graphFile);
        QVERIFY(exporter.waitForFinished(300000));
        QVERIFY2(exporter.exitCode() == 0, exporter.readAllStandardError().constData());
        Window w;
        w.window.openFile(graphFile);
        QVERIFY(QTest::qWaitFor([&] { return w.window.document()->graph() != nullptr; }, 10000));
        const Graph& g = *w.window.document()->graph();
        const Plan plan = test::planOf(g, {g.topologicalOrder()[std::size_t(g.vertexCount() / 2)]});
        w.window.setCurrentPlan(&plan);
        ProfileRequest request{models + QLatin1Char(':') + factory, inputs};
        request.python = python;
        QVERIFY(request.isPythonModel());
        QVERIFY(w.window.startProfile(request));
        w.window.profiler()->waitForFinished();
        QVERIFY2(w.window.measuredOverlay(), qPrintable(w.window.profileText()));
        QVERIFY2(w.window.profileText().contains(QStringLiteral("pytorch: mean |error|")), qPrintable(w.window.profileText()));
        QVERIFY2(w.window.profileText().contains(QStringLiteral("step time: predicted")), qPrintable(w.window.profileText()));
        // A model that is not this graph's is refused by the package, in one line, and the window stays.
        ProfileRequest other{models + QStringLiteral(":gpt"), QStringLiteral("2x32:int64:100")};
        other.python = python;
        QVERIFY(w.window.startProfile(other));
        w.window.profiler()->waitForFinished();
        QVERIFY(w.waitForErrorDialog());
    }
};

QTEST_MAIN(TestProfile)
#include "tst_profile.moc"
