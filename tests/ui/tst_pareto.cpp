// The budget-sweep plot: its curves are the core's sweep rows, one curve per solver; clicking a
// checkpoint plan's point makes that plan current; cancel leaves no result.
#include "GraphDocument.h"
#include "MainWindow.h"
#include "ParetoPanel.h"
#include "TestData.h"
#include "solvers/BudgetSweep.h"

#include <QScatterSeries>
#include <QSignalSpy>
#include <QtTest>

using namespace ckpt;
using namespace ckpt::ui;

namespace {

BudgetSweepSettings smallSweep()
{
    BudgetSweepSettings s;
    s.solvers = {"checkpoint-all", "feng-acg", "no-such-solver", "checkmate-milp"};
    s.points = 3;
    s.timeLimit = 30;
    return s;
}

}  // namespace

class TestPareto : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void seriesMatchTheCoreSweep()
    {
        const auto graph = std::make_shared<const Graph>(test::makeResidualNetwork(2));
        ParetoPanel panel;
        panel.setGraph(graph);
        panel.setSettings(smallSweep());
        panel.compute();
        panel.waitForFinished();
        QVERIFY(panel.result());
        const BudgetSweepResult expected = budgetSweep(*graph, smallSweep());
        const auto& rows = panel.result()->rows;
        QCOMPARE(rows.size(), expected.rows.size());
        for (std::size_t i = 0; i < rows.size(); ++i) {
            QCOMPARE(rows[i].solver, expected.rows[i].solver);
            QCOMPARE(rows[i].hasPoint(), expected.rows[i].hasPoint());
            QCOMPARE(rows[i].budget, expected.rows[i].budget);
            QCOMPARE(rows[i].checkpoints, expected.rows[i].checkpoints);
            if (rows[i].status == "optimal" || rows[i].status == "ok")
                QCOMPARE(rows[i].overhead, expected.rows[i].overhead);
        }
        // One curve per solver, "(C=…)" steps with their solver; each point is a row with a point.
        QStringList names;
        for (const ParetoPanel::Curve& c : panel.curves())
            names << c.solver;
        QCOMPARE(names, QStringList({"checkpoint-all", "feng-acg", "no-such-solver", "checkmate-milp"}));
        std::size_t pointsShown = 0;
        for (const ParetoPanel::Curve& c : panel.curves()) {
            QCOMPARE(c.points->count(), int(c.rows.size()));
            for (int i = 0; i < c.points->count(); ++i) {
                const BudgetSweepRow& row = rows[std::size_t(c.rows[std::size_t(i)])];
                QVERIFY(QString::fromStdString(row.solver).startsWith(c.solver));
                QCOMPARE(c.points->at(i).x(), double(row.peakBytes) / double(1 << 20));
                QCOMPARE(c.points->at(i).y(), row.overhead);
                if (i > 0)
                    QVERIFY(c.points->at(i - 1).x() <= c.points->at(i).x());
            }
            pointsShown += c.rows.size();
        }
        QCOMPARE(pointsShown, std::size_t(std::count_if(rows.begin(), rows.end(), [](const BudgetSweepRow& r) { return r.hasPoint(); })));
        QVERIFY(panel.curves()[2].rows.empty());  // the unknown solver has no point
        QVERIFY(!panel.curves()[3].rows.empty());
    }

    void clickMakesThePlanCurrent()
    {
        MainWindow window;
        QVERIFY(window.openFile(test::sourcePath(QStringLiteral("resources/examples/residual.json"))));
        ParetoPanel* panel = window.paretoPanel();
        panel->setSettings(smallSweep());
        panel->compute();
        panel->waitForFinished();
        const ParetoPanel::Curve& feng = panel->curves().at(1);
        QVERIFY(!feng.rows.empty());
        const BudgetSweepRow& row = panel->result()->rows[std::size_t(feng.rows.front())];
        panel->choosePoint(1, 0);
        QVERIFY(window.currentPlan());
        QCOMPARE(window.currentPlan()->solver, row.solver);
        std::vector<std::string> ids;
        for (VertexIndex v : window.currentPlan()->checkpoints())
            ids.push_back(window.document()->graph()->vertex(v).id);
        std::vector<std::string> expected = row.checkpoints;
        std::sort(ids.begin(), ids.end());
        std::sort(expected.begin(), expected.end());
        QCOMPARE(ids, expected);
        // A checkmate-milp point is a general schedule: no plan, the current one stays.
        QSignalSpy chosen(panel, &ParetoPanel::planChosen);
        panel->choosePoint(3, 0);
        QCOMPARE(chosen.count(), 0);
        QCOMPARE(window.currentPlan()->solver, row.solver);
    }

    void cancelLeavesNoResult()
    {
        const auto graph = std::make_shared<const Graph>(test::makeResidualNetwork(6));
        ParetoPanel panel;
        panel.setGraph(graph);
        BudgetSweepSettings s = smallSweep();
        s.solvers = {"checkmate-milp"};
        s.points = 20;
        panel.setSettings(s);
        panel.compute();
        panel.cancel();
        panel.waitForFinished();
        QVERIFY(!panel.result());
        QVERIFY(panel.curves().empty());
    }
};

QTEST_MAIN(TestPareto)
#include "tst_pareto.moc"
