// File ▸ Open memory snapshot…: a snapshot with phase markers is drawn over the current plan's
// predictions, one without is a curve over time, and a bad one is an error dialog.
#include "GraphDocument.h"
#include "MainWindow.h"
#include "MeasuredOverlay.h"
#include "SnapshotOpener.h"
#include "SnapshotTimelineChart.h"
#include "TestData.h"
#include "theory/PlanEvaluation.h"

#include <QAction>
#include <QLineSeries>
#include <QMessageBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

using namespace ckpt;
using namespace ckpt::ui;

namespace {

QString fixture(const char* name)
{
    return test::sourcePath(QStringLiteral("tests/data/snapshots/") + name);
}

void open(MainWindow& window, const QString& path)
{
    window.openMemorySnapshot(path);
    window.snapshotOpener()->waitForFinished();
}

}  // namespace

class TestMemorySnapshot : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void init() { QStandardPaths::setTestModeEnabled(true); }

    void markedSnapshotOverlaysThePlan()
    {
        MainWindow window;
        window.show();
        QVERIFY(window.findChild<QAction*>(QStringLiteral("openSnapshotAction")));
        QVERIFY(window.openFile(fixture("chain.json")));
        const Graph& g = *window.document()->graph();
        Plan plan;
        plan.solver = "all";
        plan.evaluation = evaluate(g, {0, 1, 2});
        window.setCurrentPlan(&plan);
        open(window, fixture("marked.pickle"));
        QVERIFY(window.measuredOverlay());
        QCOMPARE(window.measuredOverlay()->measured.endBytes.size(), std::size_t(6));
        QCOMPARE(window.measuredOverlay()->measured.peakBytes[4], 20752 - 10000);  // backward of a
        QVERIFY2(window.profileText().contains(QStringLiteral("mean |error|")), qPrintable(window.profileText()));
        QVERIFY(!window.profileText().contains(QStringLiteral("Gradients differ")));
    }

    void unmarkedSnapshotIsACurveOverTime()
    {
        MainWindow window;
        window.show();
        open(window, fixture("unmarked.pickle"));
        QVERIFY(window.snapshotChart());
        QVERIFY(window.snapshotChart()->isVisible());
        // 6 samples drawn as steps: 6 + 5 points, the last at 11692 bytes.
        QCOMPARE(window.snapshotChart()->series()->count(), 11);
        QCOMPARE(window.snapshotChart()->series()->at(10).y(), 11692.0 / (1024 * 1024));
        QVERIFY(!window.measuredOverlay());
    }

    void badSnapshotIsAnErrorDialog()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("bad.pickle");
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("\x80\x02" "cos\nsystem\n.", 14);
        file.close();
        MainWindow window;
        window.show();
        open(window, path);
        QVERIFY(QTest::qWaitFor([&] { return window.findChild<QMessageBox*>(QStringLiteral("errorDialog")) != nullptr; }, 5000));
        const QString text = window.findChild<QMessageBox*>(QStringLiteral("errorDialog"))->text();
        QVERIFY2(text.contains(path + QStringLiteral(": byte 2: refuses global os.system")), qPrintable(text));
        QVERIFY(!window.snapshotChart());
    }
};

QTEST_MAIN(TestMemorySnapshot)
#include "tst_memorysnapshot.moc"
