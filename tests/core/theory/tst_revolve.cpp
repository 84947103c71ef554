#include "TestData.h"
#include "solvers/Comparison.h"
#include "solvers/SolverRegistry.h"
#include "theory/Revolve.h"

#include <QtTest>

using namespace ckpt;

class RevolveTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void recursionEqualsGriewanksClosedForm()
    {
        for (int slots = 0; slots <= 6; ++slots) {
            const auto table = revolveCostTable(80, slots);
            for (int n = 1; n <= 80; ++n)
                QCOMPARE(table[slots][n], griewankMinimalForwardSteps(n, slots));
        }
    }

    void scheduleIsExecutable()
    {
        for (int n = 1; n <= 40; ++n)
            for (int slots = 0; slots <= 5; ++slots) {
                const CheckpointSchedule s = revolveSchedule(n, slots);
                QCOMPARE(scheduleProblem(s), std::string());
                std::int64_t forwards = 0;
                for (const ScheduleAction& a : s.actions)
                    forwards += a.kind == ScheduleAction::Kind::Forward;
                QCOMPARE(forwards, s.forwardSteps);
                QCOMPARE(s.forwardSteps, griewankMinimalForwardSteps(n, slots) + 1);
            }
    }

    void brokenSchedulesAreNamed_data()
    {
        using K = ScheduleAction::Kind;
        QTest::addColumn<int>("drop");  // index of the action removed from revolveSchedule(5, 2)
        QTest::addColumn<QString>("problem");
        const CheckpointSchedule s = revolveSchedule(5, 2);
        for (int k = 0; k < int(s.actions.size()); ++k) {
            const K kind = s.actions[k].kind;
            if (kind == K::Forward && k == 0)
                QTest::newRow("first forward") << k << "store 1 of a tensor not just computed";
            if (kind == K::Release)
                QTest::newRow(qPrintable("release " + QString::number(k))) << k << "slots are still in use";
        }
    }

    void brokenSchedulesAreNamed()
    {
        QFETCH(int, drop);
        QFETCH(QString, problem);
        CheckpointSchedule s = revolveSchedule(5, 2);
        s.actions.erase(s.actions.begin() + drop);
        QVERIFY2(scheduleProblem(s).find(problem.toStdString()) != std::string::npos, scheduleProblem(s).c_str());
    }

    void solverCarriesTheSchedule()
    {
        const Graph g = test::makeChain(std::vector<std::int64_t>(17, 4));
        const Plan plan = runSolver("griewank-logn", g);
        QVERIFY(plan.schedule.has_value());
        QCOMPARE(plan.options.at("slots"), std::string("4"));  // ceil(log2 16)
        QCOMPARE(plan.schedule->slots, 4);
        QCOMPARE(plan.schedule->recomputations(), griewankMinimalForwardSteps(16, 4) + 1 - 16);
        // The comparison row counts the schedule's recomputations and simulates its memory.
        const PlanCosts costs = planCosts(g, plan);
        QCOMPARE(costs.recomputedBytes, 4 * plan.schedule->recomputations());
        QCOMPARE(costs.recomputedCompute, double(plan.schedule->recomputations()));
        QVERIFY(costs.peakChen < g.totalBytes());
        QVERIFY(costs.peakPyTorch > costs.peakChen);
    }
};

QTEST_GUILESS_MAIN(RevolveTest)
#include "tst_revolve.moc"
