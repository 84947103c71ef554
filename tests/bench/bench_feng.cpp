// Feng–Huang solver benchmark: division tree + full C sweep (feng-acg) on ResNet-like,
// DenseNet-like and Inception-like graphs of 50 to 5,000 vertices and on the published
// Checkmate graphs. Usage: bench_feng [SHARED_GRAPH_DIR]   (prints a Markdown table)
#include "PaperNetworks.h"
#include "io/GraphJson.h"
#include "solvers/FengAcgSolver.h"
#include "solvers/TreeCheckpointSearch.h"
#include "theory/DivisionTree.h"

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

using namespace ckpt;

namespace {

double medianMs(const std::function<void()>& run)
{
    std::vector<double> times;
    const auto begin = std::chrono::steady_clock::now();
    while (times.size() < 3 || (times.size() < 51 && std::chrono::steady_clock::now() - begin < std::chrono::milliseconds(300))) {
        const auto start = std::chrono::steady_clock::now();
        run();
        times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    }
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
}

long peakRssKb()
{
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_maxrss;
}

void bench(const std::string& label, const Graph& g)
{
    const DivisionTree tree = DivisionTree::build(g);
    std::size_t treeEntries = 0;
    for (const DivisionNode& n : tree.nodes())
        treeEntries += n.segment.vertices.size();
    const std::size_t terms = TreeCheckpointSearch(g, tree).maxTerms().size();
    const FengAcgSolver solver;
    SolverOptions every;
    every.values["sweep"] = "every";
    Plan plan;
    const double treeMs = medianMs([&] { DivisionTree::build(g); });
    const double stepsMs = medianMs([&] { plan = solver.solve(g, {}); });
    std::size_t solved = 0;
    for (const SweepEntry& e : plan.sweep->entries)
        solved += !e.reused;
    const double everyMs = medianMs([&] { solver.solve(g, every); });
    std::printf("| %s | %d | %d | %d | %zu | %zu | %zu | %.3f | %.3f | %.3f | %ld |\n", label.c_str(), g.vertexCount(),
                g.edgeCount(), tree.size(), treeEntries, terms, solved, treeMs, stepsMs, everyMs, peakRssKb() / 1024);
    std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv)
{
    std::printf("| graph | V | E | tree nodes | tree vertex entries | max terms C | Alg. 5 runs (steps) | tree ms | "
                "feng-acg ms (steps) | feng-acg ms (every C) | peak RSS MiB |\n");
    std::printf("|---|---|---|---|---|---|---|---|---|---|---|\n");
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
