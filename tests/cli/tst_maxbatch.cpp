// ckptx max-batch: the largest batch whose plan fits, found by doubling and bisection, equals a
// linear scan over batches; batch-scaled sizes grow with the batch and the rest does not; graphs
// without a recorded batch size are refused with a message naming the file, unless --batch-size.
// (The CLI parts skip when ckptx is not built.)
#include "TestData.h"
#include "ToolRun.h"

#include "graph/GraphBuilder.h"
#include "graph/GraphError.h"
#include "io/GraphJson.h"
#include "solvers/Comparison.h"
#include "solvers/MaxBatch.h"
#include "solvers/SolverRegistry.h"

#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

using namespace ckpt;

namespace {

// A small network recorded at batch 2: activations scale, the classifier's output does not
// (say, a batch-independent statistic), and two layers hold weights.
Graph recordedNetwork(bool withBatchSize)
{
    GraphBuilder b;
    if (withBatchSize)
        b.setMetadata("batch_size", "2");
    const std::vector<std::int64_t> bytes{600, 1000, 400, 1000, 200, 8};
    for (std::size_t i = 0; i < bytes.size(); ++i) {
        Vertex v;
        v.id = "v" + std::to_string(i);
        v.bytes = bytes[i];
        v.compute = 10.0;
        v.autograd.write().parameterBytes = i == 1 ? 300 : i == 3 ? 500 : 0;
        v.autograd.write().forwardWorkspaceBytes = i == 2 ? 100 : 0;
        v.batchScaled = i != 5;
        b.addVertex(v);
        if (i)
            b.addEdge("v" + std::to_string(i - 1), v.id);
    }
    b.addEdge("v1", "v3");
    return b.build();
}

}  // namespace

class TestMaxBatch : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;

