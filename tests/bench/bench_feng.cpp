// Feng–Huang solver benchmark: division tree + full C sweep (feng-acg) on ResNet-like,
// DenseNet-like and Inception-like graphs of 50 to 5,000 vertices and on the published
// Checkmate graphs. Usage: bench_feng [SHARED_GRAPH_DIR]   (prints a Markdown table; times
// are median CPU milliseconds)
#include "PaperNetworks.h"
#include "graph/GraphBuilder.h"
#include "io/GraphJson.h"
#include "solvers/FengAcgSolver.h"
#include "solvers/TreeCheckpointSearch.h"
#include "theory/DivisionTree.h"

#include <malloc.h>

#include <algorithm>
#include <ctime>
#include <cstdlib>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <new>
#include <random>
#include <string>
#include <vector>

using namespace ckpt;

// Heap accounting: live and peak bytes of everything allocated through operator new.
namespace {
std::size_t g_live = 0, g_peak = 0;
}

void* operator new(std::size_t n)
{
    void* p = std::malloc(n ? n : 1);
    if (!p)
        throw std::bad_alloc();
    g_live += malloc_usable_size(p);
    g_peak = std::max(g_peak, g_live);
    return p;
}
void operator delete(void* p) noexcept
{
    if (p) {
        g_live -= malloc_usable_size(p);
        std::free(p);
    }
}
void operator delete(void* p, std::size_t) noexcept { operator delete(p); }

namespace {

// Median process CPU time of `run` in milliseconds (the benchmark machine is shared, so
// CPU time is steadier than wall time; on an idle machine they agree).
double medianMs(const std::function<void()>& run)
{
    auto cpuMs = [] {
        timespec t{};
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
        return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
    };
    std::vector<double> times;
    const double begin = cpuMs();
    while (times.size() < 3 || (times.size() < 51 && cpuMs() - begin < 300)) {
        const double start = cpuMs();
        run();
        times.push_back(cpuMs() - start);
    }
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
}

// Peak heap bytes above what was live before `run`.
std::size_t peakHeap(const std::function<void()>& run)
{
    const std::size_t before = g_live;
    g_peak = g_live;
    run();
    return g_peak - before;
}

void bench(const std::string& label, const Graph& g)
{
    const DivisionTree tree = DivisionTree::build(g);
    // Nodes, their child links and the vertices they hold.
    std::size_t treeEntries = static_cast<std::size_t>(g.vertexCount());
    for (const DivisionNode& n : tree.nodes())
        treeEntries += 1 + n.children.size();
    const std::size_t terms = TreeCheckpointSearch(g, tree).maxTerms().size();
    const FengAcgSolver solver;
    SolverOptions every;
    every.values["sweep"] = "every";
    Plan plan;
    const double treeMs = medianMs([&] { DivisionTree::build(g); });
    const double stepsMs = medianMs([&] { plan = solver.solve(g, {}); });
    const std::size_t solved = plan.sweep->entries.size();
    const double everyMs = medianMs([&] { solver.solve(g, every); });
    std::size_t sweepBytes = 0;
    for (const SweepEntry& e : plan.sweep->entries)
        sweepBytes += sizeof(SweepEntry) + e.checkpoints.capacity() * sizeof(VertexIndex);
    plan = Plan();
    const std::size_t heap = peakHeap([&] { plan = solver.solve(g, {}); });
    std::printf("| %s | %d | %d | %d | %zu | %zu | %zu | %.3f | %.3f | %.3f | %.2f | %.2f |\n", label.c_str(),
                g.vertexCount(), g.edgeCount(), tree.size(), treeEntries, terms, solved, treeMs, stepsMs, everyMs,
                heap / 1048576.0, sweepBytes / 1048576.0);
    std::fflush(stdout);
}

Vertex tensor(int index, std::int64_t bytes)
{
    Vertex v;
    v.id = "v" + std::to_string(index);
    v.bytes = bytes;
    return v;
}

// Worst cases for the Complicate division: Fig. 4's Complicate IS with every member a chain
// of `length` vertices, and a dense block (every layer reads every earlier one) of `layers`.
Graph complicateOfChains(int length)
{
    GraphBuilder b;
    const int i = 0, k = 1, t = 2, j = 3;
    for (int v = 0; v < 4; ++v)
        b.addVertex(tensor(v, 1000));
    int next = 4;
    for (auto [from, to] : {std::pair{i, k}, {i, t}, {k, t}, {k, j}, {t, j}}) {
        int at = from;
        for (int s = 0; s < length; ++s, ++next) {
            b.addVertex(tensor(next, 100 + (next * 37) % 900));
            b.addEdge("v" + std::to_string(at), "v" + std::to_string(next));
            at = next;
        }
        b.addEdge("v" + std::to_string(at), "v" + std::to_string(to));
    }
    return b.build();
}

Graph denseBlock(int layers)
{
    GraphBuilder b;
    for (int v = 0; v < layers; ++v) {
        b.addVertex(tensor(v, 1000 + (v * 53) % 700));
        for (int u = 0; u < v; ++u)
            b.addEdge("v" + std::to_string(u), "v" + std::to_string(v));
    }
    return b.build();
}

// A random DAG whose edges only reach `window` vertices back: many small crossing
// structures, so many Complicate IS nested in Linear ones (the hardest case we found).
Graph localRandomDag(int vertices, int window, double density)
{
    std::mt19937_64 rng(7);
    GraphBuilder b;
    for (int v = 0; v < vertices; ++v) {
        b.addVertex(tensor(v, 1 + static_cast<std::int64_t>(rng() % 1000)));
        if (v == 0)
            continue;
        const int lo = std::max(0, v - window);
        b.addEdge("v" + std::to_string(lo + static_cast<int>(rng() % (v - lo))), "v" + std::to_string(v));
        for (int u = lo; u < v; ++u)
            if (std::bernoulli_distribution(density)(rng))
                b.addEdge("v" + std::to_string(u), "v" + std::to_string(v));
    }
    return b.build();
}

}  // namespace

