#include "solvers/ChenSqrtNSolver.h"

#include <cmath>

namespace ckpt {

std::vector<OptionSpec> ChenSqrtNSolver::options() const
{
    return {{"step", "0", "checkpoint every step-th candidate; 0 = ceil(sqrt(candidates))"}};
}

Plan ChenSqrtNSolver::solve(const Graph& graph, const SolverOptions& options) const
{
    const CandidateChain chain = candidateChain(graph, m_kind, name());
    const int k = chain.size() - 2;  // candidates strictly between source and sink
    std::int64_t step = options.integer("step", 0);
    if (step < 0)
        throw SolverError("option step must be 0 or positive");
    if (step == 0)
        step = std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil(std::sqrt(static_cast<double>(k)))));
    std::vector<int> chosen;
    for (int t = 1; t <= k; ++t)
        if (t % step == 0)
            chosen.push_back(t);
    Plan plan = makePlan(graph, *this, options, chainVertices(chain, chosen));
    plan.notes.push_back(std::to_string(k) + " candidates, every " + std::to_string(step) + "-th checkpointed");
    return plan;
}

}  // namespace ckpt
