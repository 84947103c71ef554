// Feng & Huang solvers against the paper's examples and against exhaustive search.
#include "PaperNetworks.h"
#include "RandomGraphs.h"
#include "TestData.h"
#include "graph/GraphBuilder.h"
#include "io/GraphJson.h"
#include "solvers/ExhaustiveSolver.h"
#include "solvers/SolverRegistry.h"
#include "solvers/TreeCheckpointSearch.h"
#include "solvers/TreeSweepValues.h"
#include "theory/PlanEvaluation.h"
#include "theory/TrainingGraph.h"

#include <QtTest>

#include <algorithm>
#include <cstdlib>

using namespace ckpt;

namespace {

Graph example(const char* name)
{
    return readGraphFile(test::sourcePath(QStringLiteral("resources/examples/%1.json").arg(name)).toStdString());
}

std::vector<std::string> ids(const Graph& g, const std::vector<VertexIndex>& vs)
{
    std::vector<std::string> out;
    for (VertexIndex v : vs)
        out.push_back(g.vertex(v).id);
    return out;
}

// A plan is what it says: its evaluation is evaluate() of its checkpoints.
void checkPlanIsHonest(const Graph& g, const Plan& plan)
{
    const PlanEvaluation again = evaluate(g, plan.checkpoints());
    QCOMPARE(plan.objective(), again.objective);
    QCOMPARE(plan.evaluation.isISPlan, again.isISPlan);
    QCOMPARE(plan.checkpoints(), again.checkpoints);
}

SolverOptions withOption(const std::string& key, const std::string& value)
{
    SolverOptions o;
    o.values[key] = value;
    return o;
}

int propertyGraphCount() { return std::getenv("CKPT_LONG") ? 100000 : 4200; }

}  // namespace

class FengSolversTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void examples_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<qint64>("objective");
        QTest::addColumn<QStringList>("checkpoints");  // empty: not pinned (ties)
        // Supp. Fig. 2: checkpoints {v0, v2, v5} cost 10 + 9 + 10 + max(8, 6 + 7) = 42, the optimum.
        QTest::newRow("supp-fig2") << "supp-fig2-chain" << qint64(42) << QStringList{"v0", "v2", "v5"};
        QTest::newRow("fig4-linear") << "fig4-linear" << qint64(35) << QStringList{"i", "k", "j"};
        QTest::newRow("fig4-branch") << "fig4-branch" << qint64(29) << QStringList{"i", "j"};
        // Supp. Fig. 4: the Complicate IS with checkpoints {v_i, v_k, v_t, v_j}.
        QTest::newRow("fig4-complicate") << "fig4-complicate" << qint64(44) << QStringList{"i", "k", "t", "j"};
        QTest::newRow("fig3") << "fig3" << qint64(18) << QStringList{};
        QTest::newRow("residual") << "residual" << qint64(307240) << QStringList{};
        QTest::newRow("inception") << "inception" << qint64(903168) << QStringList{};
        QTest::newRow("dense-block") << "dense-block" << qint64(92160) << QStringList{};
    }
    void examples()
    {
        QFETCH(QString, file);
        QFETCH(qint64, objective);
        QFETCH(QStringList, checkpoints);
        const Graph g = example(file.toUtf8().constData());
        const Plan acg = runSolver("feng-acg", g);
        const Plan ex = runSolver("exhaustive", g);
        QCOMPARE(acg.objective(), objective);
        QCOMPARE(ex.objective(), objective);
        QVERIFY(acg.evaluation.isISPlan);
        if (!checkpoints.isEmpty()) {
            QStringList got;
            for (const auto& id : ids(g, acg.checkpoints()))
                got << QString::fromStdString(id);
            QCOMPARE(got, checkpoints);
        }
        if (g.isChain())
            QCOMPARE(runSolver("feng-lcg", g).objective(), objective);
    }

    void suppFig2SweepMatchesAccessibilityExample()
    {
        // Supp. Fig. 3: under C = 8 the first vertex (10) and the third (9) are adjacent
        // checkpoints (re-forward cost 8). The sweep lists every l(v_j, v_k) once.
        const Graph g = example("supp-fig2-chain");
        const Plan plan = runSolver("feng-lcg", g, withOption("sweep", "every"));
        QVERIFY(plan.sweep);
        std::vector<std::int64_t> cs;
        for (const SweepEntry& e : plan.sweep->entries) {
            cs.push_back(e.c);
            const PlanEvaluation ev = evaluate(g, e.checkpoints);
            QCOMPARE(ev.objective, e.objective);
            QVERIFY(ev.maxSegmentCost <= e.c);
        }
        QCOMPARE(cs, (std::vector<std::int64_t>{0, 6, 7, 8, 9, 13, 15, 17, 22, 23, 30}));
        const SweepEntry& at8 = plan.sweep->entries[3];
        QCOMPARE(ids(g, at8.checkpoints), (std::vector<std::string>{"v0", "v2", "v3", "v5"}));
        QCOMPARE(plan.sweep->entries[plan.sweep->winner].c, 13);
    }

    void twoVertexGraph()
    {
        const Graph g = test::makeChain({5, 7});
        for (const char* solver : {"feng-acg", "feng-lcg", "exhaustive", "exhaustive-general"}) {
            const Plan p = runSolver(solver, g);
            QCOMPARE(p.objective(), 12);
            QCOMPARE(p.checkpoints().size(), 2u);
        }
        const Plan acg = runSolver("feng-acg", g);
        QCOMPARE(acg.sweep->entries.size(), 1u);
        QCOMPARE(acg.sweep->entries[0].c, 0);
    }

    void everyMaxTermZero()
    {
        // A dense block without the input->output edge divides only into single edges:
        // every max term but the root's is 0, and C = 0 checkpoints everything.
        const Graph g = test::makeGraph({3, 4, 5, 6, 2}, {{0, 1}, {0, 2}, {1, 2}, {1, 3}, {2, 3}, {0, 3}, {3, 4}, {2, 4}, {1, 4}});
        const Plan acg = runSolver("feng-acg", g, withOption("sweep", "every"));
        QCOMPARE(acg.objective(), runSolver("exhaustive", g).objective());
        QCOMPARE(acg.sweep->entries.front().c, 0);
        QCOMPARE(acg.sweep->entries.front().checkpoints.size(), 5u);
        // All bytes zero: every max term is 0.
        const Graph zeros = test::makeGraph({0, 0, 0, 0}, {{0, 1}, {0, 2}, {1, 2}, {1, 3}, {2, 3}});
        const Plan z = runSolver("feng-acg", zeros);
        QCOMPARE(z.objective(), 0);
        QCOMPARE(z.sweep->entries.size(), 1u);
    }

    void refusals()
    {
        const Graph residual = example("residual");
        QVERIFY_THROWS_EXCEPTION(SolverError, runSolver("feng-lcg", residual));
        std::vector<std::int64_t> bytes(ExhaustiveSolver::maxVertices + 1, 1);
        const Graph big = test::makeChain(bytes);
        QVERIFY_THROWS_EXCEPTION(SolverError, runSolver("exhaustive", big));
        QVERIFY_THROWS_EXCEPTION(SolverError, runSolver("exhaustive-general", big));
        QVERIFY_THROWS_EXCEPTION(SolverError, runSolver("feng-acg", residual, withOption("sweep", "all")));
        // Exactly at the limit it runs.
        bytes.pop_back();
        QCOMPARE(runSolver("exhaustive", test::makeChain(bytes)).objective(), runSolver("feng-lcg", test::makeChain(bytes)).objective());
    }

    // A training graph (forward and backward vertices) is one segment to Feng & Huang: the
    // solvers say so and name the forward graph instead of returning checkpoint-all.
    void trainingGraphsAreRefusedWithTheForwardGraphNamed()
    {
        const Graph forward = test::makeChain({4, 3, 2, 5});
        const Graph training = deriveTrainingGraph(forward);
        QVERIFY(isTrainingGraph(training));
        for (const char* solver : {"feng-lcg", "feng-acg"}) {
            try {
                runSolver(solver, training);
                QFAIL(qPrintable(QString("%1 solved a training graph").arg(solver)));
            } catch (const SolverError& e) {
                const QString message = QString::fromStdString(e.what());
                QVERIFY2(message.contains("training graph") && message.contains("forward graph"), qPrintable(message));
            }
        }
        QCOMPARE(runSolver("feng-lcg", forward).solver, std::string("feng-lcg"));  // the forward graph still solves
        if (!test::haveSharedData())
            QSKIP("../shared/data is not here: the published-graph half is skipped");
        const Graph published = readGraphFile(
            test::sharedPath("data/checkmate-graphs/VGG16_256_224x224x3_train_nx.json").toStdString());
        try {
            runSolver("feng-acg", published);
            QFAIL("feng-acg solved VGG16's training graph");
        } catch (const SolverError& e) {
            const QString message = QString::fromStdString(e.what());
            QVERIFY2(message.contains("_test"), qPrintable(message));
        }
    }

    void hugeBytesDoNotOverflow()
    {
        // Totals up to kMaxGraphBytes are accepted by the builder; no sum in the sweep exceeds them.
        const std::int64_t big = kMaxGraphBytes / 4;
        const Graph g = test::makeGraph({big, 1, big, 1}, {{0, 1}, {0, 2}, {1, 3}, {2, 3}});
        const Plan acg = runSolver("feng-acg", g);
        QCOMPARE(acg.objective(), runSolver("exhaustive", g).objective());
    }

    // Theorem 1 and the properties over thousands of random DAGs (CKPT_LONG=1: 100k).
    void randomGraphsAgreeWithExhaustiveSearch()
    {
        const int count = propertyGraphCount();
        int general = 0;
        for (int k = 0; k < count; ++k) {
            std::mt19937_64 rng(1000 + k);
            const auto shape = static_cast<test::RandomShape>(k % test::kRandomShapeCount);
            const test::RandomGraphSpec spec = test::randomGraph(shape, 16, rng);
            const Graph g = test::makeGraph(spec.bytes, spec.edges);
            const QByteArray where = QByteArray("graph ") + QByteArray::number(k) + " (" +
                                     test::shapeName(shape).c_str() + "): " + spec.describe().c_str();
            const Plan ex = runSolver("exhaustive", g);
            const Plan gen = runSolver("exhaustive-general", g);
            const Plan acg = runSolver("feng-acg", g);
            const Plan every = runSolver("feng-acg", g, withOption("sweep", "every"));
            checkPlanIsHonest(g, ex);
            checkPlanIsHonest(g, gen);
            checkPlanIsHonest(g, acg);
            QVERIFY2(ex.evaluation.isISPlan, where);
            QVERIFY2(acg.evaluation.isISPlan, where);
            QVERIFY2(gen.objective() <= ex.objective(), where);
            general += gen.objective() < ex.objective();
            QVERIFY2(acg.objective() == ex.objective(),
                     where + " feng-acg " + QByteArray::number(qint64(acg.objective())) + " exhaustive " +
                         QByteArray::number(qint64(ex.objective())));
            QVERIFY2(every.objective() == ex.objective(), where);
            for (const Sweep* sweep : {&*acg.sweep, &*every.sweep})
                for (const SweepEntry& e : sweep->entries) {
                    const PlanEvaluation ev = evaluate(g, e.checkpoints);
                    QVERIFY2(ev.isISPlan && ev.objective == e.objective && ev.maxSegmentCost <= e.c, where);
                }
            // The parametric search enters plans at max terms, with the least bytes under them.
            for (const SweepEntry& e : acg.sweep->entries) {
                const auto at = std::find_if(every.sweep->entries.begin(), every.sweep->entries.end(),
                                             [&e](const SweepEntry& f) { return f.c == e.c; });
                QVERIFY2(at != every.sweep->entries.end(), where);
                QVERIFY2(evaluate(g, e.checkpoints).checkpointBytes == evaluate(g, at->checkpoints).checkpointBytes,
                         where);
                QVERIFY2(evaluate(g, e.checkpoints).maxSegmentCost == e.c, where);
            }
            if (g.isChain()) {
                const Plan lcg = runSolver("feng-lcg", g);
                checkPlanIsHonest(g, lcg);
                QVERIFY2(lcg.objective() == ex.objective(), where);
            }
        }
        QVERIFY(general > 0);  // the general model does beat IS plans on some graphs
    }

    // The tabulated S(C) and largest segment are Alg. 5's walk under every max term and between
    // them, on random graphs of 16 and 60 vertices (long Linear nodes are solved per C, short ones
    // and Branch/Complicate nodes tabulated) and on nested rainbows.
    void sweepValuesAreTheWalksValues()
    {
        auto check = [](const Graph& g, const QByteArray& where) {
            const DivisionTree tree = DivisionTree::build(g);
            const TreeCheckpointSearch search(g, tree);
            const TreeSweepValues values(g, tree, search);
            std::vector<std::int64_t> cs;
            for (std::int64_t t : search.maxTerms())
                for (std::int64_t c : {t - 1, t, t + 1})
                    if (c >= 0)
                        cs.push_back(c);
            for (std::int64_t c : cs) {
                const TreeCheckpointSearch::Result walk = search.solve(c);
                const SweepPoint fast = values.at(c);
                QVERIFY2(fast.bytes == walk.bytes && fast.maxSegment == walk.maxSegment,
                         where + " C=" + QByteArray::number(qint64(c)) + " walk " + QByteArray::number(qint64(walk.bytes)) +
                             "/" + QByteArray::number(qint64(walk.maxSegment)) + " table " +
                             QByteArray::number(qint64(fast.bytes)) + "/" + QByteArray::number(qint64(fast.maxSegment)));
            }
        };
        const int count = propertyGraphCount();
        for (int k = 0; k < count; ++k) {
            std::mt19937_64 rng(7000 + k);
            const auto shape = static_cast<test::RandomShape>(k % test::kRandomShapeCount);
            const test::RandomGraphSpec spec = test::randomGraph(shape, k % 3 == 0 ? 60 : 16, rng);
            check(test::makeGraph(spec.bytes, spec.edges),
                  QByteArray(test::shapeName(shape).c_str()) + ": " + spec.describe().c_str());
        }
        for (int n : {3, 4, 9, 40, 41})
            check(test::makeRainbow(n), "rainbow " + QByteArray::number(n));
    }

    // exhaustive is the minimum over IS plans: checked against evaluate() of every subset.
    void exhaustiveIsTheMinimumOverISPlans()
    {
        for (int k = 0; k < 300; ++k) {
            std::mt19937_64 rng(77 + k);
            const auto spec = test::randomGraph(static_cast<test::RandomShape>(k % test::kRandomShapeCount), 9, rng);
            const Graph g = test::makeGraph(spec.bytes, spec.edges);
            const int n = g.vertexCount();
            std::int64_t bestIS = std::numeric_limits<std::int64_t>::max(), bestAny = bestIS;
            for (std::uint32_t mask = 0; mask < (1u << n); ++mask) {
                std::vector<VertexIndex> cps;
                for (int v = 0; v < n; ++v)
                    if (mask >> v & 1)
                        cps.push_back(v);
                const PlanEvaluation e = evaluate(g, cps);
                bestAny = std::min(bestAny, e.objective);
                if (e.isISPlan)
                    bestIS = std::min(bestIS, e.objective);
            }
            QCOMPARE(runSolver("exhaustive", g).objective(), bestIS);
            QCOMPARE(runSolver("exhaustive-general", g).objective(), bestAny);
        }
    }

    // The smallest graph where a general plan beats every IS plan (found by search; see
    // docs/THEORY.md).
    void generalBeatsISPlans()
    {
        // A residual block v0 -> v1 -> v2 -> v3 with the skip v0 -> v3, then v3 -> v4. The
        // zero-byte v2 as a checkpoint leaves {v1} and {v3}; {v3} is fed by v0 and v2, so it is
        // no IS, but each segment costs 1: objective 1. The best IS plan costs 2.
        const Graph g = test::makeGraph({0, 1, 0, 1, 0}, {{0, 1}, {0, 3}, {1, 2}, {2, 3}, {3, 4}});
        const Plan general = runSolver("exhaustive-general", g);
        QCOMPARE(general.objective(), 1);
        QVERIFY(!general.evaluation.isISPlan);
        QCOMPARE(runSolver("exhaustive", g).objective(), 2);
        QCOMPARE(runSolver("feng-acg", g).objective(), 2);
        // Nothing smaller exists: every DAG on at most 4 vertices with bytes 0..5 has an IS
        // plan as good as any plan.
        for (int n = 2; n <= 4; ++n)
            for (std::uint32_t edgeMask = 0; edgeMask < (1u << (n * (n - 1) / 2)); ++edgeMask) {
                std::vector<std::pair<int, int>> edges;
                std::vector<int> in(n, 0), out(n, 0);
                int bit = 0;
                for (int a = 0; a < n; ++a)
                    for (int b = a + 1; b < n; ++b, ++bit)
                        if (edgeMask >> bit & 1) {
                            edges.push_back({a, b});
                            ++out[a];
                            ++in[b];
                        }
                if (std::count(in.begin() + 1, in.end(), 0) || std::count(out.begin(), out.end() - 1, 0))
                    continue;
                int combos = 1;
                for (int v = 0; v < n; ++v)
                    combos *= 6;
                for (int code = 0; code < combos; ++code) {
                    std::vector<std::int64_t> bytes;
                    for (int v = 0, c = code; v < n; ++v, c /= 6)
                        bytes.push_back(c % 6);
                    const Graph small = test::makeGraph(bytes, edges);
                    QCOMPARE(runSolver("exhaustive-general", small).objective(), runSolver("exhaustive", small).objective());
                }
            }
    }
};

QTEST_GUILESS_MAIN(FengSolversTest)
#include "tst_fengsolvers.moc"