int main(int argc, char** argv)
{
    std::printf("| graph | V | E | tree nodes | tree vertex entries | max terms C | sweep entries (steps) | tree ms | "
                "feng-acg ms (steps) | feng-acg ms (every C) | peak heap MiB (steps) | of which sweep output MiB |\n");
    std::printf("|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (int depth : {18, 34, 50, 101, 152})
        bench("resnet" + std::to_string(depth), test::resnet(depth));
    for (int depth : {121, 161, 169, 201})
        bench("densenet" + std::to_string(depth), test::densenet(depth));
    for (int vertices : {50, 100, 200, 500, 1000, 2000, 5000})
        bench("resnet-like basic", test::resnetLike((vertices - 11) / 5, false));
    for (int vertices : {50, 100, 200, 500, 1000, 2000, 5000}) {
        const int layers = std::max(1, (vertices - 16) / 20);  // four dense blocks of 5-vertex layers
        bench("densenet-like 4 blocks", test::densenetLike(4, layers));
    }
    for (int modules : {5, 20, 60, 200, 600})
        bench("inception-like", test::inceptionLike(modules));
    for (int length : {10, 100, 1000})
        bench("complicate of chains", complicateOfChains(length));
    for (int layers : {10, 50, 200})
        bench("dense block (tournament)", denseBlock(layers));
    for (int vertices : {500, 1000, 2000, 5000})
        bench("local random DAG (window 3)", localRandomDag(vertices, 3, 0.1));
    const std::string dir = argc > 1 ? argv[1] : "../shared/data/checkmate-graphs";
    if (std::filesystem::is_directory(dir)) {
        std::vector<std::string> files;
        for (const auto& entry : std::filesystem::directory_iterator(dir)) {
            const std::string name = entry.path().filename().string();
            if (name.ends_with("_test_nx.json") || name.starts_with("random_layered"))
                files.push_back(entry.path().string());
        }
        std::sort(files.begin(), files.end());
        for (const std::string& f : files)
            bench(std::filesystem::path(f).filename().string(), readGraphFile(f));
    } else {
        std::printf("(no published graphs: %s is not a directory)\n", dir.c_str());
    }
    return 0;
}
