// PyTorch memory snapshots (tests/data/snapshots, written by make_snapshots.py) read as measured
// traces: with and without phase markers, torch 2.4 and ≥ 2.5 annotations, several devices, and
// clear errors for malformed, truncated and corrupted snapshots.
#include "TestData.h"
#include "graph/GraphError.h"
#include "io/GraphJson.h"
#include "io/MemorySnapshot.h"
#include "io/TextFile.h"
#include "io/TraceJson.h"
#include "solvers/Comparison.h"
#include "solvers/SolverRegistry.h"
#include "memory/SnapshotTrace.h"
#include "memory/TraceComparison.h"

#include <QtTest>

#include <QProcess>

#include <functional>
#include <random>

using namespace ckpt;

namespace {

std::string fixture(const char* name)
{
    return test::sourcePath(QStringLiteral("tests/data/snapshots/") + name).toStdString();
}

SnapshotImport import(const char* name, const Graph* graph = nullptr, std::optional<int> device = {})
{
    SnapshotImportOptions options;
    options.graph = graph;
    options.device = device;
    return traceFromSnapshot(readMemorySnapshotFile(fixture(name)), options);
}

// The phases of one step of make_snapshots.py's marked_step on the trace's index (2·3 + 2),
// in bytes allocated (weights 10000 and input 1024 live throughout): end, peak.
const std::vector<std::pair<std::int64_t, std::int64_t>> kMarkedStep = {
    {11024, 11024},  // 0 before the step
    {11024, 11024},  // the input's forward: no marker, phase 0's end
    {15120, 15120},  // forward of a: +4096
    {15632, 15888},  // forward of out: +256, +512, −256
    {15632, 16144},  // backward of out: +512, −512
    {15120, 20752},  // backward of a: +1024, +4096, −1024, −4096, −512
    {15120, 15120},  // the input's backward: no marker, the previous end
    {11024, 15120},  // after the step: −4096
};

void checkMarkedStep(const StepMemory& step)
{
    QCOMPARE(int(step.phases.size()), int(kMarkedStep.size()));
    for (std::size_t i = 0; i < kMarkedStep.size(); ++i) {
        QCOMPARE(step.phases[i].index, int(i));
        QCOMPARE(step.phases[i].endBytes, kMarkedStep[i].first);
        QCOMPARE(step.phases[i].peakBytes, kMarkedStep[i].second);
    }
    QCOMPARE(step.peakBytes, 20752);
    QVERIFY(step.stepMs > 0);
}

void expectError(const std::function<void()>& run, const QString& problem, const QString& where = {})
{
    try {
        run();
        QFAIL("no error");
    } catch (const GraphError& e) {
        QVERIFY2(QString::fromStdString(e.problem()).contains(problem), e.what());
        QVERIFY2(QString::fromStdString(e.where()).contains(where), e.what());
    }
}

}  // namespace

class SnapshotTraceTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void markedStepsOfTorch25()
    {
        const Graph graph = readGraphFile(fixture("chain.json"));
        const SnapshotImport imported = import("marked.pickle", &graph);
        QVERIFY(imported.phaseMarkers);
        QCOMPARE(imported.completeSteps, 2);
        const ProfileTrace& trace = imported.trace;
        QCOMPARE(trace.vertices, (std::vector<std::string>{"input", "a", "out"}));
        QCOMPARE(trace.baselineBytes, 11024);
        checkMarkedStep(trace.regular);
        checkMarkedStep(trace.checkpointed);
        QCOMPARE(trace.snapshotDevice, 0);

        // The measured step against the simulators: the phase matching holds, numbers are the fixture's.
        const auto predicted = simulateMemory(graph, runSolver("checkpoint-all", graph), MemoryModel::PyTorch);
        const TraceComparison c = compareWithTrace(graph, predicted, trace, trace.checkpointed);
        QCOMPARE(c.measuredPeak, 20752 - (11024 - 1024));
        QCOMPARE(c.phases[1].measured, 15120 - 10000);  // forward of a, above the weights
    }

    void markedStepsOfTorch24()
    {
        const Graph graph = readGraphFile(fixture("chain.json"));
        const SnapshotImport imported = import("marked-user-defined.pickle", &graph);
        QCOMPARE(imported.completeSteps, 2);  // the third is cut short
        QVERIFY(imported.trace.regular.phases.empty());  // unlabelled steps are the checkpointed ones
        checkMarkedStep(imported.trace.checkpointed);
    }

    // A real snapshot: `checkpoint_explorer profile --snapshot` of torchvision's ResNet-50, batch 8, a
    // feng-acg plan, on an H200 with torch 2.11 (frames stripped), beside the trace the same run wrote
    // from torch.cuda.memory_allocated(). The history counts requested bytes, memory_allocated whole
    // blocks (rounded to 512 bytes, a large block's unsplit rest), so above each step's baseline the
    // import is never higher and at most a few percent lower; the peaks differ by under 2.5 %.
    void profileSnapshotOfTorch211()
    {
        const Graph graph = readGraphFile(fixture("resnet50-h200.graph.json"));
        const SnapshotImport imported = import("resnet50-h200.pickle", &graph);
        QCOMPARE(imported.completeSteps, 2);
        const ProfileTrace measured = parseTraceJson(readTextFile(fixture("resnet50-h200.trace.json")));
        const auto steps = {std::pair{&imported.trace.regular, &measured.regular},
                            std::pair{&imported.trace.checkpointed, &measured.checkpointed}};
        for (const auto& [step, allocated] : steps) {
            QCOMPARE(step->phases.size(), std::size_t(2 * graph.vertexCount() + 2));
            QCOMPARE(step->phases.size(), allocated->phases.size());
            const std::int64_t base = step->phases[0].endBytes, allocatedBase = allocated->phases[0].endBytes;
            for (std::size_t i = 1; i < step->phases.size(); ++i) {
                const std::int64_t requested = step->phases[i].endBytes - base;
                const std::int64_t whole = allocated->phases[i].endBytes - allocatedBase;
                QVERIFY2(requested <= whole && requested >= whole * 0.95, qPrintable(QString::number(i)));
            }
            const double peak = double(step->peakBytes - base), allocatedPeak = double(allocated->peakBytes - allocatedBase);
            QVERIFY2(peak <= allocatedPeak && peak >= allocatedPeak * 0.975, qPrintable(QString::number(peak)));
        }
        // Each step is the one its range names: the plan's peak is well under the regular step's.
        auto above = [](const StepMemory& s) { return s.peakBytes - s.phases[0].endBytes; };
        QVERIFY(above(imported.trace.checkpointed) < above(imported.trace.regular) / 2);
    }

    void unmarkedHistoryIsACurve()
    {
        const Graph graph = readGraphFile(fixture("chain.json"));
        const SnapshotImport imported = import("unmarked.pickle", &graph);
        QVERIFY(!imported.phaseMarkers);
        QCOMPARE(imported.oomEvents, 1);
        const ProfileTrace& trace = imported.trace;
        QVERIFY(trace.checkpointed.phases.empty());
        QCOMPARE(trace.timelineAxis, TimelineAxis::TimeUs);
        // 8192 + 2048 were allocated before recording; then +1000, +3000, −2048, −1000, +500.
        const std::vector<std::int64_t> expected = {10240, 11240, 14240, 12192, 11192, 11692};
        QCOMPARE(int(trace.timeline.size()), int(expected.size()));
        for (std::size_t i = 0; i < expected.size(); ++i)
            QCOMPARE(trace.timeline[i].allocatedBytes, expected[i]);
        for (std::size_t i = 1; i < expected.size(); ++i)
            QVERIFY(trace.timeline[i].x >= trace.timeline[i - 1].x);

        const ProfileTrace back = parseTraceJson(toTraceJson(trace), "t.json");
        QVERIFY(back.fromSnapshot());
        QCOMPARE(int(back.timeline.size()), int(expected.size()));
        QCOMPARE(back.timeline[2].allocatedBytes, 14240);
        QCOMPARE(back.timeline[2].x, trace.timeline[2].x);
        QVERIFY(back.checkpointed.phases.empty());
    }

    void markersNeedAGraph()
    {
        const SnapshotImport imported = import("marked.pickle");
        QVERIFY(imported.phaseMarkers);
        QVERIFY(imported.trace.checkpointed.phases.empty());
        QVERIFY(imported.trace.timeline.size() > 20);
    }

    void markedImportRoundTrips()
    {
        const Graph graph = readGraphFile(fixture("chain.json"));
        const ProfileTrace trace = import("marked.pickle", &graph).trace;
        const ProfileTrace back = parseTraceJson(toTraceJson(trace), "t.json");
        QCOMPARE(back.vertices, trace.vertices);
        QCOMPARE(back.checkpointed.phases[5].peakBytes, 20752);
        QCOMPARE(back.regular.peakBytes, 20752);
        QCOMPARE(back.snapshotDevice, 0);
    }

    void severalDevices()
    {
        expectError([] { import("two-devices.pickle"); }, "devices 0, 1 have a history: choose one with --device");
        const ProfileTrace one = import("two-devices.pickle", nullptr, 1).trace;
        QCOMPARE(one.snapshotDevice, 1);
        QCOMPARE(one.timeline.back().allocatedBytes, 500);
        QCOMPARE(one.timeline.front().allocatedBytes, 0);
        expectError([] { import("two-devices.pickle", nullptr, 7); }, "device 7 has no allocation history");
    }

    void segmentsOnly()
    {
        expectError([] { import("segments-only.pickle"); }, "_record_memory_history");
    }

    void markersOfAnotherGraph()
    {
        const Graph bigger = readGraphFile(test::sourcePath("resources/examples/residual.json").toStdString());
        expectError([&] { import("marked.pickle", &bigger); }, "no step marks phases 0 to");
        const Graph smaller = test::makeChain({10, 20});  // trace phases 0..5
        expectError([&] { import("marked.pickle", &smaller); }, "beyond the graph's last phase 5", "byte ");
    }

    void malformedStructure_data()
    {
        QTest::addColumn<QString>("python");
        QTest::addColumn<QString>("problem");
        QTest::addColumn<QString>("where");
        QTest::newRow("segments list") << "[]" << "torch.cuda.memory._dump_snapshot" << "byte";
        QTest::newRow("no traces") << "{'segments': []}" << "no \"device_traces\"" << "byte";
        QTest::newRow("size is text") << "{'device_traces': [[{'action': 'alloc', 'size': '1'}]]}"
                                      << "expected a int, got str" << "(device_traces/0/0/size)";
        QTest::newRow("negative size") << "{'device_traces': [[{'action': 'alloc', 'size': -5}]]}"
                                       << "negative size" << "(device_traces/0/0/size)";
        QTest::newRow("no action") << "{'device_traces': [[{'size': 1}]]}" << "missing \"action\""
                                   << "(device_traces/0/0)";
        QTest::newRow("segment device") << "{'device_traces': [[]], 'segments': [{'device': 3, 'blocks': []}]}"
                                        << "device 3, but device_traces has 1" << "(segments/0/device)";
        QTest::newRow("bad stage") << "{'device_traces': [[]], 'external_annotations': [{'device': 0, 'time_us': 1, "
                                      "'stage': 'MIDDLE', 'name': 'x'}]}"
                                   << "START or END" << "(external_annotations/0/stage)";
        QTest::newRow("history beyond the segments") << "{'device_traces': [[{'action': 'alloc', 'size': 8}]]}"
                                                     << "allocated bytes go negative" << "byte";
    }

    // Each row is a Python literal pickled by /usr/bin/python3 at test time.
    void malformedStructure()
    {
        QFETCH(QString, python);
        QFETCH(QString, problem);
        QFETCH(QString, where);
        QProcess py;
        py.start("/usr/bin/python3", {"-c", "import pickle, sys; sys.stdout.buffer.write(pickle.dumps(" + python + "))"});
        QVERIFY(py.waitForFinished(30000));
        const QByteArray bytes = py.readAllStandardOutput();
        QVERIFY(!bytes.isEmpty());
        expectError(
            [&] {
                const auto snapshot = parseMemorySnapshot(std::string_view(bytes.constData(), std::size_t(bytes.size())),
                                                          "bad.pickle");
                traceFromSnapshot(snapshot, {});
            },
            problem, where);
    }

    void everyTruncationIsAnError()
    {
        const std::string bytes = readInputFile(fixture("marked.pickle"));
        for (std::size_t n = 0; n < bytes.size(); ++n) {
            try {
                parseMemorySnapshot(std::string_view(bytes).substr(0, n), "cut.pickle");
                QFAIL(qPrintable(QString("a prefix of %1 bytes was accepted").arg(n)));
            } catch (const GraphError& e) {
                QCOMPARE(e.file(), std::string("cut.pickle"));
                QVERIFY(e.where().rfind("byte ", 0) == 0);
            }
        }
    }

    // Flipped bytes: an error or a snapshot, never a crash (the sanitizer build and the fuzz
    // target check the same more thoroughly).
    void corruptedBytesNeverCrash()
    {
        const std::string original = readInputFile(fixture("marked.pickle"));
        const Graph graph = readGraphFile(fixture("chain.json"));
        std::mt19937 random(13);
        int errors = 0;
        for (int round = 0; round < 3000; ++round) {
            std::string bytes = original;
            for (int flips = 1 + int(random() % 4); flips > 0; --flips)
                bytes[random() % bytes.size()] = static_cast<char>(random() % 256);
            try {
                SnapshotImportOptions options;
                options.graph = &graph;
                traceFromSnapshot(parseMemorySnapshot(bytes), options);
            } catch (const GraphError&) {
                ++errors;
            }
        }
        QVERIFY(errors > 0);
    }

    void notARegularFile()
    {
        expectError([] { readMemorySnapshotFile(test::sourcePath("tests/data").toStdString()); }, "not a regular file");
        expectError([] { readMemorySnapshotFile("/nonexistent/x.pickle"); }, "cannot open");
    }
};

QTEST_GUILESS_MAIN(SnapshotTraceTest)
#include "tst_snapshottrace.moc"
