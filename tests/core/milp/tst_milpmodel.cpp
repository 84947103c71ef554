// MilpModel (CBC in a child process): optimal answers, infeasibility, the time limit, progress
// (incumbent and bound parsed from CBC's log), cancellation while CBC searches, and MIP starts
// (a feasible one is an answer from the start, an infeasible one is never returned).
#include "milp/MilpModel.h"
#include "TestData.h"

#include <QtTest>

#include <chrono>
#include <cmath>
#include <thread>

using namespace ckpt;

namespace {

// A market-split instance (Cornuejols & Dawande): equality knapsacks that CBC cannot close fast.
MilpModel marketSplit(int items, int rows, unsigned seed)
{
    MilpModel m;
    std::vector<int> x;
    for (int i = 0; i < items; ++i)
        x.push_back(m.addBinary(0));
    for (int r = 0; r < rows; ++r) {
        std::vector<MilpModel::Term> row;
        double sum = 0;
        for (int i = 0; i < items; ++i) {
            seed = seed * 1103515245u + 12345u;
            const double a = (seed >> 16) % 100;
            row.push_back({x[i], a});
            sum += a;
        }
        row.push_back({m.addContinuous(0, 1e9, 1), 1});
        row.push_back({m.addContinuous(0, 1e9, 1), -1});
        m.addRow(row, 'E', std::floor(sum / 2));
    }
    return m;
}

}  // namespace

class TestMilpModel : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void solvesAKnapsack()
    {
        MilpModel m;  // max 5a + 4b + 3c s.t. 2a + 3b + c <= 5, 4a + b + 2c <= 11, 3a + 4b + 2c <= 8
        const int a = m.addBinary(-5), b = m.addBinary(-4), c = m.addBinary(-3);
        m.addRow({{a, 2}, {b, 3}, {c, 1}}, 'L', 5);
        m.addRow({{a, 4}, {b, 1}, {c, 2}}, 'L', 11);
        m.addRow({{a, 3}, {b, 4}, {c, 2}}, 'L', 8);
        const MilpResult r = m.solve({});
        QVERIFY(r.status == MilpStatus::Optimal);
        QCOMPARE(r.objective, -9.0);  // a and b: weight 5, 5, 7
        QCOMPARE(r.values[a], 1.0);
        QCOMPARE(r.values[c], 0.0);
    }

    void reportsInfeasibility()
    {
        MilpModel m;
        const int a = m.addBinary(1), b = m.addBinary(1);
        m.addRow({{a, 1}, {b, 1}}, 'G', 3);
        QVERIFY(m.solve({}).status == MilpStatus::Infeasible);
    }

    void checksTheMipStart()
    {
        MilpModel m;  // the knapsack above; its optimum is -9
        const int a = m.addBinary(-5), b = m.addBinary(-4), c = m.addBinary(-3);
        m.addRow({{a, 2}, {b, 3}, {c, 1}}, 'L', 5);
        m.addRow({{a, 4}, {b, 1}, {c, 2}}, 'L', 11);
        m.addRow({{a, 3}, {b, 4}, {c, 2}}, 'L', 8);
        m.setStart({1, 1, 1});  // objective -12, but it breaks every row
        MilpResult r = m.solve({});
        QVERIFY(r.status == MilpStatus::Optimal);
        QCOMPARE(r.objective, -9.0);

        MilpModel hard = marketSplit(40, 4, 12345);
        MilpLimits limits;
        limits.seconds = 1;
        const MilpResult first = hard.solve(limits);
        QVERIFY(first.hasSolution());
        hard.setStart(first.values);
        limits.seconds = 0.05;
        std::vector<double> incumbents;
        limits.progress = [&incumbents](const MilpProgress& p) { incumbents.push_back(p.incumbent); };
        r = hard.solve(limits);
        QVERIFY(r.status == MilpStatus::Feasible || r.status == MilpStatus::Optimal);
        QVERIFY(r.objective <= first.objective + 1e-9);
        QVERIFY(!incumbents.empty() && incumbents.front() == first.objective);  // the start, before CBC runs
    }

    void respectsTheTimeLimitAndReportsProgress()
    {
        const MilpModel m = marketSplit(40, 4, 12345);
        MilpLimits limits;
        limits.seconds = 2;
        int reports = 0;
        limits.progress = [&reports](const MilpProgress&) { ++reports; };
        const auto start = std::chrono::steady_clock::now();
        const MilpResult r = m.solve(limits);
        const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        QVERIFY2(took < (2.2 + 0.3) * test::timingSlack(), qPrintable(QString("took %1 s").arg(took)));  // 10 %, and time to end the child
        QVERIFY(r.status == MilpStatus::Feasible || r.status == MilpStatus::NoSolution);
        QVERIFY(r.gap() > 0);
        QVERIFY(reports > 0);
    }

    void cancelStopsASearchInFlight()
    {
        const MilpModel m = marketSplit(40, 4, 12345);
        std::atomic<bool> cancel{false};
        MilpLimits limits;
        limits.seconds = 60;
        limits.cancel = &cancel;
        std::thread stopper([&cancel] {
            std::this_thread::sleep_for(std::chrono::milliseconds(500));
            cancel = true;
        });
        const auto start = std::chrono::steady_clock::now();
        const MilpResult r = m.solve(limits);
        stopper.join();
        const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        QVERIFY(r.status == MilpStatus::Cancelled);
        QVERIFY2(took < 5 * test::timingSlack(), qPrintable(QString("took %1 s").arg(took)));
    }
};

QTEST_GUILESS_MAIN(TestMilpModel)
#include "tst_milpmodel.moc"