private Q_SLOTS:
    void scalesOnlyBatchScaledSizes()
    {
        const Graph g = recordedNetwork(true);
        QCOMPARE(recordedBatchSize(g), std::optional<std::int64_t>(2));
        const Graph at6 = graphAtBatch(g, 2, 6);
        QCOMPARE(at6.bytes(*at6.find("v1")), std::int64_t{3000});
        QCOMPARE(at6.vertex(*at6.find("v2")).autograd->forwardWorkspaceBytes, std::int64_t{300});
        QCOMPARE(at6.bytes(*at6.find("v5")), std::int64_t{8});
        QCOMPARE(at6.vertex(*at6.find("v1")).autograd->parameterBytes, std::int64_t{300});
        QCOMPARE(*at6.vertex(*at6.find("v1")).compute, 30.0);
        QCOMPARE(weightBytes(at6), std::int64_t{800});
        // batch_scaled survives a round trip (written only when false).
        const QString path = m_dir.filePath("g.json");
        writeGraphFile(path.toStdString(), g);
        const Graph back = readGraphFile(path.toStdString());
        QVERIFY(!back.vertex(*back.find("v5")).batchScaled);
        QVERIFY(back.vertex(*back.find("v4")).batchScaled);
    }

    void scalesTrackedOutputsWithinTheirTensor()
    {
        // P50: scaled down, a gradient of a few bytes keeps one, as GraphBuilder requires.
        Graph g = recordedNetwork(true);
        g = withChangedVertices(g, [](Vertex& v) {
            if (v.id == "v1")
                v.autograd.write().gradientBytes = 3;
        });
        QCOMPARE(graphAtBatch(g, 2, 6).vertex(*g.find("v1")).autograd->gradientBytes, std::optional<std::int64_t>(9));
        const Graph down = graphAtBatch(g, 2, 1);
        QCOMPARE(down.vertex(*down.find("v1")).autograd->gradientBytes, std::optional<std::int64_t>(2));
        const Graph tiny = graphAtBatch(g, 16, 1);
        QCOMPARE(tiny.vertex(*tiny.find("v1")).autograd->gradientBytes, std::optional<std::int64_t>(1));
        // P52: a vertex's tensors still add up to its bytes (1000 at batch 2: 3 and 997).
        g = withChangedVertices(g, [](Vertex& v) {
            if (v.id == "v1")
                v.autograd.write().tensors = {{3, {}, {}}, {997, {}, {}}};
        });
        for (const std::int64_t batch : {1, 3, 7, 64}) {
            const Graph scaled = graphAtBatch(g, 2, batch);
            const Vertex& v1 = scaled.vertex(*scaled.find("v1"));
            QCOMPARE(v1.autograd->tensors[0].bytes + v1.autograd->tensors[1].bytes, v1.bytes);
        }
        QCOMPARE(graphAtBatch(g, 2, 6).vertex(*g.find("v1")).autograd->tensors[0].bytes, std::int64_t(9));
    }

    void searchEqualsLinearScan()
    {
        const Graph g = recordedNetwork(true);
        for (const char* solver : {"checkpoint-all", "feng-acg", "optimal"})
            for (std::int64_t memory : {std::int64_t{500}, std::int64_t{5000}, std::int64_t{20000}, std::int64_t{77777}}) {
                std::int64_t expected = 0;
                SolverOptions options;
                if (std::string(solver) == "optimal")
                    options.values["memory-model"] = "pytorch";
                for (std::int64_t batch = 1; batch <= 200; ++batch) {
                    const Graph scaled = graphAtBatch(g, 2, batch);
                    const Plan plan = runSolver(solver, scaled, options);
                    if (simulateMemory(scaled, plan, MemoryModel::PyTorch, false).peakBytes + 800 <= memory)
                        expected = batch;
                }
                const MaxBatchResult r = largestBatch(g, 2, memory, solver, {});
                QVERIFY2(r.batch == expected, qPrintable(QStringLiteral("%1 in %2 bytes: %3, linear scan %4")
                                                             .arg(solver)
                                                             .arg(memory)
                                                             .arg(r.batch)
                                                             .arg(expected)));
                QCOMPARE(r.firstTooLarge, expected + 1);
                QCOMPARE(r.plan.has_value(), expected > 0);
                QVERIFY(r.firstTooLargeProven);  // six vertices: the least-peak search visits every set
            }
    }

    // Beside torch.utils.checkpoint functions (a Python export) the least-peak search has only the
    // plan-independent bounds past 20 free vertices: a batch it finds no plan for is not proven too
    // large, and the answer says so; the solve at that batch has a lower bound within the memory.
    // A small graph's miss is proven and said plainly.
    void aMissTheSearchCannotProveIsSaid()
    {
        auto chainOfFunctions = [](int length) {
            GraphBuilder b;
            b.setMetadata("batch_size", "2");
            b.setMetadata("plan_executor", "\"torch.utils.checkpoint\"");
            for (int i = 0; i < length; ++i) {
                Vertex v;
                v.id = "v" + std::to_string(i);
                v.bytes = 1000 + 300 * (i % 4);
                b.addVertex(v);
                if (i)
                    b.addEdge("v" + std::to_string(i - 1), v.id);
            }
            return b.build();
        };
        const Graph functions = chainOfFunctions(26);
        const std::int64_t memory = 100000;
        // Fourteen vertices: every set is visited, and a search that ends without a plan within the
        // memory proves that none exists, though its plan-independent bound stays below the memory.
        QVERIFY(largestBatch(chainOfFunctions(14), 2, memory, "optimal", {}).firstTooLargeProven);
        const MaxBatchResult r = largestBatch(functions, 2, memory, "optimal", {});
        QVERIFY(r.batch > 0);
        QVERIFY(!r.firstTooLargeProven);
        SolverOptions options;
        options.values["memory-model"] = "pytorch";
        options.values["enough"] = std::to_string(memory);
        const Plan miss = runSolver("optimal", graphAtBatch(functions, 2, r.firstTooLarge), options);
        QVERIFY(miss.lowerBound && *miss.lowerBound <= memory && !*miss.provenOptimal);
        // feng-acg's answer is about its own plan.
        QVERIFY(largestBatch(functions, 2, memory, "feng-acg", {}).firstTooLargeProven);

        if (!QFileInfo::exists(test::binPath("ckptx")))
            QSKIP("ckptx is not built");
        const QString path = m_dir.filePath("functions.json");
        writeGraphFile(path.toStdString(), functions);
        test::ToolRun run = test::runCkptx({"max-batch", path, "--memory", QString::number(memory), "--json"});
        QCOMPARE(run.exitCode, 0);
        const auto j = nlohmann::json::parse(run.out.toStdString());
        QCOMPARE(j["first_too_large"].get<std::int64_t>(), r.firstTooLarge);
        QVERIFY(!j["first_too_large_proven"].get<bool>());
        run = test::runCkptx({"max-batch", path, "--memory", QString::number(memory)});
        const QString unproven = QStringLiteral("batch %1: no plan found that fits, not proven").arg(r.firstTooLarge);
        QVERIFY2(run.out.contains(unproven.toUtf8()), qPrintable(run.out));
        const QString recorded = m_dir.filePath("proven.json");
        writeGraphFile(recorded.toStdString(), recordedNetwork(true));
        run = test::runCkptx({"max-batch", recorded, "--memory", "20000"});
        QVERIFY2(run.out.contains(" does not fit\n") && !run.out.contains("not proven"), qPrintable(run.out));
        run = test::runCkptx({"max-batch", recorded, "--memory", "20000", "--json"});
        QVERIFY(nlohmann::json::parse(run.out.toStdString())["first_too_large_proven"].get<bool>());
    }

    // A1 on a GPU: a graph exported on CUDA is judged in the caching allocator's blocks, which never
    // let a larger batch fit than the requested bytes do; the batch found fits in blocks and the next
    // one does not.
    void cudaExportsCountBlocks()
    {
        QCOMPARE(exportDeviceMemoryCount(recordedNetwork(true)), MemoryCount::Requested);
        GraphBuilder b;
        b.setMetadata("batch_size", "2");
        b.setMetadata("device", "\"cuda:0\"");
        const Graph small = recordedNetwork(true);
        for (VertexIndex v = 0; v < small.vertexCount(); ++v) {
            Vertex vertex = small.vertex(v);
            vertex.bytes *= 3001;  // hundreds of KB to MB: both pools, rounding and unsplit rests
            vertex.autograd.write().parameterBytes *= 3001;
            vertex.autograd.write().forwardWorkspaceBytes *= 3001;
            b.addVertex(vertex);
            for (VertexIndex p : small.predecessors(v))
                b.addEdge(small.vertex(p).id, vertex.id);
        }
        const Graph g = b.build();
        QCOMPARE(exportDeviceMemoryCount(g), MemoryCount::CudaBlocks);
        const std::int64_t weights = weightBytes(g);
        for (std::int64_t mib : {20, 60, 200, 700}) {
            const std::int64_t memory = mib << 20;
            const MaxBatchResult requested = largestBatch(g, 2, memory, "feng-acg", {});
            const MaxBatchResult blocks = largestBatch(g, 2, memory, "feng-acg", {}, MemoryCount::CudaBlocks);
            QVERIFY2(blocks.batch <= requested.batch, qPrintable(QStringLiteral("%1 MiB").arg(mib)));
            auto peakAt = [&](std::int64_t batch) {
                const Graph scaled = graphAtBatch(g, 2, batch);
                return simulateMemory(scaled, runSolver("feng-acg", scaled), MemoryModel::PyTorch, false,
                                      MemoryCount::CudaBlocks).peakBytes;
            };
            if (blocks.batch > 0) {
                QCOMPARE(blocks.peakBytes, peakAt(blocks.batch));
                QVERIFY(blocks.peakBytes + weights <= memory);
            }
            QVERIFY(peakAt(blocks.firstTooLarge) + weights > memory);
        }
    }

    // In blocks the least-peak search, which minimises requested bytes, proves a miss only when the
    // requested bytes miss too: a plan with more requested bytes may hold fewer blocks.
    void aMissInBlocksIsProvenOnlyByRequestedBytes()
    {
        GraphBuilder b;
        b.setMetadata("batch_size", "1");
        b.setMetadata("device", "\"cuda:0\"");
        for (int i = 0; i < 3; ++i) {
            Vertex v;
            v.id = "v" + std::to_string(i);
            v.bytes = 300;  // blocks round each up to 512 B
            v.autograd.write().forwardWorkspaceBytes = i == 1 ? 5000 : 0;
            b.addVertex(v);
            if (i)
                b.addEdge("v" + std::to_string(i - 1), v.id);
        }
        const Graph g = b.build();
        // The forward workspace is every plan's floor, so the search proves its requested peak least
        // even when it stops at the first plan within the memory.
        SolverOptions leastPeak;
        leastPeak.values["memory-model"] = "pytorch";
        const Plan least = runSolver("optimal", g, leastPeak);
        QVERIFY(*least.provenOptimal);
        const std::int64_t requested = simulateMemory(g, least, MemoryModel::PyTorch, false).peakBytes;
        const std::int64_t blocks =
            simulateMemory(g, least, MemoryModel::PyTorch, false, MemoryCount::CudaBlocks).peakBytes;
        QVERIFY(requested < blocks);
        const MaxBatchResult between = largestBatch(g, 1, (requested + blocks) / 2, "optimal", {}, MemoryCount::CudaBlocks);
        QCOMPARE(between.batch, std::int64_t{0});
        QCOMPARE(between.firstTooLarge, std::int64_t{1});
        QVERIFY(!between.firstTooLargeProven);
        QVERIFY(largestBatch(g, 1, requested - 1, "optimal", {}, MemoryCount::CudaBlocks).firstTooLargeProven);
    }

    void countsTheOptimizersState()
    {
        // Adam keeps two moments per weight through every step: the step has the memory less three
        // copies of the weights, and the batch is the one that fits there with no state.
        const Graph g = recordedNetwork(true);
        const std::int64_t weights = weightBytes(g);
        QCOMPARE(optimizerStateCopies("sgd"), std::optional<int>(0));
        QCOMPARE(optimizerStateCopies("momentum"), std::optional<int>(1));
        QCOMPARE(optimizerStateCopies("adamw"), std::optional<int>(2));
        QCOMPARE(optimizerStateCopies("lion"), std::optional<int>());
        for (std::int64_t memory : {6000, 20000, 90000}) {
            const MaxBatchResult adam =
                largestBatch(g, 2, memory, "feng-acg", {}, MemoryCount::Requested, {"adam", 2 * weights});
            const MaxBatchResult stateless = largestBatch(g, 2, memory - 2 * weights, "feng-acg", {});
            QCOMPARE(adam.optimizerStateBytes, 2 * weights);
            QCOMPARE(adam.batch, stateless.batch);
            const std::int64_t plain = largestBatch(g, 2, memory, "feng-acg", {}).batch;
            QVERIFY(memory < 90000 ? adam.batch <= plain : adam.batch < plain);
            if (adam.batch > 0)
                QVERIFY(adam.peakBytes + 3 * weights <= memory);
        }
    }

    // P35: optimizer.step() runs on what the step leaves and allocates its scratch there: the largest
    // batch is the last one where both the plan's peak and that fit beside the weights and the state,
    // found by a linear scan; a scratch that leaves no room after batch 1's step fits no batch.
    void countsTheOptimizerStepsScratch()
    {
        const Graph g = recordedNetwork(true);
        const std::int64_t weights = weightBytes(g);
        const std::int64_t state = 2 * weights + 16;
        auto atBatch = [&](std::int64_t batch) {
            const Graph scaled = graphAtBatch(g, 2, batch);
            return simulateMemory(scaled, runSolver("feng-acg", scaled, {}), MemoryModel::PyTorch, false);
        };
        const std::int64_t leftAtOne = atBatch(1).phases.back().endBytes;
        QVERIFY(leftAtOne >= weights);  // the weights' gradients at least
        for (std::int64_t memory : {4000, 9000, 30000})
            for (std::int64_t scratch : {std::int64_t{0}, weights, 3 * weights, memory - weights - state - leftAtOne,
                                         memory - weights - state - leftAtOne + 1}) {
                const OptimizerMemory adam{"Adam", state, scratch, true};
                std::int64_t expected = 0;
                for (std::int64_t batch = 1; batch <= 100; ++batch) {
                    const MemoryProfile m = atBatch(batch);
                    if (m.peakBytes + weights + state <= memory &&
                        m.phases.back().endBytes + scratch + weights + state <= memory)
                        expected = batch;
                }
                const MaxBatchResult r = largestBatch(g, 2, memory, "feng-acg", {}, MemoryCount::Requested, adam);
                QVERIFY2(r.batch == expected, qPrintable(QStringLiteral("%1 bytes, scratch %2: %3, linear scan %4")
                                                             .arg(memory)
                                                             .arg(scratch)
                                                             .arg(r.batch)
                                                             .arg(expected)));
                if (scratch == memory - weights - state - leftAtOne + 1)
                    QCOMPARE(r.batch, std::int64_t{0});
                if (r.batch > 0)
                    QCOMPARE(r.optimizerStepBytes, atBatch(r.batch).phases.back().endBytes + scratch);
            }
    }

    void readsTheOptimizerAnExportMeasured()
    {
        QVERIFY(!measuredOptimizer(recordedNetwork(true)));
        const Graph g = withMetadata(recordedNetwork(true), {{"optimizer", "\"AdamW\""},
                                                             {"optimizer_state_bytes", "1624"},
                                                             {"optimizer_step_workspace_bytes", "1200"}});
        const std::optional<OptimizerMemory> m = measuredOptimizer(g);
        QVERIFY(m && m->measured);
        QCOMPARE(m->name, std::string("AdamW"));
        QCOMPARE(m->stateBytes, std::int64_t{1624});
        QCOMPARE(m->stepWorkspaceBytes, std::int64_t{1200});
        for (const auto& [field, value, says] : std::vector<std::tuple<std::string, std::string, std::string>>{
                 {"optimizer_state_bytes", "-1", "non-negative integer"},
                 {"optimizer_step_workspace_bytes", "\"1 MB\"", "non-negative integer"},
                 {"optimizer_step_workspace_bytes", "18446744073709551615", "at most 2^53"},
                 {"optimizer_state_bytes", "9007199254740993", "at most 2^53"},
                 {"optimizer", "7", "string"}}) {
            try {
                measuredOptimizer(withMetadata(g, {{field, value}}));
                QFAIL(qPrintable(QString::fromStdString(field + " = " + value + " accepted")));
            } catch (const GraphError& e) {
                QVERIFY2(e.where() == "/metadata/" + field &&
                             std::string(e.what()).find(says) != std::string::npos,
                         e.what());
            }
        }
        try {
            measuredOptimizer(withMetadata(recordedNetwork(true), {{"optimizer", "\"SGD\""}}));
            QFAIL("a half-written optimizer accepted");
        } catch (const GraphError& e) {
            QVERIFY2(e.where() == "/metadata/optimizer_state_bytes" && e.problem().find("missing") == 0, e.what());
        }
    }

    // Frozen weights (fine-tuning a head, LoRA) are in the memory but get no gradient: the export
    // leaves them out of the vertices' parameter bytes, metadata parameter_bytes counts every weight.
    void frozenWeightsTakeMemoryButNoGradient()
    {
        const Graph trained = recordedNetwork(true);
        QCOMPARE(weightBytes(trained), std::int64_t{800});
        QCOMPARE(trainedWeightBytes(trained), std::int64_t{800});
        const Graph frozen = withMetadata(trained, {{"parameter_bytes", "5800"}, {"accumulate_gradients", "true"}});
        QCOMPARE(weightBytes(frozen), std::int64_t{5800});
        QCOMPARE(trainedWeightBytes(frozen), std::int64_t{800});
        for (std::int64_t memory : {20000, 90000}) {
            const MaxBatchResult r = largestBatch(frozen, 2, memory, "feng-acg", {});
            QCOMPARE(r.weightBytes, std::int64_t{5800});
            QCOMPARE(r.keptGradientBytes, std::int64_t{800});
            const Graph atBatch = graphAtBatch(frozen, 2, r.batch + 1);
            QVERIFY(simulateMemory(atBatch, runSolver("feng-acg", atBatch), MemoryModel::PyTorch).peakBytes + 6600 > memory);
            QVERIFY(r.peakBytes + 6600 <= memory);
        }
    }

    void countsTheGradientsAnAccumulationStepKeeps()
    {
        // P33: a gradient-accumulation micro-batch starts with the weights' gradients: the largest batch
        // is the last whose plan's peak fits beside two copies of the weights, and no more than without.
        const Graph g = withMetadata(recordedNetwork(true), {{"accumulate_gradients", "true"}});
        const std::int64_t weights = weightBytes(g);
        auto peakAt = [&](std::int64_t batch) {
            const Graph scaled = graphAtBatch(g, 2, batch);
            return simulateMemory(scaled, runSolver("feng-acg", scaled, {}), MemoryModel::PyTorch).peakBytes;
        };
        for (std::int64_t memory : {3000, 6000, 20000, 90000}) {
            const MaxBatchResult r = largestBatch(g, 2, memory, "feng-acg", {});
            QCOMPARE(r.keptGradientBytes, weights);
            QVERIFY(r.batch <= largestBatch(recordedNetwork(true), 2, memory, "feng-acg", {}).batch);
            if (r.batch > 0) {
                QCOMPARE(r.peakBytes, peakAt(r.batch));
                QVERIFY(r.peakBytes + 2 * weights <= memory);
            }
            QVERIFY(peakAt(r.batch + 1) + 2 * weights > memory);
        }
        QCOMPARE(largestBatch(recordedNetwork(true), 2, 20000, "feng-acg", {}).keptGradientBytes, std::int64_t{0});
    }

    void cli()
    {
        if (!QFileInfo::exists(test::binPath("ckptx")))
            QSKIP("ckptx is not built");
        const QString recorded = m_dir.filePath("recorded.json"), bare = m_dir.filePath("bare.json");
        writeGraphFile(recorded.toStdString(), recordedNetwork(true));
        writeGraphFile(bare.toStdString(), recordedNetwork(false));
        test::ToolRun r = test::runCkptx({"max-batch", recorded, "--memory", "20000", "--json"});
        QCOMPARE(r.exitCode, 0);
        const auto j = nlohmann::json::parse(r.out.toStdString());
        QCOMPARE(j["max_batch"].get<std::int64_t>(), largestBatch(recordedNetwork(true), 2, 20000, "optimal", {}).batch);
        QCOMPARE(j["weight_bytes"].get<std::int64_t>(), std::int64_t{800});

        r = test::runCkptx({"max-batch", bare, "--memory", "20000"});
        QCOMPARE(r.exitCode, 1);
        QVERIFY(r.err.contains("bare.json") && r.err.contains("batch_size") && r.err.count('\n') == 1);
        r = test::runCkptx({"max-batch", bare, "--memory", "20000", "--batch-size", "2", "--json"});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(nlohmann::json::parse(r.out.toStdString())["max_batch"], j["max_batch"]);
        QCOMPARE(test::runCkptx({"max-batch", recorded, "--memory", "lots"}).exitCode, 2);
        QCOMPARE(test::runCkptx({"max-batch", recorded}).exitCode, 2);
        QCOMPARE(test::runCkptx({"max-batch", recorded, "--memory", "20000", "--allocator", "pool"}).exitCode, 2);
        QCOMPARE(j["optimizer_state_bytes"].get<std::int64_t>(), std::int64_t{0});
        r = test::runCkptx({"max-batch", recorded, "--memory", "20000", "--optimizer", "adam", "--json"});
        QCOMPARE(r.exitCode, 0);
        const auto adam = nlohmann::json::parse(r.out.toStdString());
        QCOMPARE(adam["optimizer_state_bytes"].get<std::int64_t>(), std::int64_t{1600});
        QCOMPARE(adam["max_batch"].get<std::int64_t>(),
                 largestBatch(recordedNetwork(true), 2, 20000, "optimal", {}, MemoryCount::Requested, {"adam", 1600})
                     .batch);
        QVERIFY(adam["max_batch"].get<std::int64_t>() < j["max_batch"].get<std::int64_t>());
        QVERIFY(!j["accumulate_gradients"].get<bool>());
        r = test::runCkptx({"max-batch", recorded, "--memory", "20000", "--accumulate", "--json"});
        QCOMPARE(r.exitCode, 0);
        const auto accumulating = nlohmann::json::parse(r.out.toStdString());
        QVERIFY(accumulating["accumulate_gradients"].get<bool>());
        QCOMPARE(accumulating["kept_gradient_bytes"].get<std::int64_t>(), std::int64_t{800});
        QCOMPARE(accumulating["max_batch"].get<std::int64_t>(),
                 largestBatch(withMetadata(recordedNetwork(true), {{"accumulate_gradients", "true"}}), 2, 20000,
                              "optimal", {})
                     .batch);
        r = test::runCkptx({"max-batch", recorded, "--memory", "20000", "--accumulate"});
        QVERIFY(r.out.contains("gradient accumulation"));
        // P35: a graph exported with --optimizer brings its measured state and step scratch; --optimizer
        // names one instead (its scratch unknown); a broken field is refused naming the file.
        const QString measured = m_dir.filePath("measured.json"), broken = m_dir.filePath("broken.json");
        const Graph withAdam = withMetadata(recordedNetwork(true), {{"optimizer", "\"Adam\""},
                                                                    {"optimizer_state_bytes", "1624"},
                                                                    {"optimizer_step_workspace_bytes", "3000"}});
        writeGraphFile(measured.toStdString(), withAdam);
        writeGraphFile(broken.toStdString(), withMetadata(withAdam, {{"optimizer_state_bytes", "-5"}}));
        r = test::runCkptx({"max-batch", measured, "--memory", "20000", "--json"});
        QCOMPARE(r.exitCode, 0);
        const auto fromExport = nlohmann::json::parse(r.out.toStdString());
        QVERIFY(fromExport["optimizer_measured"].get<bool>());
        QCOMPARE(fromExport["optimizer"].get<std::string>(), std::string("Adam"));
        QCOMPARE(fromExport["optimizer_state_bytes"].get<std::int64_t>(), std::int64_t{1624});
        QCOMPARE(fromExport["optimizer_step_workspace_bytes"].get<std::int64_t>(), std::int64_t{3000});
        QCOMPARE(fromExport["max_batch"].get<std::int64_t>(),
                 largestBatch(withAdam, 2, 20000, "optimal", {}, MemoryCount::Requested, *measuredOptimizer(withAdam))
                     .batch);
        r = test::runCkptx({"max-batch", measured, "--memory", "20000"});
        QVERIFY(r.out.contains("measured by the export") && r.out.contains("optimizer.step()"));
        r = test::runCkptx({"max-batch", measured, "--memory", "20000", "--optimizer", "adam", "--json"});
        QCOMPARE(nlohmann::json::parse(r.out.toStdString())["max_batch"], adam["max_batch"]);
        r = test::runCkptx({"max-batch", broken, "--memory", "20000"});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("broken.json") && r.err.contains("optimizer_state_bytes"), qPrintable(r.err));
        r = test::runCkptx({"max-batch", recorded, "--memory", "20000", "--optimizer", "lion"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.contains("--optimizer"));

        // A graph the Python package exported on an H200: counted in CUDA blocks unless told otherwise.
        const QString cuda = test::sourcePath("tests/data/snapshots/resnet50-h200.graph.json");
        r = test::runCkptx({"max-batch", cuda, "--memory", "4GiB", "--json"});
        QCOMPARE(r.exitCode, 0);
        const auto blocks = nlohmann::json::parse(r.out.toStdString());
        QCOMPARE(blocks["allocator"].get<std::string>(), std::string("cuda"));
        r = test::runCkptx({"max-batch", cuda, "--memory", "4GiB", "--allocator", "requested", "--json"});
        const auto requested = nlohmann::json::parse(r.out.toStdString());
        QCOMPARE(requested["allocator"].get<std::string>(), std::string("requested"));
        QVERIFY(blocks["max_batch"].get<std::int64_t>() > 8);
        QVERIFY(blocks["max_batch"].get<std::int64_t>() <= requested["max_batch"].get<std::int64_t>());
        QVERIFY(test::runCkptx({"max-batch", cuda, "--memory", "4GiB"}).out.contains("in CUDA caching allocator blocks"));
    }
};

QTEST_GUILESS_MAIN(TestMaxBatch)
#include "tst_maxbatch.moc"
