// The defects of issue 16's first-use trial, one test each (Find has its own, with the DAG view).
#include "ByteAxis.h"
#include "ComparisonModel.h"
#include "DagPanel.h"
#include "DagView.h"
#include "DivisionTreeView.h"
#include "ExplainPanel.h"
#include "Export.h"
#include "GraphDocument.h"
#include "ImportDialog.h"
#include "MainWindow.h"
#include "MemoryPrediction.h"
#include "MemoryChart.h"
#include "ProfileRunner.h"
#include "ParetoPanel.h"
#include "SolversPanel.h"
#include "SweepPanel.h"
#include "TestData.h"
#include "solvers/BudgetSweep.h"
#include "solvers/SolverRegistry.h"
#include "theory/PlanEvaluation.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDockWidget>
#include <QHeaderView>
#include <QLegendMarker>
#include <QLineEdit>
#include <QMessageBox>
#include <QMenuBar>
#include <QPushButton>
#include <QScreen>
#include <QSettings>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QValueAxis>
#include <QtTest>

#include <cmath>

using namespace ckpt;
using namespace ckpt::ui;

namespace {

QString examplePath(const char* name)
{
    return test::sourcePath(QStringLiteral("resources/examples/%1.json").arg(QLatin1String(name)));
}

// Runs these solvers in the window, waits, returns the comparison's rows.
int solve(MainWindow& window, const QStringList& solvers)
{
    window.solversPanel()->setSelectedSolvers(solvers);
    window.solversPanel()->run();
    window.solversPanel()->waitForFinished();
    return window.solversPanel()->model()->rowCount();
}

int rowOf(const SolversPanel& panel, const std::string& solver)
{
    for (int row = 0; row < panel.model()->rowCount(); ++row)
        if (panel.model()->run(row).solver == solver)
            return row;
    return -1;
}

QValueAxis* valueAxis(QChart* chart, Qt::Orientation orientation)
{
    const auto axes = chart->axes(orientation);
    return axes.isEmpty() ? nullptr : qobject_cast<QValueAxis*>(axes.first());
}

// Round: the range's ends are whole multiples of the tick step, which is 1, 2 or 5 x 10^k.
bool isRound(const QValueAxis& axis)
{
    const double step = (axis.max() - axis.min()) / (axis.tickCount() - 1);
    const double mantissa = step / std::pow(10.0, std::floor(std::log10(step) + 1e-9));
    const bool niceStep = std::abs(mantissa - 1) < 1e-6 || std::abs(mantissa - 2) < 1e-6 || std::abs(mantissa - 5) < 1e-6;
    auto whole = [step](double v) { return std::abs(v / step - std::round(v / step)) < 1e-6; };
    return niceStep && whole(axis.min()) && whole(axis.max());
}

}  // namespace

class TrialDefectsTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("CheckpointExplorerTests"));
        QSettings().remove(QStringLiteral("window"));
    }

    // Crash from the trial: after several graphs and three error dialogs, File > Open TorchScript model...
    // segfaulted in QGraphicsItem::group() (a dangling item). The same session, scripted; the sanitize
    // preset runs it under AddressSanitizer + UBSan, where use of a dead item or view is an error.
    void sessionOfGraphsErrorsAndATorchScriptImportStaysValid()
    {
        MainWindow window;
        window.resize(1000, 700);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QTemporaryDir dir;
        const QStringList bad{test::writeFile(dir.path(), "cycle.json",
                                              R"({"vertices":[{"id":"a","bytes":1},{"id":"b","bytes":1}],)"
                                              R"("edges":[{"from":"a","to":"b"},{"from":"b","to":"a"}]})"),
                              test::writeFile(dir.path(), "negative.json", R"({"vertices":[{"id":"a","bytes":-3}]})"),
                              test::writeFile(dir.path(), "model.pt", "not a TorchScript archive")};
        int dialogs = 0;
        for (const char* example : {"fig3", "inception", "residual", "dense-block"}) {
            QVERIFY(window.openFile(test::sourcePath(QStringLiteral("resources/examples/%1.json").arg(example))));
            window.dagPanel()->waitForLayout();
            QCoreApplication::processEvents();
            // Select a vertex and a tree node: items the next graph's scene must not keep pointing at.
            window.dagView()->selectVertices({window.dagView()->graph()->sink()});
            window.treeView()->selectNode(int(window.treeView()->tree().nodes.size()) - 1);
            QVERIFY(!window.openFile(bad[dialogs % bad.size()]));
            ++dialogs;
            QCOMPARE(window.findChildren<QMessageBox*>(QStringLiteral("errorDialog")).size(), qsizetype(1));
            window.findChild<QMessageBox*>(QStringLiteral("errorDialog"))->close();
            QCoreApplication::processEvents();
        }
        QVERIFY(dialogs >= 3);
        // File > Open TorchScript model... with a file that is not one: an error, the graph kept.
        const int rows = window.vertexTable()->model()->rowCount();
        ImportRequest request;
        request.model = bad.back();
        request.inputShape = QStringLiteral("1x3x8x8");
        window.importTorchModel(request);
        QVERIFY(QTest::qWaitFor([&window] { return window.findChild<QMessageBox*>(QStringLiteral("errorDialog")) != nullptr; }, 60000));
        QVERIFY2(window.findChild<QMessageBox*>(QStringLiteral("errorDialog"))->text().contains("model.pt"),
                 qPrintable(window.findChild<QMessageBox*>(QStringLiteral("errorDialog"))->text()));
        QCOMPARE(window.vertexTable()->model()->rowCount(), rows);
        window.dagView()->selectVertices({window.dagView()->graph()->source()});
        QCoreApplication::processEvents();
    }

    // Window: sized from the screen, its layout saved on close and restored; Reset layout.
    void windowFitsTheScreenSavesItsLayoutAndResets()
    {
        QSize saved;
        {
            MainWindow window;
            const QSize available = window.screen()->availableGeometry().size();
            QVERIFY2(window.width() <= available.width() && window.height() <= available.height(),
                     qPrintable(QStringLiteral("%1x%2 on a %3x%4 screen").arg(window.width()).arg(window.height())
                                    .arg(available.width()).arg(available.height())));
            window.show();
            QVERIFY(QTest::qWaitForWindowExposed(&window));
            window.resize(window.size() + QSize(123, 45));
            saved = window.size();
            window.findChild<QDockWidget*>(QStringLiteral("verticesDock"))->hide();
            QVERIFY(window.close());
        }
        MainWindow restored;
        restored.restoreSavedLayout();
        restored.show();
        QVERIFY(QTest::qWaitForWindowExposed(&restored));
        QCOMPARE(restored.size(), saved);
        auto* vertices = restored.findChild<QDockWidget*>(QStringLiteral("verticesDock"));
        QVERIFY(vertices->isHidden());
        auto* reset = restored.findChild<QAction*>(QStringLiteral("resetLayoutAction"));
        QVERIFY(reset);
        reset->trigger();
        QVERIFY(!vertices->isHidden());
        QVERIFY(restored.size() != saved);
        QSettings().remove(QStringLiteral("window"));
    }

    // Memory chart: pytorch by default, the chart says what each model counts, round ticks in a
    // unit picked from the data.
    void memoryChartDefaultsToPytorchAndSaysWhatItCounts()
    {
        MainWindow window;
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(window.openFile(examplePath("residual")));
        QVERIFY(solve(window, {QStringLiteral("feng-acg"), QStringLiteral("checkpoint-all")}) == 2);
        window.solversPanel()->selectRows({0, 1});
        window.memoryPrediction()->waitForFinished();
        MemoryChart* chart = window.memoryChart();
        QCOMPARE(int(chart->timelines().size()), 2);
        for (const MemoryTimeline& t : chart->timelines())
            QVERIFY2(t.label.endsWith(QStringLiteral("pytorch")), qPrintable(t.label));
        QVERIFY2(chart->chart()->title().contains(QStringLiteral("pytorch counts")), qPrintable(chart->chart()->title()));
        window.setMemoryModel(MemoryModel::Chen);
        window.memoryPrediction()->waitForFinished();
        QVERIFY(chart->chart()->title().contains(QStringLiteral("chen counts")));
        QValueAxis* y = valueAxis(chart->chart(), Qt::Vertical);
        QVERIFY(y);
        QVERIFY2(isRound(*y), qPrintable(QStringLiteral("%1..%2, %3 ticks").arg(y->min()).arg(y->max()).arg(y->tickCount())));
        QVERIFY(y->titleText().contains(chart->unitName()));
        // One legend entry per plan (its peak in it) plus the backward shading: the names fit.
        window.findChild<QDockWidget*>(QStringLiteral("memoryDock"))->raise();
        QApplication::processEvents();
        int shown = 0;
        for (QLegendMarker* marker : chart->chart()->legend()->markers())
            shown += marker->isVisible() ? 1 : 0;
        QCOMPARE(shown, 2 + 1);
    }

    void byteAxesPickTheirUnitAndRoundTicks()
    {
        const ByteAxis small = byteAxis(0, 12'700);  // ~12.4 KiB: not "0.0124 KiB"... nor bytes
        QCOMPARE(small.unitName, QStringLiteral("KiB"));
        QCOMPARE(small.ticks.low, 0.0);
        QVERIFY(small.ticks.high >= 12'700 / 1024.0 && small.ticks.high <= 20);
        const ByteAxis big = byteAxis(10'000LL << 20, 11'160LL << 20);  // was "1.116e+04 MiB"
        QCOMPARE(big.unitName, QStringLiteral("GiB"));
        QVERIFY(big.ticks.low <= 10'000 / 1024.0 && big.ticks.high >= 11'160 / 1024.0);
        QVERIFY(big.ticks.decimals >= 1);
        const ByteAxis empty = byteAxis(0, 0);  // was "0 0 0 0 1"
        QCOMPARE(empty.unitName, QStringLiteral("B"));
        QCOMPARE(empty.ticks.decimals, 0);
        QVERIFY(empty.ticks.step >= 1);
        const RoundTicks ticks = roundTicks(0.93, 1.41);
        QVERIFY(ticks.low <= 0.93 && ticks.high >= 1.41);
        QCOMPARE(ticks.step, 0.1);
        QCOMPARE(ticks.decimals, 1);
    }

    // C sweep: the axis is the step; a C that rounds like its neighbour is shown exactly.
    void sweepShowsStepsAndExactBytesWhenRoundingCollides()
    {
        SweepPanel panel;
        Sweep sweep;
        sweep.entries = {{229'376, {}, 1000}, {229'400, {}, 900}, {1'000'000, {}, 950}};
        sweep.winner = 1;
        panel.setSweep(sweep, QStringLiteral("feng-acg"));
        QVERIFY2(panel.summary().contains(QStringLiteral("229400 B")), qPrintable(panel.summary()));
        QVERIFY(panel.summary().contains(QStringLiteral("step 2 of 3")));
        panel.setCurrentEntry(2);
        QVERIFY2(!panel.summary().contains(QStringLiteral(" B)")), qPrintable(panel.summary()));
    }

    // Division tree: Ctrl+wheel zooms, Ctrl+0 fits, the "+" box is a button, parallel branches
    // are told apart, the legend never scrolls with the drawing.
    void divisionTreeZoomsFitsExpandsAndNamesBranches()
    {
        MainWindow window;
        window.resize(1366, 768);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(window.openFile(examplePath("inception")));
        DivisionTreeView* tree = window.treeView();
        QCOMPARE(tree->viewportUpdateMode(), QGraphicsView::FullViewportUpdate);

        const double before = tree->zoom();
        const QPoint centre = tree->viewport()->rect().center();
        QWheelEvent wheel(centre, tree->viewport()->mapToGlobal(centre), QPoint(), QPoint(0, 240), Qt::NoButton,
                          Qt::ControlModifier, Qt::NoScrollPhase, false);
        QApplication::sendEvent(tree->viewport(), &wheel);
        QVERIFY2(tree->zoom() > before * 1.2, qPrintable(QStringLiteral("%1 -> %2").arg(before).arg(tree->zoom())));
        tree->setFocus();
        QTest::keyClick(tree, Qt::Key_0, Qt::ControlModifier);
        QVERIFY(tree->mapFromScene(tree->sceneRect()).boundingRect().width() <= tree->viewport()->width() + 2);

        // Parallel branches between the same two vertices read differently; exactly the nodes with
        // such a sibling are marked parallel.
        const TreeDisplay& display = tree->tree();
        int parallel = 0;
        std::vector<bool> hasTwin(display.nodes.size(), false);
        for (std::size_t i = 0; i < display.nodes.size(); ++i)
            for (std::size_t j = i + 1; j < display.nodes.size(); ++j)
                if (display.nodes[i].parent == display.nodes[j].parent && display.nodes[i].parent >= 0 &&
                    display.nodes[i].source == display.nodes[j].source && display.nodes[i].target == display.nodes[j].target) {
                    hasTwin[i] = hasTwin[j] = true;
                    if (display.nodes[i].interiorSize > 0) {
                        ++parallel;
                        QVERIFY(tree->labelLines(int(i)) != tree->labelLines(int(j)));
                    }
                }
        QVERIFY(parallel > 0);
        for (std::size_t i = 0; i < display.nodes.size(); ++i)
            QCOMPARE(display.nodes[i].parallel, bool(hasTwin[i]));

        // A click on a node's "−" box collapses it, on its "+" box expands it.
        int inner = -1;
        for (std::size_t i = 0; i < display.nodes.size() && inner < 0; ++i)
            if (!display.nodes[i].children.empty() && !tree->isCollapsed(int(i)))
                inner = int(i);
        QVERIFY(inner >= 0);
        tree->fitWholeTree();
        auto clickMarker = [&] {
            const QRectF r = tree->nodeRect(inner);
            const QPoint at = tree->mapFromScene(QPointF(r.right() - 10, r.bottom() - 10));
            QTest::mouseClick(tree->viewport(), Qt::LeftButton, Qt::NoModifier, at);
        };
        clickMarker();
        QVERIFY(tree->isCollapsed(inner));
        clickMarker();
        QVERIFY(!tree->isCollapsed(inner));
    }

    // Comparison: a failed row explains its failure; a Pareto click selects the plan's row.
    void comparisonFollowsFailuresAndParetoClicks()
    {
        MainWindow window;
        QVERIFY(window.openFile(examplePath("residual")));
        QCOMPARE(solve(window, {QStringLiteral("feng-lcg"), QStringLiteral("feng-acg"), QStringLiteral("checkpoint-all")}), 3);
        SolversPanel* solvers = window.solversPanel();
        const int failed = rowOf(*solvers, "feng-lcg");  // residual is no chain
        QVERIFY(failed >= 0 && !solvers->model()->run(failed).plan);
        solvers->selectRow(rowOf(*solvers, "feng-acg"));
        QVERIFY(window.explainPanel()->toPlainText().contains(QStringLiteral("Sweep: C =")));  // feng-acg's step
        solvers->selectRow(failed);
        const QString explained = window.explainPanel()->toPlainText();
        QVERIFY2(explained.contains(QStringLiteral("feng-lcg found no plan")) && !explained.contains(QStringLiteral("Sweep")),
                 qPrintable(explained));

        BudgetSweepSettings settings;
        settings.solvers = {"feng-acg", "checkpoint-all"};
        window.paretoPanel()->setSettings(settings);
        window.paretoPanel()->compute();
        window.paretoPanel()->waitForFinished();
        const auto& curves = window.paretoPanel()->curves();
        QVERIFY(!curves.empty() && curves.front().solver == QStringLiteral("feng-acg") && !curves.front().rows.empty());
        window.paretoPanel()->choosePoint(0, 0);
        QVERIFY(window.currentPlan());
        const QModelIndex current = solvers->table()->selectionModel()->currentIndex();
        if (current.isValid()) {  // the table shows that very plan, or nothing
            QCOMPARE(solvers->model()->run(current.row()).plan->checkpoints(), window.currentPlan()->checkpoints());
            QCOMPARE(solvers->selectedPlans().size(), std::size_t(1));
        } else {
            QVERIFY(solvers->selectedPlans().empty());
        }
        // A plan the table has (a sweep step's "(C=…)" belongs to its solver) selects its row.
        const int feng = rowOf(*solvers, "feng-acg");
        Plan same = *solvers->model()->run(feng).plan;
        same.solver += " (C=1024)";
        solvers->selectRow(failed);
        QVERIFY(solvers->showPlanInTable(same));
        QCOMPARE(solvers->table()->selectionModel()->currentIndex().row(), feng);
    }

    void comparisonTableShowsItsRowsAtSmallWindowSizes()
    {
        MainWindow window;
        window.resize(1366, 768);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(window.openFile(examplePath("residual")));
        QStringList fast;
        for (const Solver* s : allSolvers())
            if (s->fast())
                fast << QString::fromStdString(s->name());
        const int rows = solve(window, fast);
        QVERIFY(rows >= 8);
        QTableView* table = window.solversPanel()->table();
        QApplication::processEvents();
        const int visible = table->viewport()->height() / table->verticalHeader()->defaultSectionSize();
        QVERIFY2(visible >= 8, qPrintable(QStringLiteral("%1 of %2 rows visible").arg(visible).arg(rows)));
    }

    void smallDefects()
    {
        // Exporting without an extension gets the chosen type's.
        QCOMPARE(withFilterSuffix(QStringLiteral("/tmp/plan"), QStringLiteral("Plan JSON (*.json)")), QStringLiteral("/tmp/plan.json"));
        QCOMPARE(withFilterSuffix(QStringLiteral("/tmp/plan.txt"), QStringLiteral("Plan JSON (*.json)")), QStringLiteral("/tmp/plan.txt"));
        QCOMPARE(withFilterSuffix(QStringLiteral("g"), QStringLiteral("SVG drawing (*.svg)")), QStringLiteral("g.svg"));

        // Every bundled example is in File ▸ Examples.
        MainWindow window;
        QStringList examples;
        for (QAction* menu : window.menuBar()->actions())
            if (menu->menu())
                for (QAction* action : menu->menu()->actions())
                    if (action->menu() && action->text().contains(QStringLiteral("Examples")))
                        for (QAction* example : action->menu()->actions())
                            examples << example->text();
        for (const char* name : {"alexnet-chain", "vgg19-chain", "residual", "inception"})
            QVERIFY2(examples.contains(QLatin1String(name)), name);
        QVERIFY(window.openFile(QStringLiteral(":/examples/alexnet-chain.json")));

        // The import dialog: a format hint, granularity and dtype; the shape normalised.
        ImportDialog dialog(QStringLiteral("/models/net.pt"));
        auto* input = dialog.findChild<QLineEdit*>(QStringLiteral("importInput"));
        QVERIFY(input && !input->placeholderText().isEmpty());
        auto* ok = dialog.findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok);
        input->setText(QStringLiteral("1 x 3 X 224×224"));
        QVERIFY(ok->isEnabled());
        dialog.findChild<QComboBox*>(QStringLiteral("importGranularity"))->setCurrentIndex(1);
        dialog.findChild<QComboBox*>(QStringLiteral("importDtype"))->setCurrentText(QStringLiteral("float64"));
        const ImportRequest request = dialog.request();
        QCOMPARE(request.inputShape, QStringLiteral("1x3x224x224"));
        QCOMPARE(request.granularity, QStringLiteral("module"));
        QCOMPARE(request.dtype, QStringLiteral("float64"));
        input->setText(QStringLiteral("224 by 224"));
        QVERIFY(!ok->isEnabled());

        // "1 segment", not "1 segments".
        const Graph chain = test::makeChain({1, 2, 3});
        Plan all;
        all.solver = "by hand";
        all.evaluation = evaluate(chain, {0, 2});
        ExplainPanel explain;
        explain.showPlan(chain, all);
        QVERIFY2(explain.toPlainText().contains(QStringLiteral("1 segment ")), qPrintable(explain.toPlainText()));
        QVERIFY(!explain.toPlainText().contains(QStringLiteral("1 segments")));
    }
};

QTEST_MAIN(TrialDefectsTest)
#include "tst_trialdefects.moc"
