// A plan's step time from the recompute cost and the regular step's measured forward (issue 14 §2).
#include "memory/StepTimeComparison.h"

#include <QtTest>

using namespace ckpt;

namespace {

ProfileTrace timedTrace(double regularMs, double forwardMs, double checkpointedMs)
{
    ProfileTrace trace;
    trace.regular.stepMs = regularMs;
    trace.regular.forwardMs = forwardMs;
    trace.checkpointed.stepMs = checkpointedMs;
    return trace;
}

}  // namespace

class TestStepTimeComparison : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void reForwardAddsTheMeasuredForward_data()
    {
        QTest::addColumn<double>("forwardMs");
        QTest::addColumn<double>("overhead");
        QTest::addColumn<double>("predictedMs");
        // A CNN: the backward takes about two forwards, re-forwarding it all adds a third.
        QTest::newRow("cnn, whole forward again") << 30.0 << 1.0 << 130.0;
        // A transformer: forward and backward about even, so the same plan costs half a step more.
        QTest::newRow("transformer, whole forward again") << 48.0 << 1.0 << 148.0;
        QTest::newRow("a quarter of the forward") << 48.0 << 0.25 << 112.0;
        QTest::newRow("nothing recomputed") << 48.0 << 0.0 << 100.0;
    }

    void reForwardAddsTheMeasuredForward()
    {
        QFETCH(double, forwardMs);
        QFETCH(double, overhead);
        QFETCH(double, predictedMs);
        const auto c = compareStepTime(timedTrace(100, forwardMs, 140), overhead);
        QVERIFY(c);
        QCOMPARE(c->predictedMs(), predictedMs);
        QCOMPARE(c->predictedOverhead(), predictedMs / 100 - 1);
        QCOMPARE(c->measuredOverhead(), 0.4);
    }

    void untimedTracesPredictNothing()
    {
        QVERIFY(!compareStepTime(timedTrace(100, 0, 140), 1.0));  // an older trace: no forward_ms
        QVERIFY(!compareStepTime(timedTrace(0, 0, 0), 1.0));       // a memory snapshot's
        QVERIFY(!compareStepTime(timedTrace(100, 40, 0), 1.0));    // no checkpointed step timed
    }
};

QTEST_GUILESS_MAIN(TestStepTimeComparison)
#include "tst_steptimecomparison.moc"
