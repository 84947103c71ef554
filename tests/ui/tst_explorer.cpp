// The explorer window end to end: open, lay out, solve, select, scrub, click the tree, export.
#include "ComparisonModel.h"
#include "DagPanel.h"
#include "DagView.h"
#include "DivisionTreeView.h"
#include "ExplainPanel.h"
#include "Export.h"
#include "GraphDocument.h"
#include "MainWindow.h"
#include "MemoryPrediction.h"
#include "MemoryChart.h"
#include "MiniMap.h"
#include "Palette.h"
#include "SolversPanel.h"
#include "SweepPanel.h"
#include "TestData.h"
#include "io/PlanJson.h"
#include "solvers/Comparison.h"
#include "theory/PlanEvaluation.h"

#include <QAbstractItemModelTester>
#include <QImage>
#include <QLineEdit>
#include <QLineSeries>
#include <QPushButton>
#include <QSlider>
#include <QStandardPaths>
#include <QSvgRenderer>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

using namespace ckpt;
using namespace ckpt::ui;

namespace {

VertexIndex id(const Graph& g, const char* name)
{
    return *g.find(name);
}

// The DAG shows exactly this evaluation: checkpoints orange, each segment in its own colour.
void checkColouring(DagView& view, const PlanEvaluation& e)
{
    const Graph& g = *view.graph();
    std::vector<bool> checkpoint(std::size_t(g.vertexCount()), false);
    for (VertexIndex c : e.checkpoints)
        checkpoint[std::size_t(c)] = true;
    for (VertexIndex v = 0; v < g.vertexCount(); ++v) {
        QCOMPARE(view.vertexItem(v)->isCheckpoint(), bool(checkpoint[std::size_t(v)]));
        if (checkpoint[std::size_t(v)])
            QCOMPARE(view.vertexItem(v)->fill(), palette::checkpointFill());
    }
    for (std::size_t s = 0; s < e.segments.size(); ++s)
        for (VertexIndex v : e.segments[s].vertices)
            QCOMPARE(view.vertexItem(v)->fill(), palette::segmentFill(int(s)));
}

struct OpenWindow {
    MainWindow window;
    const Graph* graph = nullptr;
    explicit OpenWindow(const QString& file)
    {
        window.show();
        if (!QTest::qWaitForWindowExposed(&window) || !window.openFile(test::sourcePath(file)))
            return;
        window.dagPanel()->waitForLayout();
        graph = window.document()->graph().get();
    }
};

// The index of the tree node of this kind between these vertices (-1 when none).
int treeNode(const TreeDisplay& tree, const Graph& g, TreeDisplay::Kind kind, const char* source, const char* target)
{
    for (std::size_t i = 0; i < tree.nodes.size(); ++i)
        if (tree.nodes[i].kind == kind && tree.nodes[i].source == id(g, source) && tree.nodes[i].target == id(g, target))
            return int(i);
    return -1;
}

// Runs one solver in the window and makes its plan current.
const Plan* solveWith(MainWindow& window, const QString& solver)
{
    SolversPanel* panel = window.solversPanel();
    panel->setSelectedSolvers({solver});
    panel->run();
    panel->waitForFinished();
    if (panel->model()->rowCount() != 1 || !panel->model()->run(0).plan)
        return nullptr;
    panel->selectRow(0);
    return window.currentPlan();
}

}  // namespace

class ExplorerTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName("CheckpointExplorerTests");
    }

    void comparisonModelPassesTheModelTesterAndMarksLosers()
    {
        const Graph g = test::makeChain({1, 5, 1, 5, 1});
        ComparisonModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        std::vector<SolverRun> runs;
        runs.push_back({"checkpoint-all", test::planOf(g, {0, 1, 2, 3, 4}, "checkpoint-all"), {}, {}});
        runs.push_back({"exhaustive", test::planOf(g, {0, 2, 4}, "exhaustive"), {}, {}});
        runs.push_back({"feng-lcg", std::nullopt, {}, "not a linear graph"});
        model.setRuns(runs);
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(*model.referenceObjective(), std::int64_t(3 + 5));
        QVERIFY(model.losesToReference(0));
        QVERIFY(!model.losesToReference(1));
        QVERIFY(!model.losesToReference(2));
        QCOMPARE(model.index(0, ComparisonModel::Objective).data(ComparisonModel::RawValueRole).toLongLong(), 13);
        QVERIFY(model.index(0, ComparisonModel::Verdict).data().toString().contains("loses to exhaustive"));
        QVERIFY(model.index(2, ComparisonModel::Verdict).data().toString().contains("not a linear graph"));
        QVERIFY(model.index(0, ComparisonModel::Verdict).data(Qt::BackgroundRole).isValid());
        model.setRuns({});
        QCOMPARE(model.rowCount(), 0);
    }

    // P35: where every plan's iteration peaks in the optimizer's step, the least recompute is
    // recommended, and the verdict says why.
    void recommendsTheLeastRecomputeUnderTheOptimizerStep()
    {
        const Graph g = test::makeChain({1, 5, 1, 5, 1});
        std::vector<SolverRun> runs;
        runs.push_back({"exhaustive", test::planOf(g, {0, 2, 4}, "exhaustive"), {}, {}});
        runs.push_back({"checkpoint-all", test::planOf(g, {0, 1, 2, 3, 4}, "checkpoint-all"), {}, {}});
        runs[0].costs.peakPyTorch = 9;
        runs[0].costs.recomputedCompute = 2;
        runs[1].costs.peakPyTorch = 12;
        ComparisonModel model;
        model.setRuns(runs);
        QVERIFY(model.index(0, ComparisonModel::Verdict).data().toString().contains("recommended (lowest pytorch peak)"));
        for (SolverRun& run : runs)
            run.costs.optimizerStepBytes = 20;
        model.setRuns(runs);
        QVERIFY(!model.index(0, ComparisonModel::Verdict).data().toString().contains("recommended"));
        const QString verdict = model.index(1, ComparisonModel::Verdict).data().toString();
        QVERIFY2(verdict.contains("recommended") && verdict.contains("optimizer.step()"), qPrintable(verdict));
        QVERIFY(model.index(1, ComparisonModel::Verdict).data(Qt::ToolTipRole).toString().startsWith(verdict));
    }

    void runsSolversAndColoursTheSelectedPlan()
    {
        OpenWindow w("resources/examples/residual.json");
        QVERIFY(w.graph);
        SolversPanel* solvers = w.window.solversPanel();
        solvers->run();
        solvers->waitForFinished();
        QVERIFY(solvers->model()->rowCount() >= 1);
        QAbstractItemModelTester tester(solvers->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        for (int row = 0; row < solvers->model()->rowCount(); ++row) {
            const SolverRun& run = solvers->model()->run(row);
            if (!run.plan)
                continue;
            solvers->selectRow(row);
            QCOMPARE(w.window.currentPlan()->solver, run.solver);
            checkColouring(*w.window.dagView(), run.plan->evaluation);
        }
        // A plan with real segments (block2's two branches are two IS), each in its own colour.
        const Plan p = test::planOf(*w.graph, {id(*w.graph, "block1.add"), id(*w.graph, "block2.add")});
        w.window.setCurrentPlan(&p);
        QCOMPARE(p.evaluation.segments.size(), std::size_t(4));
        checkColouring(*w.window.dagView(), p.evaluation);
        QVERIFY(palette::segmentFill(0) != palette::segmentFill(1));
    }

    void scrubbingTheSweepRecoloursTheDag()
    {
        OpenWindow w("resources/examples/residual.json");
        QVERIFY(w.graph);
        const Graph& g = *w.graph;
        const Plan* plan = solveWith(w.window, "feng-acg");
        QVERIFY(plan && plan->sweep);
        const Sweep sweep = *plan->sweep;
        QVERIFY(sweep.entries.size() >= 3 && sweep.winner >= 1);
        SweepPanel* panel = w.window.sweepPanel();
        QCOMPARE(panel->currentEntry(), sweep.winner);  // starts at the winner
        QVERIFY(panel->summary().contains("winner"));
        checkColouring(*w.window.dagView(), evaluate(g, sweep.entries[std::size_t(sweep.winner)].checkpoints));
        panel->slider()->setFocus();
        QTest::keyClick(panel->slider(), Qt::Key_Left);
        QCOMPARE(panel->currentEntry(), sweep.winner - 1);
        checkColouring(*w.window.dagView(), evaluate(g, sweep.entries[std::size_t(sweep.winner - 1)].checkpoints));
        QTest::keyClick(panel->slider(), Qt::Key_End);
        QCOMPARE(panel->currentEntry(), int(sweep.entries.size()) - 1);
        checkColouring(*w.window.dagView(), evaluate(g, sweep.entries.back().checkpoints));

        // The Explain panel names the IS whose segment exceeds the current C, and only those.
        QTest::keyClick(panel->slider(), Qt::Key_Home);
        const TreeDisplay& tree = w.window.treeView()->tree();
        auto named = [&](const TreeDisplay::Node& n) {
            return QString::fromStdString(g.vertex(n.source).name + " → " + g.vertex(n.target).name + " (");
        };
        const QString atFirst = w.window.explainPanel()->toPlainText();
        int exceeding = 0;
        for (const TreeDisplay::Node& n : tree.nodes)
            if (n.segmentCost > sweep.entries.front().c && exceeding++ < 12)
                QVERIFY2(atFirst.contains(named(n)), qPrintable(atFirst));
        QVERIFY(exceeding > 0);
        panel->setCurrentEntry(sweep.winner);
        const QString atWinner = w.window.explainPanel()->toPlainText();
        for (const TreeDisplay::Node& n : tree.nodes)
            QCOMPARE(atWinner.contains(named(n)), n.segmentCost > sweep.entries[std::size_t(sweep.winner)].c);
    }

    void clickingATreeNodeHighlightsItsISAndBack()
    {
        OpenWindow w("resources/examples/residual.json");
        QVERIFY(w.graph);
        const Graph& g = *w.graph;
        DivisionTreeView* tree = w.window.treeView();
        const TreeDisplay& t = tree->tree();
        QCOMPARE(t.nodes.front().kind, TreeDisplay::Kind::Linear);
        const int branch = treeNode(t, g, TreeDisplay::Kind::Branch, "conv1", "block1.add");
        QVERIFY(branch > 0);
        tree->parentWidget()->raise();
        QApplication::processEvents();
        tree->ensureVisible(tree->nodeRect(branch));
        const QPoint at = tree->mapFromScene(tree->nodeRect(branch).center());
        QVERIFY(tree->viewport()->rect().contains(at));
        QTest::mouseClick(tree->viewport(), Qt::LeftButton, {}, at);
        QCOMPARE(tree->selectedNode(), branch);
        DagView* dag = w.window.dagView();
        using E = VertexItem::Emphasis;
        QCOMPARE(dag->vertexItem(id(g, "conv1"))->emphasis(), E::Endpoint);
        QCOMPARE(dag->vertexItem(id(g, "block1.add"))->emphasis(), E::Endpoint);
        QCOMPARE(dag->vertexItem(id(g, "block1.conv1"))->emphasis(), E::Interior);
        QCOMPARE(dag->vertexItem(id(g, "block1.conv2"))->emphasis(), E::Interior);
        QCOMPARE(dag->vertexItem(id(g, "pool"))->emphasis(), E::Dimmed);
        const QString text = w.window.explainPanel()->toPlainText();
        QVERIFY2(text.contains("Branch (Def. 4)") && text.contains("2 branches"), qPrintable(text));

        // Selecting DAG vertices selects the smallest IS holding them.
        dag->selectVertices({id(g, "block2.conv1"), id(g, "block2.downsample")});
        QCOMPARE(tree->selectedNode(), treeNode(t, g, TreeDisplay::Kind::Branch, "block1.add", "block2.add"));
        QCOMPARE(dag->vertexItem(id(g, "block2.conv2"))->emphasis(), E::Interior);
        dag->selectVertices({id(g, "block1.conv1"), id(g, "block3.conv1")});
        QCOMPARE(tree->selectedNode(), 0);
        // The vertex table selects in the graph too (and so in the tree).
        w.window.vertexTable()->selectRow(id(g, "block2.downsample"));
        QCOMPARE(dag->selectedVertices(), std::vector<VertexIndex>{id(g, "block2.downsample")});
        // One vertex: the smallest IS around it, here block2's downsample branch.
        QCOMPARE(t.nodes[std::size_t(tree->selectedNode())].source, id(g, "block1.add"));
        QCOMPARE(t.interior(tree->selectedNode()), std::vector<VertexIndex>{id(g, "block2.downsample")});

        // Runs of single edges start collapsed; selecting a hidden node expands its ancestors.
        const int linear = treeNode(t, g, TreeDisplay::Kind::Linear, "conv1", "block1.add");
        QVERIFY(linear > 0 && tree->isCollapsed(linear));
        const int leaf = t.nodes[std::size_t(linear)].children.front();
        QVERIFY(tree->nodeRect(leaf).isNull());
        tree->selectNode(leaf);
        QVERIFY(!tree->isCollapsed(linear));
        QVERIFY(!tree->nodeRect(leaf).isNull());
        QVERIFY(w.window.explainPanel()->toPlainText().contains("A single edge"));
    }

    void comparisonMarksPlansThatLoseToExhaustiveOrOptimal()
    {
        OpenWindow w("resources/examples/residual.json");
        QVERIFY(w.graph);
        SolversPanel* panel = w.window.solversPanel();
        panel->setSelectedSolvers({"checkpoint-all", "feng-acg", "exhaustive"});
        panel->run();
        panel->waitForFinished();
        ComparisonModel* model = panel->model();
        QCOMPARE(model->rowCount(), 3);
        QVERIFY(model->referenceObjective().has_value());
        QVERIFY(model->losesToReference(0));   // checkpoint-all
        QVERIFY(!model->losesToReference(1));  // feng-acg: optimal among IS plans (Theorem 2)
        QVERIFY(!model->losesToReference(2));
        QVERIFY(model->index(0, ComparisonModel::Verdict).data().toString().contains("loses to exhaustive"));

        // optimal searches every plan, not only IS plans: on this graph the best IS plan loses to it.
        panel->setSelectedSolvers({"exhaustive", "optimal", "exhaustive-general"});
        panel->run();
        panel->waitForFinished();
        QCOMPARE(model->rowCount(), 3);
        QVERIFY2(model->run(1).plan, model->run(1).error.c_str());
        QCOMPARE(*model->referenceObjective(), model->run(1).plan->objective());
        QCOMPARE(model->run(1).plan->objective(), model->run(2).plan->objective());
        QVERIFY(model->losesToReference(0));
        QVERIFY(model->index(0, ComparisonModel::Verdict).data().toString().contains("loses to optimal"));
        QVERIFY(!model->losesToReference(2));
    }

    void searchFindsVerticesWithNextAndPrevious()
    {
        OpenWindow w("resources/examples/residual.json");
        QVERIFY(w.graph);
        DagPanel* panel = w.window.dagPanel();
        QTest::keyClick(&w.window, Qt::Key_F, Qt::ControlModifier);
        QVERIFY(panel->searchField()->hasFocus());
        QTest::keyClicks(panel->searchField(), "BLOCK2");
        DagView* dag = panel->view();
        QCOMPARE(dag->matches().size(), std::size_t(4));
        QCOMPARE(dag->currentMatch(), 0);
        QCOMPARE(dag->selectedVertices(), std::vector<VertexIndex>{dag->matches()[0]});
        QCOMPARE(dag->vertexItem(dag->matches()[3])->emphasis(), VertexItem::Emphasis::SearchMatch);
        dag->previousMatch();
        QCOMPARE(dag->currentMatch(), 3);
        dag->nextMatch();
        QCOMPARE(dag->currentMatch(), 0);
        QCOMPARE(dag->find("no such vertex"), 0);
    }

    void bigGraphsGetAMinimapAndLayoutCanBeCancelled()
    {
        DagPanel panel;
        panel.resize(700, 500);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        const auto big = std::make_shared<const Graph>(test::makeResidualNetwork(60));
        panel.setGraph(big);
        panel.waitForLayout();
        QCOMPARE(panel.view()->scene()->items().size(), qsizetype(big->vertexCount() + big->edgeCount()));
        QVERIFY(panel.view()->miniMap()->isVisible());
        panel.view()->fitGraph();
        QVERIFY(!panel.view()->miniMap()->isVisible());

        panel.setGraph(std::make_shared<const Graph>(test::makeResidualNetwork(700)));
        QVERIFY(panel.isLayingOut());
        auto* cancel = panel.findChild<QPushButton*>();
        QVERIFY(cancel && cancel->isVisible());
        QTest::mouseClick(cancel, Qt::LeftButton);
        panel.waitForLayout();
        QVERIFY2(panel.notice().contains("cancelled"), qPrintable(panel.notice()));
        QCOMPARE(panel.view()->scene()->items().size(), qsizetype(0));
    }

    void memoryChartShowsTheSimulatorsTimelines()
    {
        OpenWindow w("resources/examples/residual.json");
        QVERIFY(w.graph);
        const Graph& g = *w.graph;
        SolversPanel* panel = w.window.solversPanel();
        panel->setSelectedSolvers({"checkpoint-all", "feng-acg"});
        panel->run();
        panel->waitForFinished();
        panel->selectRows({0, 1});
        const std::vector<const Plan*> plans = panel->selectedPlans();
        QCOMPARE(plans.size(), std::size_t(2));
        MemoryChart* chart = w.window.memoryChart();
        for (MemoryModel model : allMemoryModels()) {
            w.window.setMemoryModel(model);
            w.window.memoryPrediction()->waitForFinished();
            QCOMPARE(chart->timelines().size(), std::size_t(2));
            for (int t = 0; t < 2; ++t) {
                const MemoryProfile profile = simulateMemory(g, *plans[std::size_t(t)], model);
                const QList<QPointF> points = chart->peakSeries(t)->points();
                QCOMPARE(points.size(), qsizetype(profile.phases.size()));
                for (std::size_t i = 0; i < profile.phases.size(); ++i) {
                    QCOMPARE(points[qsizetype(i)].x(), double(profile.phases[i].index));
                    QCOMPARE(qRound64(points[qsizetype(i)].y() * chart->unitBytes()), profile.phases[i].peakBytes);
                }
                const MemoryTimeline& timeline = chart->timelines()[std::size_t(t)];
                QVERIFY(timeline.label.contains(QString::fromStdString(memoryModelName(model))));
                QVERIFY(!timeline.backward.front() && timeline.backward[std::size_t(g.vertexCount())]);
                const std::size_t peak = std::size_t(profile.peakPhase);
                QCOMPARE(timeline.liveAtPeak[peak].size(), qsizetype(profile.phases[peak].live.size()));
            }
        }
    }

    void chartCsvHasOneRowPerPhase()
    {
        MemoryChart chart;
        MemoryTimeline t;
        t.label = "plan · model";
        t.peakBytes = {1 << 20, 3 << 20, 5 << 20, 2 << 20};
        t.endBytes = {1 << 20, 2 << 20, 4 << 20, 1 << 20};
        t.backward = {false, false, true, true};
        t.liveAtPeak = {{"a"}, {"a", "b"}, {"a", "b", "c"}, {"c"}};
        chart.setTimelines({t});
        QCOMPARE(chart.unitName(), QString("MiB"));
        const QList<QPointF> points = chart.peakSeries(0)->points();
        QCOMPARE(points.size(), 4);
        for (int i = 0; i < 4; ++i)
            QCOMPARE(points[i].y() * chart.unitBytes(), double(t.peakBytes[std::size_t(i)]));
        const QList<QByteArray> lines = chart.toCsv().trimmed().split('\n');
        QCOMPARE(lines.size(), 5);
        QCOMPARE(lines[3], QByteArray("plan · model,2,backward,4194304,5242880,a b c"));
    }

    // A 10k-vertex graph has 20k phases: drawn point by point they made a solid zigzag band.
    void longTimelinesAreDrawnAsTheirPeakEnvelope()
    {
        MemoryChart chart;
        MemoryTimeline t;
        t.label = "plan · model";
        const std::size_t phases = 20053;
        for (std::size_t i = 0; i < phases; ++i) {
            t.peakBytes.push_back(std::int64_t(i % 2 ? 1000 + i : 10 * i));  // alternating high and low
            t.endBytes.push_back(t.peakBytes.back());
            t.backward.push_back(i >= phases / 2);
        }
        t.peakBytes[12345] = 1 << 30;
        chart.setTimelines({t});
        const QList<QPointF> points = chart.peakSeries(0)->points();
        QVERIFY(points.size() <= int(MemoryChart::maxPlottedPhases));
        QVERIFY(points.size() >= int(MemoryChart::maxPlottedPhases) / 2);
        double highest = 0;
        for (const QPointF& p : points) {
            const auto phase = std::size_t(p.x());
            QCOMPARE(p.x(), double(phase));  // every point is a real phase
            QCOMPARE(p.y() * chart.unitBytes(), double(t.peakBytes[phase]));
            highest = std::max(highest, p.y() * chart.unitBytes());
        }
        QCOMPARE(highest, double(1 << 30));
        // Each point is the highest of its run: no phase between two points is above both.
        for (int k = 1; k < points.size(); ++k)
            for (auto i = std::size_t(points[k - 1].x()) + 1; i < std::size_t(points[k].x()); ++i)
                QVERIFY(double(t.peakBytes[i]) <= std::max(points[k - 1].y(), points[k].y()) * chart.unitBytes());
    }

    void exportsProduceFilesThatParse()
    {
        OpenWindow w("resources/examples/residual.json");
        QVERIFY(w.graph);
        QTemporaryDir dir;
        QString error;
        QVERIFY(!w.window.exportPlanJson(dir.filePath("none.json"), &error));
        QVERIFY(error.contains("No plan"));
        QVERIFY(!w.window.exportMemoryCsv(dir.filePath("none.csv"), &error));
        const Plan p = test::planOf(*w.graph, {id(*w.graph, "block2.add")});
        w.window.setCurrentPlan(&p);
        QVERIFY2(w.window.exportPlanJson(dir.filePath("plan.json"), &error), qPrintable(error));
        const Plan back = readPlanFile(dir.filePath("plan.json").toStdString(), *w.graph);
        QCOMPARE(back.checkpoints(), p.checkpoints());
        QCOMPARE(back.objective(), p.objective());
        QCOMPARE(back.solver, p.solver);

        for (const char* name : {"dag.png", "dag.svg", "tree.png", "tree.svg", "chart.png", "chart.svg"}) {
            const QString path = dir.filePath(name);
            const bool ok = QString(name).startsWith("dag")    ? exportScene(w.window.dagView()->scene(), path, &error)
                            : QString(name).startsWith("tree") ? exportScene(w.window.treeView()->scene(), path, &error)
                                                               : exportWidget(w.window.memoryChart(), path, &error);
            QVERIFY2(ok, qPrintable(error));
            if (path.endsWith(".png"))
                QVERIFY2(!QImage(path).isNull(), name);
            else
                QVERIFY2(QSvgRenderer(path).isValid(), name);
        }
        QVERIFY(!exportScene(w.window.dagView()->scene(), dir.filePath("missing/dir/dag.png"), &error));
        QVERIFY(error.contains("missing/dir/dag.png"));

        // The chart shows the current plan's timeline: a header and one row per training phase.
        QVERIFY2(w.window.exportMemoryCsv(dir.filePath("memory.csv"), &error), qPrintable(error));
        QFile csv(dir.filePath("memory.csv"));
        QVERIFY(csv.open(QIODevice::ReadOnly));
        const QList<QByteArray> rows = csv.readAll().trimmed().split('\n');
        QCOMPARE(rows.size(), 1 + 2 * w.graph->vertexCount());
        QVERIFY(rows[0].startsWith("timeline,phase,pass"));
        QVERIFY(rows[1].startsWith("by hand · pytorch,0,forward,"));  // the default model
    }

    void screenshotsRenderEveryView()
    {
        OpenWindow w("resources/examples/dense-block.json");
        QVERIFY(w.graph);
        QTemporaryDir dir;
        QString error;
        QVERIFY2(w.window.saveScreenshots(dir.path(), &error), qPrintable(error));
        for (const char* view : {"window", "dag", "solvers", "sweep", "tree", "memory", "explain"}) {
            const QImage image(dir.filePath(QString(view) + ".png"));
            QVERIFY2(!image.isNull() && image.width() > 100 && image.height() > 50, view);
        }
    }
};

QTEST_MAIN(ExplorerTest)
#include "tst_explorer.moc"
