#include "solvers/RandomSolver.h"

#include <optional>
#include <random>

namespace ckpt {

std::vector<OptionSpec> RandomSolver::options() const
{
    return {{"seed", "1", "random seed"},
            {"valid", "10", "valid sets to collect"},
            {"trials", "100", "draws at most"}};
}

Plan RandomSolver::solve(const Graph& graph, const SolverOptions& options) const
{
    const std::int64_t seed = options.integer("seed", 1);
    const std::int64_t wanted = options.integer("valid", 10);
    const std::int64_t trials = options.integer("trials", 100);
    if (wanted < 1 || trials < 1)
        throw SolverError("options valid and trials must be at least 1");

    std::vector<VertexIndex> interior;
    for (VertexIndex v : graph.topologicalOrder())
        if (v != graph.source() && v != graph.sink())
            interior.push_back(v);
    std::mt19937_64 rng(static_cast<std::uint64_t>(seed));
    std::optional<Plan> best;
    std::int64_t valid = 0, drawn = 0;
    while (valid < wanted && drawn < trials) {
        options.checkCancelled();
        ++drawn;
        std::vector<VertexIndex> chosen;
        if (!interior.empty()) {
            const int count = std::uniform_int_distribution<int>(1, 5)(rng);
            for (int i = 0; i < count; ++i)
                chosen.push_back(interior[std::uniform_int_distribution<std::size_t>(0, interior.size() - 1)(rng)]);
        }
        Plan plan = makePlan(graph, *this, options, std::move(chosen));
        if (!plan.evaluation.isISPlan)
            continue;
        ++valid;
        if (!best || plan.objective() < best->objective())
            best = std::move(plan);
    }
    if (!best)
        throw SolverError("no valid set in " + std::to_string(trials) + " trials");
    best->notes.push_back("best of " + std::to_string(valid) + " valid sets in " + std::to_string(drawn) + " draws");
    return std::move(*best);
}

}  // namespace ckpt
