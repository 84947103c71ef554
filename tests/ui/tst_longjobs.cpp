// Long jobs (issue 16, "Deliver for scale" 3): the budget sweep's MILP stops within a second of
// Cancel and honours its time limit within 10 %; closing the window ends every job, CBC's child
// processes included; an exception escaping a job (out of memory) is a message, not an abort.
#include "BackgroundTask.h"
#include "DagPanel.h"
#include "GraphDocument.h"
#include "MainWindow.h"
#include "MemoryChart.h"
#include "MemoryPrediction.h"
#include "ParetoPanel.h"
#include "SolversPanel.h"
#include "TestData.h"
#include "solvers/BudgetSweep.h"
#include "solvers/Comparison.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QtTest>

#include <unistd.h>

#include <new>
#include <stdexcept>

using namespace ckpt;
using namespace ckpt::ui;

namespace {

// A graph whose Checkmate MILP keeps CBC busy far longer than these tests wait: 61 residual
// blocks, 184 forward and 369 training nodes.
std::shared_ptr<const Graph> bigGraph()
{
    return std::make_shared<const Graph>(test::makeResidualNetwork(60));
}

// The sweep's hardest budget first (the lower bound), then checkpoint-all's peak.
BudgetSweepSettings milpSweep(double seconds)
{
    BudgetSweepSettings s;
    s.solvers = {"checkmate-milp"};
    s.points = 2;
    s.timeLimit = seconds;
    return s;
}

// This process's live child processes (CBC runs in forked children).
int childProcesses()
{
    int count = 0;
    const QDir tasks(QStringLiteral("/proc/self/task"));
    for (const QString& task : tasks.entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        QFile children(tasks.filePath(task + QStringLiteral("/children")));
        if (children.open(QIODevice::ReadOnly))
            count += int(QString::fromLatin1(children.readAll()).split(QLatin1Char(' '), Qt::SkipEmptyParts).size());
    }
    return count;
}

// Waits (events running) until a CBC child exists, at most `ms`.
bool waitForChild(int ms)
{
    QElapsedTimer timer;
    timer.start();
    while (childProcesses() == 0 && timer.elapsed() < ms)
        QTest::qWait(20);
    return childProcesses() > 0;
}

}  // namespace

class LongJobsTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("CheckpointExplorerTests"));
        if (!QFileInfo(QStringLiteral("/proc/self/task")).isDir())
            QSKIP("needs /proc to see child processes");
    }

    void budgetSweepStopsWithinASecondOfCancel()
    {
        ParetoPanel panel;
        panel.setGraph(bigGraph());
        panel.setSettings(milpSweep(120));
        panel.compute();
        QVERIFY2(waitForChild(20000), "CBC never started");
        QTest::qWait(300);  // CBC inside its root LP
        QElapsedTimer timer;
        timer.start();
        panel.cancel();
        panel.waitForFinished();
        const qint64 took = timer.elapsed();
        qInfo("cancel took %lld ms", took);
        QVERIFY2(took < 1000 * test::timingSlack(), qPrintable(QStringLiteral("cancel took %1 ms").arg(took)));
        QVERIFY(!panel.result());
        QCOMPARE(childProcesses(), 0);
    }

    void budgetSweepHonoursItsTimeLimitWithinTenPercent()
    {
        // A sanitizer build scales the limit, not only the tolerance: its fixed costs would eat a
        // 4 s limit's share (reaping a killed CBC child there takes ~1 s against 0.1 s in a release
        // build, as the cancel test above shows; fresh-clone CI on ba69910 overshot 4 s by 1.23 s).
        const double limit = 4 * test::timingSlack();
        ParetoPanel panel;
        panel.setGraph(bigGraph());
        panel.setSettings(milpSweep(limit));
        QElapsedTimer timer;
        timer.start();
        panel.compute();
        panel.waitForFinished();
        const double took = double(timer.elapsed()) / 1000;
        QVERIFY(panel.result());
        // The second point (checkpoint-all's peak) is solved without CBC; the first ran to the limit.
        const BudgetSweepRow& hard = panel.result()->rows.front();
        qInfo("the MILP took %.2f s, the sweep %.2f s", hard.seconds, took);
        const double overshoot = 0.1 * test::timingSlack();
        QVERIFY2(hard.seconds <= limit * (1 + overshoot), qPrintable(QStringLiteral("the MILP took %1 s").arg(hard.seconds)));
        QVERIFY2(took <= limit * (1 + overshoot) + 0.5 * test::timingSlack(),
                 qPrintable(QStringLiteral("the sweep took %1 s").arg(took)));
        QCOMPARE(childProcesses(), 0);
    }

    void closingTheWindowEndsEveryJobAndChildProcess()
    {
        auto window = std::make_unique<MainWindow>();
        window->document()->setGraph(bigGraph(), QStringLiteral("big.json"));
        window->dagPanel()->waitForLayout();
        window->paretoPanel()->setSettings(milpSweep(120));
        window->paretoPanel()->compute();
        window->solversPanel()->setSelectedSolvers({QStringLiteral("checkmate-milp")});
        window->solversPanel()->setOption(QStringLiteral("checkmate-milp"), QStringLiteral("time-limit"), QStringLiteral("120"));
        window->solversPanel()->run();
        QVERIFY2(waitForChild(20000), "CBC never started");
        QElapsedTimer timer;
        timer.start();
        QVERIFY(window->close());
        window.reset();  // what the application does after its last window closed
        const qint64 took = timer.elapsed();
        qInfo("closing took %lld ms", took);
        QVERIFY2(took < 1000 * test::timingSlack(), qPrintable(QStringLiteral("closing took %1 ms").arg(took)));
        QCOMPARE(childProcesses(), 0);
    }

    // The memory chart's lines are simulated off the UI thread (a 1M-vertex step takes 1.6 s, 26 s
    // through the CUDA allocator's blocks): the window draws them when they are ready, never draws a
    // graph's lines after another graph opened, and Cancel keeps what was drawn.
    void memoryChartPredictsInTheBackground()
    {
        MainWindow window;
        const auto big = std::make_shared<const Graph>(test::makeResidualNetwork(3000));
        window.document()->setGraph(big, QStringLiteral("big.json"));
        const Plan plan = test::planOf(*big, {big->topologicalOrder()[std::size_t(big->vertexCount() / 2)]});
        MemoryPrediction* prediction = window.memoryPrediction();
        QSignalSpy ready(prediction, &MemoryPrediction::ready);
        window.setCurrentPlan(&plan);
        QVERIFY(prediction->isRunning());
        QVERIFY(window.memoryChart()->timelines().empty());
        prediction->waitForFinished();
        QCOMPARE(ready.count(), 1);
        QCOMPARE(window.memoryChart()->timelines().size(), std::size_t(1));
        const MemoryProfile expected = simulateMemory(*big, plan, MemoryModel::PyTorch, false);
        const std::vector<std::int64_t>& drawn = window.memoryChart()->timelines().front().peakBytes;
        QCOMPARE(drawn.size(), expected.phases.size());
        for (std::size_t i = 0; i < drawn.size(); ++i)
            QCOMPARE(drawn[i], expected.phases[i].peakBytes);

        // Cancel: the prediction under the other model is never drawn.
        window.setMemoryModel(MemoryModel::Chen);
        QVERIFY(prediction->isRunning());
        window.findChild<QPushButton*>(QStringLiteral("cancelPrediction"))->click();
        prediction->waitForFinished();
        QCOMPARE(ready.count(), 1);
        QCOMPARE(window.memoryChart()->timelines().front().peakBytes, drawn);

        // Another graph while the old one's lines are being simulated: they are never drawn.
        window.setMemoryModel(MemoryModel::PyTorch);
        QVERIFY(prediction->isRunning());
        window.document()->setGraph(std::make_shared<const Graph>(test::makeResidualNetwork(2)), QStringLiteral("small.json"));
        prediction->waitForFinished();
        QVERIFY(window.memoryChart()->timelines().empty());
        window.dagPanel()->waitForLayout();
    }

    void anExceptionInAJobIsAMessage()
    {
        BackgroundTask task;
        QSignalSpy finished(&task, &BackgroundTask::finished);
        task.start([](const std::atomic<bool>&, const BackgroundTask::Progress&) { throw std::bad_alloc(); });
        task.waitForFinished();
        QCOMPARE(finished.count(), 1);
        QCOMPARE(finished.first().first().toBool(), false);
        QVERIFY2(task.error().startsWith(QStringLiteral("out of memory")), qPrintable(task.error()));

        task.start([](const std::atomic<bool>&, const BackgroundTask::Progress&) { throw std::runtime_error("disk on fire"); });
        task.waitForFinished();
        QCOMPARE(task.error(), QStringLiteral("disk on fire"));

        task.start([](const std::atomic<bool>&, const BackgroundTask::Progress&) {});
        task.waitForFinished();
        QVERIFY(task.error().isEmpty());
    }
};

QTEST_MAIN(LongJobsTest)
#include "tst_longjobs.moc"
