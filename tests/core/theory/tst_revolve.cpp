#include "TestData.h"
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
        // Replay: a Forward needs its input available (a Backward may use the input of the Forward
        // just before it), each step is reversed exactly once, from n
        // down to 1, and at most `slots` tensors are held besides the input.
        for (int n = 1; n <= 40; ++n)
            for (int slots = 0; slots <= 5; ++slots) {
                const CheckpointSchedule s = revolveSchedule(n, slots);
                std::vector<bool> stored(n + 1, false);
                stored[0] = true;
                int current = 0, lastInput = -1, nextBackward = n, held = 0, forwards = 0;
                for (const ScheduleAction& a : s.actions) {
                    switch (a.kind) {
                    case ScheduleAction::Kind::Forward:
                        QVERIFY(current == a.step - 1 || stored[a.step - 1]);
                        lastInput = a.step - 1;
                        current = a.step;
                        ++forwards;
                        break;
                    case ScheduleAction::Kind::Store:
                        QCOMPARE(current, a.step);
                        stored[a.step] = true;
                        QVERIFY(++held <= s.slots);
                        break;
                    case ScheduleAction::Kind::Release:
                        QVERIFY(stored[a.step]);
                        stored[a.step] = false;
                        --held;
                        break;
                    case ScheduleAction::Kind::Backward:
                        QCOMPARE(a.step, nextBackward--);
                        QVERIFY(current == a.step - 1 || stored[a.step - 1] ||
                                (current == a.step && lastInput == a.step - 1));
                        current = -1;
                        break;
                    }
                }
                QCOMPARE(nextBackward, 0);
                QCOMPARE(held, 0);
                QCOMPARE(std::int64_t(forwards), s.forwardSteps);
                QCOMPARE(s.forwardSteps, griewankMinimalForwardSteps(n, slots) + 1);
            }
    }

    void solverCarriesTheSchedule()
    {
        const Graph g = test::makeChain(std::vector<std::int64_t>(17, 4));
        const Plan plan = runSolver("griewank-logn", g);
        QVERIFY(plan.schedule.has_value());
        QCOMPARE(plan.options.at("slots"), std::string("4"));  // ceil(log2 16)
        QCOMPARE(plan.schedule->slots, 4);
        QCOMPARE(plan.schedule->recomputations(), griewankMinimalForwardSteps(16, 4) + 1 - 16);
    }
};

QTEST_GUILESS_MAIN(RevolveTest)
#include "tst_revolve.moc"
