// optimal --option memory-model=pytorch (PyTorchPeakSearch): equals a brute-force minimiser of the
// pytorch memory model's simulator (simulatePlanMemory, the code `ckptx simulate --model pytorch`
// runs) over every checkpoint set of small graphs — the least peak (ties: least recompute), and
// with a budget the least recompute among the sets that fit — on the random families of the
// project plus chains, residual, inception and dense blocks, a third of them with a second input,
// half of them with random importer fields (weights, saved extras, savers, workspace). The bounds
// are checked on their own (branch and bound without the local search) and the lower bound never
// exceeds the minimum.
// CKPT_LONG=1 runs 10,000 graphs per check instead of a few hundred.
#include "RandomGraphs.h"
#include "TestData.h"

#include "graph/GraphBuilder.h"
#include "io/GraphJson.h"
#include "memory/CudaStepMemory.h"
#include "memory/PlanMemory.h"
#include "solvers/Comparison.h"
#include "solvers/PyTorchPeakSearch.h"
#include "solvers/SolverRegistry.h"
#include "theory/CheckpointFunctions.h"
#include "theory/RecomputeCost.h"

#include <QtTest>

#include <random>
#include <set>

using namespace ckpt;

namespace {

struct Truth {
    std::int64_t leastPeak = 0;
    double recomputeAtLeastPeak = 0;
    std::int64_t leastPeakOfISPlans = 0;
    std::int64_t mostPeak = 0;
    // Budget form at `budget`: the least recompute that fits, -1 when nothing fits.
    double leastRecomputeWithin = -1;
};

// Every checkpoint set (source and sink always kept), simulated, by index bits.
Truth bruteForce(const Graph& g, std::int64_t budget)
{
    std::vector<VertexIndex> free;
    for (VertexIndex v = 0; v < g.vertexCount(); ++v)
        if (v != g.source() && v != g.sink())
            free.push_back(v);
    Truth t;
    bool first = true, firstIS = true;
    for (std::uint32_t bits = 0; bits < (1u << free.size()); ++bits) {
        std::vector<VertexIndex> set;
        for (std::size_t i = 0; i < free.size(); ++i)
            if (bits >> i & 1)
                set.push_back(free[i]);
        const PlanEvaluation plan = evaluate(g, set);
        const std::int64_t peak = simulatePlanMemory(g, plan, MemoryModel::PyTorch, false).peakBytes;
        const double recompute = recomputeCost(g, plan).recomputed;
        if (first || peak < t.leastPeak || (peak == t.leastPeak && recompute < t.recomputeAtLeastPeak - 1e-9)) {
            t.leastPeak = peak;
            t.recomputeAtLeastPeak = recompute;
        }
        if (plan.isISPlan && (firstIS || peak < t.leastPeakOfISPlans)) {
            t.leastPeakOfISPlans = peak;
            firstIS = false;
        }
        t.mostPeak = first ? peak : std::max(t.mostPeak, peak);
        first = false;
        if (peak <= budget && (t.leastRecomputeWithin < 0 || recompute < t.leastRecomputeWithin))
            t.leastRecomputeWithin = recompute;
    }
    return t;
}

// A second input (a padding mask, say) that one or two vertices after the source read: the graph
// gets a virtual source, and the step holds both inputs (P21).
void addSecondInput(test::RandomGraphSpec& spec, std::mt19937_64& rng)
{
    const int input = static_cast<int>(spec.bytes.size());
    spec.bytes.push_back(1 + static_cast<std::int64_t>(rng() % 20));
    std::set<int> readers;
    for (int k = 0; k < 1 + static_cast<int>(rng() % 2); ++k)
        readers.insert(1 + static_cast<int>(rng() % (input - 1)));
    for (int reader : readers)
        spec.edges.push_back({input, reader});
}

// The families: randomDag, every shape of randomGraph (chains, residual chains, inception and
// dense blocks, crossings, series-parallel, random DAGs), a third of those with a second input;
// importer fields on every other graph.
Graph randomGraph(std::mt19937_64& rng, int index, int maxVertices)
{
    const int n = 3 + static_cast<int>(rng() % (maxVertices - 2));
    Graph g = [&] {
        if (index % 8 == 7)
            return test::randomDag(rng, n, 3);
        const auto shape = static_cast<test::RandomShape>(index % test::kRandomShapeCount);
        test::RandomGraphSpec spec = test::randomGraph(shape, n, rng);
        if (index / 2 % 3 == 1)
            addSecondInput(spec, rng);
        return test::makeGraph(spec.bytes, spec.edges);
    }();
    return index % 2 ? test::withImporterFields(g, rng) : g;
}

int graphCount(int normal)
{
    return qEnvironmentVariableIsSet("CKPT_LONG") ? 10000 : normal;
}

SolverOptions pytorchOptions(const std::string& budget = {})
{
    SolverOptions o;
    o.values["memory-model"] = "pytorch";
    if (!budget.empty())
        o.values["budget"] = budget;
    return o;
}

}  // namespace

