#include "solvers/HongDynamicQuadraticSolver.h"

#include "solvers/ChainCandidates.h"

#include <algorithm>
#include <limits>

namespace ckpt {

ChainSelection hongDynamicQuadratic(const CandidateChain& chain, const SolverOptions& options)
{
    const int m = chain.size() - 1;
    std::vector<std::int64_t> best(m + 1, 0);
    std::vector<int> next(m + 1, m);
    best[m] = chain.bytes[m];
    for (int i = m - 1; i >= 0; --i) {
        if ((i & 1023) == 0)
            options.checkCancelled();
        best[i] = std::numeric_limits<std::int64_t>::max();
        // U(i, j) = s(i, j) + d_j (Eq. 15), grown one j at a time.
        std::int64_t between = 0, largest = chain.bytes[i];
        for (int j = i + 1; j <= m; ++j) {
            largest = std::max(largest, chain.gapMax[j]);
            const std::int64_t u = between + chain.gapBytes[j] + largest + chain.bytes[j];
            const std::int64_t value = chain.bytes[i] + std::max(best[j], u);
            if (value <= best[i]) {
                best[i] = value;
                next[i] = j;
            }
            between += chain.gapBytes[j] + chain.bytes[j];
            largest = std::max(largest, chain.bytes[j]);
        }
    }
    ChainSelection out;
    out.value = best[0];
    out.work = static_cast<std::int64_t>(m) * (m + 1) / 2;
    for (int i = 0;; i = next[i]) {
        out.positions.push_back(i);
        if (i == m)
            break;
    }
    return out;
}

Plan hongDynamicPlan(const Graph& graph, const Solver& solver, const SolverOptions& options,
                     ChainSelection (*select)(const CandidateChain&, const SolverOptions&))
{
    std::vector<std::string> notes;
    const CandidateChain chain = hongChain(graph, notes);
    const ChainSelection selection = select(chain, options);
    Plan plan = makePlan(graph, solver, options, chainVertices(chain, selection.positions));
    plan.notes = std::move(notes);
    plan.notes.push_back("Eq. 12 optimum on the chain (PyTorch peak): " + std::to_string(selection.value) +
                         " bytes");
    return plan;
}

Plan HongDynamicQuadraticSolver::solve(const Graph& graph, const SolverOptions& options) const
{
    return hongDynamicPlan(graph, *this, options, &hongDynamicQuadratic);
}

}  // namespace ckpt
