#include "TestData.h"
#include "graph/GraphBuilder.h"
#include "memory/PlanMemory.h"
#include "memory/TraceComparison.h"

#include <QtTest>

#include <functional>

using namespace ckpt;

namespace {

// A graph of named vertices (id, bytes) and edges; GraphBuilder adds the virtual vertices it needs.
Graph namedGraph(const std::vector<std::pair<std::string, std::int64_t>>& vertices,
                 const std::vector<std::pair<std::string, std::string>>& edges)
{
    GraphBuilder builder;
    for (const auto& [id, bytes] : vertices) {
        Vertex v;
        v.id = id;
        v.bytes = bytes;
        builder.addVertex(std::move(v));
    }
    for (const auto& [from, to] : edges)
        builder.addEdge(from, to);
    return builder.build();
}

// A trace of graph g whose step reports `bytes(simulated phase)` + offset at the matched
// phases and `junk` at the trace's own phases of the input (which must be skipped).
ProfileTrace traceOf(const Graph& g, const MemoryProfile& predicted, std::int64_t baseline,
                     const std::function<std::int64_t(int)>& bytes, std::int64_t junk)
{
    ProfileTrace trace;
    for (VertexIndex v : g.topologicalOrder())
        trace.vertices.push_back(g.vertex(v).id);
    trace.baselineBytes = baseline;
    const int n = g.vertexCount() - 1, traceN = g.vertexCount();
    const std::int64_t offset = baseline - g.bytes(g.source());
    trace.checkpointed.phases.resize(2 * traceN + 2);
    for (int i = 0; i < 2 * traceN + 2; ++i) {
        trace.checkpointed.phases[i].index = i;
        trace.checkpointed.phases[i].endBytes = junk;
    }
    for (const PhaseMemory& p : predicted.phases) {
        int t = p.index;  // 0 stays 0
        if (p.index >= 1 && p.index <= n)
            t = p.index + 1;
        else if (p.index > n && p.index <= 2 * n)
            t = 2 * traceN - (2 * n + 1 - p.index);
        else if (p.index == 2 * n + 1)
            t = 2 * traceN + 1;
        trace.checkpointed.phases[t].endBytes = bytes(p.index) + offset;
    }
    trace.checkpointed.peakBytes = predicted.peakBytes + offset;
    return trace;
}

// The chain v0 -> v1 -> v2 of 10 bytes each, v1 with the given weights and saved extras.
Graph chainWithWeights(std::int64_t parameterBytes, std::int64_t savedBytes)
{
    GraphBuilder b;
    for (int i = 0; i < 3; ++i) {
        Vertex v;
        v.id = "v" + std::to_string(i);
        v.bytes = 10;
        v.autograd.write().parameterBytes = i == 1 ? parameterBytes : 0;
        v.autograd.write().savedBytes = i == 1 ? savedBytes : 0;
        b.addVertex(std::move(v));
    }
    b.addEdge("v0", "v1");
    b.addEdge("v1", "v2");
    return b.build();
}

}  // namespace

class TraceComparisonTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void exactTraceHasNoError()
    {
        const Graph g = test::makeChain({10, 8, 9, 6, 7, 10});
        const MemoryProfile p = simulatePlanMemory(g, evaluate(g, {0, 2, 5}), MemoryModel::PyTorch);
        const ProfileTrace t = traceOf(g, p, 1010, [&](int i) { return p.phases[i].endBytes; }, 999999);
        const TraceComparison c = compareWithTrace(g, p, t, t.checkpointed);
        QCOMPARE(int(c.phases.size()), 12);
        QCOMPARE(c.meanAbsErrorPercent, 0.0);
        QCOMPARE(c.peakErrorPercent, 0.0);
        QCOMPARE(c.measuredPeak, p.peakBytes);
        QCOMPARE(c.phases[1].traceIndex, 2);    // forward of v1 is the trace's phase 2
        QCOMPARE(c.phases[10].traceIndex, 11);  // backward of v1: 2*6 - 1
        QCOMPARE(c.phases[11].traceIndex, 13);
    }

    void errorsArePercentOfMeasured()
    {
        const Graph g = test::makeChain({50, 40, 45, 30, 35, 50});  // all totals divisible by 5
        const MemoryProfile p = simulatePlanMemory(g, evaluate(g, {0, 2, 5}), MemoryModel::Chen);
        // Measured twice the prediction at phase 3 (error -50 %), and 80 % of it at phase 7 (+25 %).
        auto measured = [&](int i) {
            const std::int64_t b = p.phases[i].endBytes;
            return i == 3 ? 2 * b : i == 7 ? b * 4 / 5 : b;
        };
        ProfileTrace t = traceOf(g, p, 500, measured, -1);
        t.checkpointed.peakBytes = 2 * p.peakBytes + (500 - 50);
        const TraceComparison c = compareWithTrace(g, p, t, t.checkpointed);
        QCOMPARE(c.phases[3].errorPercent, -50.0);
        QCOMPARE(c.phases[7].errorPercent, 25.0);
        QCOMPARE(c.meanAbsErrorPercent, 75.0 / 12);
        QCOMPARE(c.measuredPeak, 2 * p.peakBytes);
        QCOMPARE(c.peakErrorPercent, -50.0);
    }

    void severalInputsWithoutTheVirtualSource()
    {
        // Token ids and a padding mask (x, m) -> a -> b: GraphBuilder joins the inputs with a virtual
        // source, which the Python profiler's trace (written from the graph file) does not list;
        // its phases are the simulators' own, phase 0 before the step standing for the virtual
        // source's forward.
        const Graph g = namedGraph({{"x", 8}, {"m", 4}, {"a", 20}, {"b", 30}}, {{"x", "a"}, {"m", "a"}, {"a", "b"}});
        QVERIFY(g.vertex(g.source()).isVirtual);
        const MemoryProfile p = simulatePlanMemory(g, evaluate(g, g.topologicalOrder()), MemoryModel::PyTorch);
        const int n = g.vertexCount() - 1;
        ProfileTrace t;
        for (int k = 1; k <= n; ++k)
            t.vertices.push_back(g.vertex(g.topologicalOrder()[k]).id);
        t.baselineBytes = 1000 + 12;  // weights and both inputs
        t.checkpointed.phases.resize(2 * n + 2);
        for (const PhaseMemory& phase : p.phases) {
            t.checkpointed.phases[phase.index].index = phase.index;
            t.checkpointed.phases[phase.index].endBytes = phase.endBytes + 1000;
        }
        t.checkpointed.peakBytes = p.peakBytes + 1000;
        const TraceComparison c = compareWithTrace(g, p, t, t.checkpointed);
        QCOMPARE(c.meanAbsErrorPercent, 0.0);
        QCOMPARE(c.peakErrorPercent, 0.0);
        for (const PhaseComparison& phase : c.phases)
            QCOMPARE(phase.traceIndex, phase.index);
        t.vertices[0] = "y";
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, compareWithTrace(g, p, t, t.checkpointed));
    }

    void severalOutputsWithoutTheVirtualSink()
    {
        // A model with two heads, x -> a -> {c, r}: GraphBuilder joins the outputs with a virtual
        // sink, which no trace lists. The trace's phases are the real vertices' (x as phase 1, as
        // ckptx-torch writes them); the virtual sink's forward and backward phases are skipped, every
        // other simulated phase is matched with its vertex's, and the errors are those phases'.
        const Graph g = namedGraph({{"x", 8}, {"a", 20}, {"c", 4}, {"r", 8}}, {{"x", "a"}, {"a", "c"}, {"a", "r"}});
        QVERIFY(g.vertex(g.sink()).isVirtual);
        const MemoryProfile p = simulatePlanMemory(g, evaluate(g, g.topologicalOrder()), MemoryModel::PyTorch);
        const int n = g.vertexCount() - 1;  // 4: x a c r and the sink
        ProfileTrace t;
        for (int k = 0; k < n; ++k)
            t.vertices.push_back(g.vertex(g.topologicalOrder()[k]).id);
        const int traceN = n;
        t.baselineBytes = 1000 + 8;
        t.checkpointed.phases.resize(2 * traceN + 2);
        // Measured: each vertex's phase ends as simulated, but 10 bytes more at c's backward.
        for (const PhaseMemory& phase : p.phases) {
            const int v = phase.index <= n ? phase.index : 2 * n + 1 - phase.index;
            if (phase.index == 0 || phase.index == 2 * n + 1 || v == n)
                continue;
            const int at = phase.index <= n ? v + 1 : 2 * traceN - v;
            t.checkpointed.phases[at].endBytes = phase.endBytes + 1000 + (phase.index > n && v == 2 ? 10 : 0);
        }
        t.checkpointed.phases[0].endBytes = p.phases[0].endBytes + 1000;
        t.checkpointed.phases[2 * traceN + 1].endBytes = p.phases.back().endBytes + 1000;
        t.checkpointed.peakBytes = p.peakBytes + 1000;
        const TraceComparison c = compareWithTrace(g, p, t, t.checkpointed);
        QCOMPARE(c.phases.size(), std::size_t(2 * n));  // all but the sink's two
        for (const PhaseComparison& phase : c.phases) {
            QVERIFY(phase.index != n && phase.index != n + 1);
            QCOMPARE(phase.errorPercent == 0.0, phase.index != 2 * n + 1 - 2);
        }
        QCOMPARE(c.peakErrorPercent, 0.0);
        t.vertices.pop_back();
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, compareWithTrace(g, p, t, t.checkpointed));
    }

    void otherGraphIsRefused()
    {
        const Graph g = test::makeChain({10, 8, 9});
        const MemoryProfile p = simulatePlanMemory(g, evaluate(g, {0, 2}), MemoryModel::PyTorch);
        ProfileTrace t = traceOf(g, p, 10, [&](int i) { return p.phases[i].endBytes; }, 0);
        t.vertices[1] = "conv1";
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, compareWithTrace(g, p, t, t.checkpointed));
        t = traceOf(g, p, 10, [&](int i) { return p.phases[i].endBytes; }, 0);
        t.checkpointed.phases.pop_back();
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, compareWithTrace(g, p, t, t.checkpointed));
    }

    void parameterGradientsStayAfterTraining()
    {
        // v1 reads 100 bytes of weights: pytorch forms their gradient at v1's backward and keeps
        // it after training (it is what the optimizer reads); chen counts no gradients.
        const Graph g = chainWithWeights(100, 0);
        const PlanEvaluation plan = evaluate(g, {0, 1, 2});
        const MemoryProfile torch = simulatePlanMemory(g, plan, MemoryModel::PyTorch);
        QCOMPARE(torch.phases[3].endBytes, 10 + 10 + 10);  // backward of v2: v0, v1, buffer
        QCOMPARE(torch.phases[4].endBytes, 10 + 10 + 100);  // backward of v1: v0, buffer, weights' gradient
        QCOMPARE(torch.phases[5].endBytes, 10 + 100);       // after training
        const std::vector<std::string> live{"v0", "v1", "grad-buffer", "param-grad:v1"};
        QCOMPARE(torch.phases[4].live, live);
        const MemoryProfile chen = simulatePlanMemory(g, plan, MemoryModel::Chen);
        QCOMPARE(chen.phases[5].endBytes, 10);
    }

    void savedExtrasFollowAutograd()
    {
        // v1 (a max pooling) saves 7 bytes of indices for its backward.
        const Graph g = chainWithWeights(0, 7);
        // Regular training: recorded in the forward, freed at v1's backward (phase 4).
        const MemoryProfile regular = simulatePlanMemory(g, evaluate(g, {0, 1, 2}), MemoryModel::PyTorch);
        QCOMPARE(regular.phases[1].endBytes, 10 + 10 + 7);
        QCOMPARE(regular.phases[3].endBytes, 10 + 10 + 7 + 10);  // + buffer
        QCOMPARE(regular.phases[4].endBytes, 10 + 10);          // v0 + buffer
        // v1 recomputed: no autograd in the forward, the indices come with the re-forward.
        const MemoryProfile recomputed = simulatePlanMemory(g, evaluate(g, {0, 2}), MemoryModel::PyTorch);
        QCOMPARE(recomputed.phases[1].endBytes, 10 + 10);
        QCOMPARE(recomputed.phases[3].endBytes, 10 + 10 + 7 + 10);  // v0, v1, indices, buffer
        QCOMPARE(recomputed.phases[4].endBytes, 10 + 10);
        QCOMPARE(simulatePlanMemory(g, evaluate(g, {0, 2}), MemoryModel::Chen).peakBytes, 30);
    }
};

QTEST_GUILESS_MAIN(TraceComparisonTest)
#include "tst_tracecomparison.moc"
