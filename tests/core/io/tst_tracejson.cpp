// TRACE.json (ckptx-torch profile): round trip and errors naming the JSON pointer.
#include "graph/GraphError.h"
#include "io/TraceJson.h"

#include <QtTest>

using namespace ckpt;

class TraceJsonTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void roundTrip();
    void badInput_data();
    void badInput();
};

void TraceJsonTest::roundTrip()
{
    ProfileTrace trace;
    trace.model = "m.pt";
    trace.device = "cpu";
    trace.inputShape = {1, 3, 8, 8};
    trace.iterations = 2;
    trace.vertices = {"input", "a", "out"};
    trace.checkpoints = {"input", "out"};
    trace.gradientsMatch = false;
    trace.mismatch = "a.weight: gradients differ";
    trace.rtol = 1e-4;
    trace.atol = 1e-5;
    trace.baselineBytes = 100;
    trace.regular = {300, 1.5, 0.5, {{0, 100, 100}, {1, 150, 160}}, std::nullopt};
    trace.checkpointed = {250, 2.5, 0, {{0, 100, 100}, {1, 120, 250}}, MeasuredPhase{2, 120, 400}};
    const ProfileTrace back = parseTraceJson(toTraceJson(trace));
    QCOMPARE(back.vertices, trace.vertices);
    QCOMPARE(back.checkpoints, trace.checkpoints);
    QCOMPARE(back.inputShape, trace.inputShape);
    QCOMPARE(back.gradientsMatch, false);
    QCOMPARE(back.mismatch, trace.mismatch);
    QCOMPARE(back.baselineBytes, 100);
    QCOMPARE(back.regular.peakBytes, 300);
    QCOMPARE(back.checkpointed.stepMs, 2.5);
    QCOMPARE(back.regular.forwardMs, 0.5);
    QCOMPARE(back.checkpointed.forwardMs, 0.0);  // not measured: not written, read as 0
    const std::string text = toTraceJson(trace);
    QCOMPARE(text.find("\"forward_ms\""), text.rfind("\"forward_ms\""));  // the regular step's alone
    QCOMPARE(int(back.checkpointed.phases.size()), 2);
    QCOMPARE(back.checkpointed.phases[1].peakBytes, 250);
    QCOMPARE(back.rtol, 1e-4);
    // P35: optimizer.step() after the last phase, where the profile ran the optimizer.
    QVERIFY(!back.regular.optimizerStep);
    QVERIFY(back.checkpointed.optimizerStep);
    QCOMPARE(back.checkpointed.optimizerStep->index, 2);
    QCOMPARE(back.checkpointed.optimizerStep->peakBytes, 400);
    QCOMPARE(back.checkpointed.optimizerStep->endBytes, 120);
}

void TraceJsonTest::badInput_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("where");
    const QString step = "{\"peak_bytes\": 1, \"phases\": []}";
    QTest::newRow("no device") << "{\"gradients_match\": true, \"baseline_bytes\": 0}" << "/device";
    QTest::newRow("no regular") << "{\"device\": \"cpu\", \"gradients_match\": true, \"baseline_bytes\": 0}"
                                << "/regular";
    QTest::newRow("bad phase") << "{\"device\": \"cpu\", \"gradients_match\": true, \"baseline_bytes\": 0, \"regular\": " +
                                      step + ", \"checkpointed\": {\"peak_bytes\": 1, \"phases\": [{\"index\": 0}]}}"
                               << "/checkpointed/phases/0/end_bytes";
    QTest::newRow("wrong schema") << "{\"schema\": \"other\"}" << "/schema";
    QTest::newRow("forward longer than the step")
        << "{\"device\": \"cpu\", \"gradients_match\": true, \"baseline_bytes\": 0, \"regular\": {\"peak_bytes\": 1, "
           "\"step_ms\": 2, \"forward_ms\": 3, \"phases\": []}}"
        << "/regular";
    QTest::newRow("optimizer step peak below its end")
        << "{\"device\": \"cpu\", \"gradients_match\": true, \"baseline_bytes\": 0, \"regular\": {\"peak_bytes\": 1, "
           "\"phases\": [], \"optimizer_step\": {\"end_bytes\": 9, \"peak_bytes\": 8}}}"
        << "/regular/optimizer_step";
    QTest::newRow("optimizer step without its peak")
        << "{\"device\": \"cpu\", \"gradients_match\": true, \"baseline_bytes\": 0, \"regular\": {\"peak_bytes\": 1, "
           "\"phases\": [], \"optimizer_step\": {\"end_bytes\": 9}}}"
        << "/regular/optimizer_step/peak_bytes";
}

void TraceJsonTest::badInput()
{
    QFETCH(QString, text);
    QFETCH(QString, where);
    try {
        parseTraceJson(text.toStdString(), "t.json");
        QFAIL("no error");
    } catch (const GraphError& e) {
        QCOMPARE(QString::fromStdString(e.where()), where);
        QCOMPARE(e.file(), std::string("t.json"));
    }
}

QTEST_GUILESS_MAIN(TraceJsonTest)
#include "tst_tracejson.moc"