class TestPyTorchPeak : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void leastPeakEqualsBruteForce_data()
    {
        QTest::addColumn<bool>("localSearch");
        QTest::newRow("local search, then branch and bound") << true;
        QTest::newRow("branch and bound alone") << false;
    }

    void leastPeakEqualsBruteForce()
    {
        QFETCH(bool, localSearch);
        std::mt19937_64 rng(localSearch ? 11 : 12);
        PeakSearchSettings settings;
        settings.localSearch = localSearch;
        // Alone, branch and bound meets a segment entering a suffix from before it (the suffix
        // floors must give it no gradient buffer) first at graph 1183.
        const int graphs = graphCount(localSearch ? 400 : 1200);
        for (int i = 0; i < graphs; ++i) {
            const Graph g = randomGraph(rng, i, 11);
            const Truth truth = bruteForce(g, 0);
            const PeakSearchResult found = searchPyTorchPeak(g, {}, settings, {});
            if (found.best.peak != truth.leastPeak ||
                std::abs(found.best.recomputed - truth.recomputeAtLeastPeak) > 1e-9 || !found.proven ||
                !found.settled)
                QFAIL(qPrintable(QStringLiteral("graph %1 (%2 vertices): found peak %3 recompute %4, brute force %5 / %6")
                                     .arg(i)
                                     .arg(g.vertexCount())
                                     .arg(found.best.peak)
                                     .arg(found.best.recomputed)
                                     .arg(truth.leastPeak)
                                     .arg(truth.recomputeAtLeastPeak)));
            // What the search reports is what the simulator says of its plan.
            QCOMPARE(found.best.peak, evaluatePyTorchPeak(g, found.best.checkpoints).peak);
            QVERIFY(found.best.peak <= truth.leastPeakOfISPlans);
            QVERIFY(pytorchPeakLowerBound(g) <= truth.leastPeak);
            QCOMPARE(found.lowerBound, truth.leastPeak);
        }
    }

    void budgetEqualsBruteForce()
    {
        std::mt19937_64 rng(21);
        const int graphs = graphCount(300);
        for (int i = 0; i < graphs; ++i) {
            const Graph g = randomGraph(rng, i, 11);
            const Truth range = bruteForce(g, 0);
            // Budgets below, at and above the least peak.
            const std::int64_t budget =
                range.leastPeak - 1 + static_cast<std::int64_t>(rng() % (range.mostPeak - range.leastPeak + 3));
            const Truth truth = bruteForce(g, budget);
            PeakSearchSettings settings;
            settings.budget = budget;
            settings.localSearch = i % 2;
            const PeakSearchResult found = searchPyTorchPeak(g, {}, settings, {});
            QVERIFY(found.proven);
            if (truth.leastRecomputeWithin < 0) {
                QVERIFY2(!found.fits, qPrintable(QStringLiteral("graph %1: budget %2 fits nothing").arg(i).arg(budget)));
                continue;
            }
            QVERIFY(found.fits);
            QVERIFY(found.best.peak <= budget);
            if (std::abs(found.best.recomputed - truth.leastRecomputeWithin) > 1e-9)
                QFAIL(qPrintable(QStringLiteral("graph %1, budget %2: found recompute %3, brute force %4")
                                     .arg(i)
                                     .arg(budget)
                                     .arg(found.best.recomputed)
                                     .arg(truth.leastRecomputeWithin)));
        }
    }

    void optimalSolverRecordsThePeak()
    {
        std::mt19937_64 rng(31);
        const Graph g = test::withImporterFields(test::randomDag(rng, 9, 3), rng);
        const Truth truth = bruteForce(g, 0);
        const Plan plan = runSolver("optimal", g, pytorchOptions());
        QCOMPARE(plan.options.at("memory-model"), std::string("pytorch"));
        QCOMPARE(plan.options.at("pytorch-peak"), std::to_string(truth.leastPeak));
        QCOMPARE(simulateMemory(g, plan, MemoryModel::PyTorch, false).peakBytes, truth.leastPeak);
        QVERIFY(plan.provenOptimal && *plan.provenOptimal);

        // Budget form: at the least peak it fits; below it nothing does, and the message says so.
        const Plan within = runSolver("optimal", g, pytorchOptions(std::to_string(truth.leastPeak)));
        QVERIFY(simulateMemory(g, within, MemoryModel::PyTorch, false).peakBytes <= truth.leastPeak);
        try {
            runSolver("optimal", g, pytorchOptions(std::to_string(truth.leastPeak - 1)));
            QFAIL("a budget below the least peak was accepted");
        } catch (const SolverError& e) {
            QVERIFY2(std::string(e.what()).find("every checkpoint set was searched") != std::string::npos, e.what());
        }
        QVERIFY_THROWS_EXCEPTION(SolverError, runSolver("optimal", g, pytorchOptions("lots")));
        SolverOptions unknown;
        unknown.values["memory-model"] = "tensorflow";
        QVERIFY_THROWS_EXCEPTION(SolverError, runSolver("optimal", g, unknown));
    }

    // P35: on a graph whose export measured the optimizer, the least iteration peak, max(step peak,
    // what the step leaves + the optimizer step's scratch), ties by least recompute: under a floor
    // some plan reaches, the least recompute among them; above every plan, the least step peak.
    void optimizerStepIsAFloor()
    {
        std::mt19937_64 rng(41);
        for (int i = 0; i < graphCount(150); ++i) {
            const Graph g = randomGraph(rng, i, 10);
            const Truth range = bruteForce(g, 0);
            const std::int64_t left =
                simulatePlanMemory(g, evaluate(g, {}), MemoryModel::PyTorch, false).phases.back().endBytes;
            const std::int64_t floor = std::max(left, range.leastPeak - 2 +
                                                          static_cast<std::int64_t>(rng() % (range.mostPeak - range.leastPeak + 4)));
            const Graph measured = withMetadata(g, {{"optimizer", "\"Adam\""},
                                                    {"optimizer_state_bytes", "0"},
                                                    {"optimizer_step_workspace_bytes", std::to_string(floor - left)}});
            const Truth truth = bruteForce(g, floor);
            const Plan plan = runSolver("optimal", measured, pytorchOptions());
            const PlanCosts costs = planCosts(measured, plan);
            QCOMPARE(costs.optimizerStepBytes, std::optional<std::int64_t>(floor));
            const std::int64_t leastIteration = std::max(range.leastPeak, floor);
            const double leastRecompute = truth.leastRecomputeWithin >= 0 ? truth.leastRecomputeWithin
                                                                          : range.recomputeAtLeastPeak;
            if (costs.iterationPeak() != leastIteration || std::abs(costs.recomputedCompute - leastRecompute) > 1e-9)
                QFAIL(qPrintable(QStringLiteral("graph %1, optimizer step %2: iteration peak %3 recompute %4, "
                                                "brute force %5 / %6")
                                     .arg(i)
                                     .arg(floor)
                                     .arg(costs.iterationPeak())
                                     .arg(costs.recomputedCompute)
                                     .arg(leastIteration)
                                     .arg(leastRecompute)));
            QVERIFY(plan.provenOptimal && *plan.provenOptimal);
            QCOMPARE(plan.options.count("optimizer-step"), std::size_t(range.leastPeak <= floor));
        }
    }

    // enough (max-batch's question): a plan within it when one exists, else proof that none is.
    void enoughStopsAtAFittingPlan()
    {
        std::mt19937_64 rng(13);
        for (int i = 0; i < graphCount(200); ++i) {
            const Graph g = randomGraph(rng, i, 11);
            const Truth truth = bruteForce(g, 0);
            for (bool localSearch : {true, false}) {
                PeakSearchSettings settings;
                settings.localSearch = localSearch;
                settings.enough = truth.leastPeak;
                const PeakSearchResult within = searchPyTorchPeak(g, {}, settings, {});
                QVERIFY(within.best.peak <= truth.leastPeak);
                QCOMPARE(within.best.peak, evaluatePyTorchPeak(g, within.best.checkpoints).peak);
                settings.enough = truth.leastPeak - 1;
                const PeakSearchResult none = searchPyTorchPeak(g, {}, settings, {});
                QVERIFY(none.exhausted);
                QVERIFY(!none.proven || none.best.peak == truth.leastPeak);
            }
        }
        const Graph g = test::withImporterFields(test::randomDag(rng, 9, 3), rng);
        SolverOptions both = pytorchOptions("100");
        both.values["enough"] = "100";
        QVERIFY_THROWS_EXCEPTION(SolverError, runSolver("optimal", g, both));
    }

    void tradesLowerTheRecomputeAtThePeak()
    {
        // The local search alone (exact-vertices 0): at the least peak the least recompute keeps v2
        // (compute 20) and drops v5 (1), which are no neighbours, so neither a flip nor a move along
        // an edge leads there from where the flips end (v0 v4 v5 v6 v8 v9, 28 % of a forward).
        const Graph g = parseGraphJson(R"({"schema": "checkpoint-explorer/graph", "version": 1,
            "vertices": [{"id": "v0", "bytes": 15, "compute": 2}, {"id": "v1", "bytes": 15, "compute": 0},
                         {"id": "v2", "bytes": 16, "compute": 20}, {"id": "v3", "bytes": 16, "compute": 1},
                         {"id": "v4", "bytes": 1, "compute": 5}, {"id": "v5", "bytes": 13, "compute": 1},
                         {"id": "v6", "bytes": 10, "compute": 10}, {"id": "v7", "bytes": 13, "compute": 1},
                         {"id": "v8", "bytes": 19, "compute": 20}, {"id": "v9", "bytes": 13, "compute": 20}],
            "edges": [{"from": "v0", "to": "v1"}, {"from": "v1", "to": "v2"}, {"from": "v2", "to": "v3"},
                      {"from": "v1", "to": "v3"}, {"from": "v3", "to": "v4"}, {"from": "v4", "to": "v5"},
                      {"from": "v5", "to": "v6"}, {"from": "v6", "to": "v7"}, {"from": "v7", "to": "v8"},
                      {"from": "v4", "to": "v8"}, {"from": "v8", "to": "v9"}]})");
        SolverOptions o = pytorchOptions();
        o.values["exact-vertices"] = "0";
        const Plan plan = runSolver("optimal", g, o);
        const PlanEvaluation found = evaluate(g, plan.checkpoints());
        const Truth truth = bruteForce(g, 0);
        QCOMPARE(simulatePlanMemory(g, found, MemoryModel::PyTorch, false).peakBytes, truth.leastPeak);
        QCOMPARE(recomputeCost(g, found).recomputed, truth.recomputeAtLeastPeak);
    }

    // Where branch and bound does not run (exact-vertices 0), the recompute the search reports as
    // least possible: never above the brute-force least, budget form and least-peak form alike.
    void recomputeLowerBoundNeverExceedsTheLeast()
    {
        std::mt19937_64 rng(23);
        int positive = 0, tight = 0, checked = 0;
        for (int i = 0; i < graphCount(300); ++i) {
            const Graph g = randomGraph(rng, i, 11);
            const Truth range = bruteForce(g, 0);
            PeakSearchSettings settings;
            settings.exactVertices = 0;
            const PeakSearchResult least = searchPyTorchPeak(g, {}, settings, {});
            // None beside torch.utils.checkpoint functions (P12: the bound is 0 there).
            const bool bounded = !runsCheckpointFunctions(g);
            // (Settled where no vertex is free: branch and bound ran on nothing.)
            QCOMPARE(least.recomputeLowerBound.has_value(), least.settled || (least.proven && bounded));
            std::vector<std::pair<double, double>> bounds;  // (reported, brute force)
            if (least.recomputeLowerBound)
                bounds.push_back({*least.recomputeLowerBound, range.recomputeAtLeastPeak});
            settings.budget =
                range.leastPeak + static_cast<std::int64_t>(rng() % (range.mostPeak - range.leastPeak + 1));
            const PeakSearchResult within = searchPyTorchPeak(g, {}, settings, {});
            // The local search may find none that fits.
            QCOMPARE(within.recomputeLowerBound.has_value(), within.proven || (within.fits && bounded));
            if (within.recomputeLowerBound)
                bounds.push_back({*within.recomputeLowerBound, bruteForce(g, *settings.budget).leastRecomputeWithin});
            for (const auto& [reported, truth] : bounds) {
                if (reported > truth + 1e-9)
                    QFAIL(qPrintable(QStringLiteral("graph %1: least recompute reported at least %2, brute force %3")
                                         .arg(i)
                                         .arg(reported)
                                         .arg(truth)));
                ++checked;
                positive += reported > 0;
                tight += truth > 0 && reported > truth - 1e-9;
            }
        }
        // Not a bound of nothing: it is above zero on many graphs and the least itself on some.
        QVERIFY2(positive > checked / 10 && tight > 0,
                 qPrintable(QStringLiteral("%1 of %2 bounds above zero, %3 tight").arg(positive).arg(checked).arg(tight)));
    }

    // Where branch and bound does not run (exact-vertices 0), the kicks reach the brute-force least
    // peak on graphs where the descents from the seeds stop above it, and never end worse.
    void kicksReachWhatDescentsMiss()
    {
        std::mt19937_64 rng(29);
        int missedByDescents = 0, missedWithKicks = 0;
        const int graphs = graphCount(300);
        for (int i = 0; i < graphs; ++i) {
            const Graph g = randomGraph(rng, i, 14);
            const std::int64_t least = bruteForce(g, 0).leastPeak;
            PeakSearchSettings settings;
            settings.exactVertices = 0;
            settings.kicks = false;
            const std::int64_t descents = searchPyTorchPeak(g, {}, settings, {}).best.peak;
            settings.kicks = true;
            const std::int64_t kicked = searchPyTorchPeak(g, {}, settings, {}).best.peak;
            QVERIFY(kicked <= descents);
            missedByDescents += descents > least;
            missedWithKicks += kicked > least;
        }
        qInfo("least peak missed on %d of %d graphs by the descents, on %d with kicks", missedByDescents, graphs,
              missedWithKicks);
        QVERIFY2(missedByDescents > 0 && missedWithKicks * 4 <= missedByDescents,
                 qPrintable(QStringLiteral("missed %1 by the descents, %2 with kicks").arg(missedByDescents).arg(missedWithKicks)));
    }

    void largeGraphsReportTheirGap()
    {
        // Above exact-vertices: the local search's plan, never worse than its starts, with a bound.
        const Graph g = test::makeResidualNetwork(12);
        SolverOptions o = pytorchOptions();
        o.values["exact-vertices"] = "5";
        o.values["time-limit"] = "5";
        const Plan plan = runSolver("optimal", g, o);
        const std::int64_t peak = simulateMemory(g, plan, MemoryModel::PyTorch, false).peakBytes;
        QCOMPARE(std::to_string(peak), plan.options.at("pytorch-peak"));
        QVERIFY(plan.lowerBound && *plan.lowerBound <= double(peak));
        for (const char* other : {"checkpoint-all", "feng-acg", "linearized-sqrtn"})
            QVERIFY(peak <= simulateMemory(g, runSolver(other, g), MemoryModel::PyTorch, false).peakBytes);
    }

    void recommendedRowHasTheLeastPeak()
    {
        std::vector<ComparisonRow> rows(4);
        rows[0].costs.peakPyTorch = 50;
        rows[1].costs.peakPyTorch = 40;
        rows[1].costs.recomputedCompute = 9;
        rows[2].costs.peakPyTorch = 40;
        rows[2].costs.recomputedCompute = 3;
        rows[3].error = "refused";
        QCOMPARE(recommendedRow(rows), 2);
        QCOMPARE(recommendedRow({rows[3]}), -1);
        // On a CUDA export, plans of one requested peak go by their blocks (rule A1), then recompute.
        rows[1].costs.peakCudaBlocks = 44;
        rows[2].costs.peakCudaBlocks = 45;
        QCOMPARE(recommendedRow(rows), 1);
        rows[1].costs.peakCudaBlocks = 45;
        QCOMPARE(recommendedRow(rows), 2);
        rows[0].costs.peakCudaBlocks = 41;  // a higher requested peak loses, whatever its blocks
        QCOMPARE(recommendedRow(rows), 2);
        // P35: below the optimizer's step every plan's iteration peaks there: least recompute wins.
        for (auto& row : rows)
            row.costs.optimizerStepBytes = 45;
        QCOMPARE(recommendedRow(rows), 2);
        for (auto& row : rows)
            row.costs.optimizerStepBytes = 60;
        QCOMPARE(recommendedRow(rows), 0);
    }

    // planCosts counts the blocks only for a graph exported on CUDA, and as simulate does.
    void cudaExportsAreCostedInBlocks()
    {
        const Graph cuda = readGraphFile(test::sourcePath(QStringLiteral("tests/data/snapshots/resnet50-h200.graph.json")).toStdString());
        const Plan plan = runSolver("feng-acg", cuda);
        const PlanCosts costs = planCosts(cuda, plan);
        QVERIFY(costs.peakCudaBlocks);
        QCOMPARE(*costs.peakCudaBlocks, simulateCudaStepMemory(cuda, plan.evaluation, false).peakBytes);
        QVERIFY(*costs.peakCudaBlocks > costs.peakPyTorch);
        const Graph cpu = test::makeChain({100, 200, 300});
        QVERIFY(!planCosts(cpu, runSolver("feng-acg", cpu)).peakCudaBlocks);
    }
};

QTEST_GUILESS_MAIN(TestPyTorchPeak)
#include "tst_pytorchpeak.moc"
