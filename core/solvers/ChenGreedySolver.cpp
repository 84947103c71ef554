#include "solvers/ChenGreedySolver.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace ckpt {

std::vector<OptionSpec> ChenGreedySolver::options() const
{
    return {{"budget", "0", "segment budget b in bytes; 0 = search b"},
            {"budgets", "100", "how many budgets the search tries"}};
}

std::vector<int> chenGreedyPositions(const CandidateChain& chain, std::int64_t budget)
{
    std::vector<int> chosen;
    std::int64_t running = 0;
    for (int t = 1; t + 1 < chain.size(); ++t) {
        running += chain.gapBytes[t] + chain.bytes[t];
        if (running > budget) {
            chosen.push_back(t);
            running = 0;
        }
    }
    return chosen;
}

Plan ChenGreedySolver::solve(const Graph& graph, const SolverOptions& options) const
{
    const CandidateChain chain = candidateChain(graph, m_kind, name());
    const std::int64_t given = options.integer("budget", 0);
    const std::int64_t count = options.integer("budgets", 100);
    if (given < 0 || count < 1)
        throw SolverError("options budget >= 0 and budgets >= 1 are required");

    std::vector<std::int64_t> budgets{given};
    if (given == 0) {
        std::int64_t smallest = 0, total = 0;
        for (int t = 1; t < chain.size(); ++t) {
            total += chain.gapBytes[t] + (t + 1 < chain.size() ? chain.bytes[t] : 0);
            if (chain.bytes[t] > 0 && (smallest == 0 || chain.bytes[t] < smallest))
                smallest = chain.bytes[t];
        }
        smallest = std::max<std::int64_t>(smallest, 1);
        total = std::max(total, smallest);
        const double ratio = static_cast<double>(total) / static_cast<double>(smallest);
        for (std::int64_t i = 0; i < count; ++i) {
            const double f = count == 1 ? 1.0 : static_cast<double>(i) / static_cast<double>(count - 1);
            budgets.push_back(static_cast<std::int64_t>(std::llround(smallest * std::pow(ratio, f))));
        }
    }
    std::set<std::vector<int>> tried;
    std::optional<Plan> best;
    std::int64_t bestBudget = 0;
    for (std::int64_t b : budgets) {
        options.checkCancelled();
        std::vector<int> chosen = chenGreedyPositions(chain, b);
        if (!tried.insert(chosen).second)
            continue;
        Plan plan = makePlan(graph, *this, options, chainVertices(chain, chosen));
        if (!best || plan.objective() < best->objective()) {
            best = std::move(plan);
            bestBudget = b;
        }
    }
    best->notes.push_back("budget b = " + std::to_string(bestBudget) + " bytes" +
                          (given == 0 ? " (best of " + std::to_string(tried.size()) + " distinct plans)" : ""));
    return std::move(*best);
}

}  // namespace ckpt
