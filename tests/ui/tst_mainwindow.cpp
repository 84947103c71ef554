#include "GraphDocument.h"
#include "MainWindow.h"
#include "TestData.h"
#include "ToolRun.h"
#include "VertexTableModel.h"

#include <QAbstractItemModelTester>
#include <QMessageBox>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

using namespace ckpt;
using namespace ckpt::ui;

namespace {

// A graph file with a negative size at /vertices/0/bytes.
QString writeNegativeSizeGraph(const QTemporaryDir& dir)
{
    return test::writeFile(dir.path(), "bad.json", R"({"vertices": [{"id": "a", "bytes": -3}]})");
}

}  // namespace

class MainWindowTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName("CheckpointExplorerTests");
    }

    void vertexModelPassesTheModelTester()
    {
        VertexTableModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setGraph(std::make_shared<const Graph>(test::makeGraph({1, 2048, 3}, {{0, 1}, {1, 2}, {0, 2}})));
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(model.index(1, VertexTableModel::Bytes).data().toString(), QString("2.00 KiB"));
        QCOMPARE(model.index(1, VertexTableModel::Bytes).data(VertexTableModel::RawValueRole).toLongLong(), 2048);
        model.setGraph(nullptr);
        QCOMPARE(model.rowCount(), 0);
    }

    void opensAFileAndShowsItsVertices()
    {
        MainWindow window;
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(window.openFile(test::sourcePath("resources/examples/residual.json")));
        QAbstractItemModel* model = window.vertexTable()->model();
        QCOMPARE(model->rowCount(), window.document()->graph()->vertexCount());
        QCOMPARE(model->rowCount(), 14);
        QCOMPARE(model->index(0, VertexTableModel::Id).data().toString(), QString("input"));
        QVERIFY2(window.statusText().startsWith("14 vertices · 16 edges"), qPrintable(window.statusText()));
        QVERIFY(window.windowTitle().contains("Small residual network"));
    }

    void opensABundledExample()
    {
        MainWindow window;
        QVERIFY(window.openFile(":/examples/supp-fig2-chain.json"));
        QCOMPARE(window.vertexTable()->model()->rowCount(), 6);
        QVERIFY(window.statusText().contains("chain"));
    }

    void aBadFileShowsAnErrorAndKeepsTheGraph()
    {
        MainWindow window;
        QVERIFY(window.openFile(":/examples/fig3.json"));
        QTemporaryDir dir;
        const QString bad = writeNegativeSizeGraph(dir);
        QVERIFY(!window.openFile(bad));
        auto* box = window.findChild<QMessageBox*>("errorDialog");
        QVERIFY(box);
        QVERIFY2(box->text().contains(bad) && box->text().contains("/vertices/0/bytes"), qPrintable(box->text()));
        QCOMPARE(window.vertexTable()->model()->rowCount(), 4);  // fig3 is still shown
    }

    // A screenshot run of a graph that cannot be opened said nothing and wrote pictures of an empty window.
    void screenshotOfABadFileExitsWithTheReason()
    {
        QTemporaryDir dir;
        const QString bad = writeNegativeSizeGraph(dir);
        const test::ToolRun run = test::runTool("checkpoint-explorer", {bad, "--screenshot", dir.filePath("shots")}, 60000);
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.err.contains(bad.toUtf8()) && run.err.contains("/vertices/0/bytes"), run.err.constData());
        QVERIFY(!QFileInfo::exists(dir.filePath("shots/window.png")));
    }

    void recentFilesRemembered()
    {
        MainWindow window;
        const QString path = test::sourcePath("resources/examples/inception.json");
        QVERIFY(window.openFile(path));
        QSettings settings;
        QCOMPARE(settings.value("recentFiles").toStringList().value(0), QFileInfo(path).absoluteFilePath());
    }
};

QTEST_MAIN(MainWindowTest)
#include "tst_mainwindow.moc"
