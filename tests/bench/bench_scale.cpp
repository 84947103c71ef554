// Scale benchmark graphs (issue 17): chains, residual chains, nested "rainbow" graphs and
// dense blocks of N vertices, built in memory and either written as JSON (to time
// `ckptx solve` under /usr/bin/time -v) or solved here with feng-acg.
//
// Usage: bench_scale KIND N write OUT.json
//        bench_scale KIND N tree             (division tree only, wall ms)
//        bench_scale KIND N solve            (division tree + feng-acg sweep, wall ms)
//        bench_scale KIND N simulate         (solve, then the plan's step under the `pytorch` model in
//                                             requested bytes and in CUDA blocks, as the memory chart
//                                             draws it: no live names)
// KIND: chain | residual | rainbow | dense. Bytes are pseudo-random in [1, 2^20] from a
// fixed seed, so every max term is distinct and the sweep meets its worst case.
#include "graph/GraphBuilder.h"
#include "io/GraphJson.h"
#include "solvers/Comparison.h"
#include "solvers/FengAcgSolver.h"
#include "theory/DivisionTree.h"

#include <chrono>
#include <cstdio>
#include <random>
#include <stdexcept>
#include <string>

using namespace ckpt;

namespace {

std::string id(int v) { return "v" + std::to_string(v); }

// The chain v0 -> v1 -> ... -> v(n-1) with seeded random bytes; `shape` adds the other edges.
class ScaleGraph {
public:
    explicit ScaleGraph(int n) : m_n(n)
    {
        std::mt19937_64 random(17);
        std::uniform_int_distribution<std::int64_t> bytes(1, 1 << 20);
        for (int v = 0; v < n; ++v) {
            Vertex x;
            x.id = id(v);
            x.bytes = bytes(random);
            m_builder.addVertex(std::move(x));
        }
    }
    void edge(int from, int to) { m_builder.addEdge(id(from), id(to)); }
    void chain()
    {
        for (int v = 0; v + 1 < m_n; ++v)
            edge(v, v + 1);
    }
    Graph build(const std::string& name)
    {
        m_builder.setName(name);
        return m_builder.build();
    }

private:
    int m_n;
    GraphBuilder m_builder;
};

Graph makeGraph(const std::string& kind, int n)
{
    ScaleGraph g(n);
    if (kind == "chain") {
        g.chain();
    } else if (kind == "residual") {
        // A skip connection over every block of three layers (ResNet's basic block).
        g.chain();
        for (int v = 0; v + 3 < n; v += 3)
            g.edge(v, v + 3);
    } else if (kind == "rainbow") {
        // Nested skips v_i -> v_(n-1-i): a division tree as deep as the graph is long.
        g.chain();
        for (int v = 0; n - 1 - v > v + 1; ++v)
            g.edge(v, n - 1 - v);
    } else if (kind == "dense") {
        // Blocks of 35 layers where every layer reads every earlier one (DenseNet), each
        // block's last vertex the next block's first: about 17 edges per vertex.
        constexpr int block = 35;
        for (int first = 0; first + 1 < n; first += block - 1) {
            const int last = std::min(n - 1, first + block - 1);
            for (int a = first; a < last; ++a)
                for (int b = a + 1; b <= last; ++b)
                    g.edge(a, b);
        }
    } else {
        throw std::invalid_argument("unknown kind \"" + kind + "\" (chain, residual, rainbow, dense)");
    }
    return g.build(kind + "-" + std::to_string(n));
}

double msSince(std::chrono::steady_clock::time_point start)
{
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv)
{
    if (argc < 4) {
        std::fprintf(stderr, "usage: bench_scale chain|residual|rainbow|dense N write OUT.json | tree | solve | simulate\n");
        return 2;
    }
    try {
        const std::string kind = argv[1], action = argv[3];
        const int n = std::stoi(argv[2]);
        auto start = std::chrono::steady_clock::now();
        const Graph graph = makeGraph(kind, n);
        std::printf("%s: %d vertices, %d edges, built in %.0f ms\n", graph.name().c_str(), graph.vertexCount(),
                    graph.edgeCount(), msSince(start));
        if (action == "write" && argc == 5) {
            writeGraphFile(argv[4], graph);
            return 0;
        }
        if (action != "solve" && action != "tree" && action != "simulate")
            throw std::invalid_argument("unknown action \"" + action + "\" (write OUT.json, tree, solve, simulate)");
        start = std::chrono::steady_clock::now();
        const DivisionTree tree = DivisionTree::build(graph);
        std::printf("division tree: %d nodes in %.0f ms\n", tree.size(), msSince(start));
        if (action == "tree")
            return 0;
        start = std::chrono::steady_clock::now();
        const Plan plan = FengAcgSolver().solve(graph, {});
        std::printf("feng-acg: objective %lld, %zu checkpoints, %zu sweep entries in %.0f ms\n",
                    static_cast<long long>(plan.objective()), plan.checkpoints().size(), plan.sweep->entries.size(),
                    msSince(start));
        if (action == "solve")
            return 0;
        for (const MemoryCount count : {MemoryCount::Requested, MemoryCount::CudaBlocks}) {
            start = std::chrono::steady_clock::now();
            const MemoryProfile profile = simulateMemory(graph, plan, MemoryModel::PyTorch, false, count);
            std::printf("pytorch step, %s: peak %lld bytes in %.0f ms\n",
                        count == MemoryCount::Requested ? "requested bytes" : "CUDA blocks",
                        static_cast<long long>(profile.peakBytes), msSince(start));
        }
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_scale: %s\n", e.what());
        return 1;
    }
}
