// The CBC solvers on the published Checkmate graphs (../shared/data/checkmate-graphs).
//   bench_cbc optimal [SECONDS [GRAPH.json ...]]  optimal vs the best IS plan (feng-acg when registered) per
//                                  forward graph: the published ones, or the graph files given
//   bench_cbc checkmate [SECONDS]  checkmate-milp budget sweeps on VGG16, vgg_unet and ResNet-50 train graphs
// Prints Markdown table rows for docs/BENCHMARKS.md.
#include "io/GraphJson.h"
#include "solvers/BudgetSweep.h"
#include "solvers/FrontierDp.h"
#include "solvers/SolverRegistry.h"

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

using namespace ckpt;

namespace {

const std::string dir = CKPT_SHARED_DIR "/data/checkmate-graphs/";

void benchOptimal(const std::string& seconds, std::vector<std::string> files)
{
    if (files.empty())
        for (const char* name : {"VGG16_256_224x224x3_test_nx", "VGG19_256_224x224x3_test_nx",
                                 "fcn_8_vgg_32_416x608x3_test_nx", "segnet_32_416x608x3_test_nx",
                                 "vgg_unet_32_416x608x3_test_nx", "MobileNet_512_224x224x3_test_nx",
                                 "ResNet50_256_224x224x3_test_nx", "random_layered_n100_w0.27_nlv0.75_ed0.2_scd0.14",
                                 "random_layered_n250_w0.43_nlv0.75_ed0.2_scd0.14"})
            files.push_back(dir + name + ".json");
    std::printf("| graph | vertices | frontier width | method | best IS plan (feng-acg) | optimal | better by | proven "
                "| gap | seconds | IS plan? |\n");
    std::printf("|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (const std::string& file : files) {
        const Graph g = readGraphFile(file);
        std::string name = file.substr(file.find_last_of('/') + 1);
        name = name.substr(0, name.rfind(".json"));
        SolverOptions options;
        options.values["time-limit"] = seconds;
        const Plan plan = runSolver("optimal", g, options);
        std::string isBest = "n/a", better = "n/a";
        if (findSolver("feng-acg")) {
            const Plan is = runSolver("feng-acg", g);
            isBest = std::to_string(is.objective());
            better = std::to_string(100.0 * (is.objective() - plan.objective()) / is.objective()) + "%";
        }
        // The method that ran last (after any fallback), from the plan's notes.
        std::string method = "?";
        for (const std::string& note : plan.notes)
            if (note.rfind("frontier DP", 0) == 0)
                method = "frontier DP";
            else if (note.rfind("CBC row generation:", 0) == 0)
                method = "row generation";
        const double gap = 100.0 * (plan.objective() - plan.lowerBound.value_or(0)) / plan.objective();
        std::printf("| %s | %d | %d | %s | %s | %lld | %s | %s | %.2f%% | %.1f | %s |\n", name.c_str(), g.vertexCount(),
                    frontierOrder(g).width, method.c_str(), isBest.c_str(),
                    static_cast<long long>(plan.objective()), better.c_str(), *plan.provenOptimal ? "yes" : "no", gap,
                    plan.wallTimeMs / 1000, plan.evaluation.isISPlan ? "yes" : "no");
        std::fflush(stdout);
    }
}

void benchCheckmate(double seconds)
{
    std::printf("| graph | budget (bytes) | status | overhead | peak (bytes) | seconds |\n|---|---|---|---|---|---|\n");
    for (const char* name : {"VGG16_256_224x224x3_train_nx", "vgg_unet_32_416x608x3_train_nx",
                             "ResNet50_256_224x224x3_train_nx"}) {
        const Graph g = readGraphFile(dir + name + ".json");
        BudgetSweepSettings settings;
        settings.solvers = {"checkmate-milp"};
        settings.points = 4;
        settings.timeLimit = seconds;
        const BudgetSweepResult r = budgetSweep(g, settings);
        for (const BudgetSweepRow& row : r.rows)
            std::printf("| %s | %lld | %s | %s | %s | %.1f |\n", name, static_cast<long long>(row.budget.value_or(0)),
                        row.status.c_str(), row.hasPoint() ? std::to_string(row.overhead).c_str() : "-",
                        row.hasPoint() ? std::to_string(row.peakBytes).c_str() : row.error.c_str(), row.seconds);
        std::fflush(stdout);
    }
}

}  // namespace

int main(int argc, char** argv)
{
    const std::string what = argc > 1 ? argv[1] : "optimal";
    const std::string seconds = argc > 2 ? argv[2] : "60";
    if (what == "optimal")
        benchOptimal(seconds, std::vector<std::string>(argv + std::min(argc, 3), argv + argc));
    else if (what == "checkmate")
        benchCheckmate(std::stod(seconds));
    else {
        std::fprintf(stderr, "usage: bench_cbc optimal [SECONDS [GRAPH.json ...]] | checkmate [SECONDS]\n");
        return 2;
    }
    return 0;
}
