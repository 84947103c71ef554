// The rows of `ckptx compare` with every fast solver on 1,000-vertex graphs: a random chain and,
// when ../shared is present, Checkmate's random_layered_n1000 DAG. Prints per-solver solve time
// and the wall time of the whole comparison (solving + both memory models + recomputation).
// Usage: bench_compare [GRAPH ...]
#include "io/GraphJson.h"
#include "graph/GraphBuilder.h"
#include "solvers/Comparison.h"

#include <chrono>
#include <cstdio>
#include <random>

using namespace ckpt;

namespace {

Graph randomChain(int n)
{
    std::mt19937_64 rng(3);
    GraphBuilder b;
    for (int i = 0; i < n; ++i) {
        Vertex v;
        v.id = "v" + std::to_string(i);
        v.bytes = static_cast<std::int64_t>(rng() % (1 << 20)) + 1;
        b.addVertex(v);
        if (i)
            b.addEdge("v" + std::to_string(i - 1), v.id);
    }
    b.setName("random chain, 1000 vertices");
    return b.build();
}

void bench(const Graph& g)
{
    const auto start = std::chrono::steady_clock::now();
    const auto rows = compareSolvers(g, {});
    const double total = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    std::printf("%s (%d vertices, %d edges): compare of %zu solvers in %.1f ms\n", g.name().c_str(), g.vertexCount(),
                g.edgeCount(), rows.size(), total);
    for (const auto& r : rows)
        std::printf("  %-24s %s %8.2f ms\n", r.solver.c_str(), r.error ? "failed" : "ok    ", r.solveMs);
}

}  // namespace

int main(int argc, char** argv)
{
    bench(randomChain(1000));
    const char* fallback = CKPT_SHARED_GRAPH;
    if (argc > 1)
        for (int i = 1; i < argc; ++i)
            bench(readGraphFile(argv[i]));
    else if (std::FILE* f = std::fopen(fallback, "r")) {
        std::fclose(f);
        bench(readGraphFile(fallback));
    }
    return 0;
}
