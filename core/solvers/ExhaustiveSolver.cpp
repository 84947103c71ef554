#include "solvers/ExhaustiveSolver.h"

#include <bit>
#include <cstdint>
#include <limits>

namespace ckpt {

std::string ExhaustiveSolver::description() const
{
    return m_isPlansOnly ? "Every IS plan (Feng & Huang Eq. 2 search space), up to 24 vertices"
                         : "Every checkpoint set (general model), up to 24 vertices";
}

Plan ExhaustiveSolver::solve(const Graph& graph, const SolverOptions& options) const
{
    const int n = graph.vertexCount();
    if (n > maxVertices)
        throw SolverError(name() + " enumerates 2^(V-2) checkpoint sets and is limited to " +
                          std::to_string(maxVertices) + " vertices; " +
                          (graph.name().empty() ? std::string("the graph") : "\"" + graph.name() + "\"") + " has " +
                          std::to_string(n) + (graph.hasVirtualVertices() ? " (virtual source or sink included)" : ""));
    // Bit k is the vertex at topological position k: the source is bit 0, the sink bit n-1.
    const auto& order = graph.topologicalOrder();
    std::vector<std::uint32_t> pred(n, 0), succ(n, 0), near(n, 0);
    std::vector<std::int64_t> bytes(n);
    for (int k = 0; k < n; ++k) {
        const VertexIndex v = order[k];
        bytes[k] = graph.bytes(v);
        for (VertexIndex w : graph.predecessors(v))
            pred[k] |= 1u << graph.topologicalPosition(w);
        for (VertexIndex w : graph.successors(v))
            succ[k] |= 1u << graph.topologicalPosition(w);
        near[k] = pred[k] | succ[k];
    }
    const std::uint32_t all = n == 32 ? ~0u : (1u << n) - 1;
    const std::uint32_t ends = n == 1 ? 1u : (1u | (1u << (n - 1)));
    const int free = std::max(0, n - 2);

    std::int64_t best = std::numeric_limits<std::int64_t>::max();
    std::uint32_t bestSet = ends;
    for (std::uint32_t subset = 0; subset < (1u << free); ++subset) {
        if ((subset & 0xffff) == 0)
            options.checkCancelled();
        const std::uint32_t chosen = (subset << 1) | ends;
        std::int64_t total = 0;
        for (std::uint32_t b = chosen; b; b &= b - 1)
            total += bytes[std::countr_zero(b)];
        if (total >= best)
            continue;
        std::uint32_t rest = all & ~chosen;
        std::int64_t largest = 0;
        bool ok = true;
        while (rest && ok) {
            std::uint32_t component = rest & -rest, frontier = component;
            while (frontier) {
                std::uint32_t reach = 0;
                for (std::uint32_t b = frontier; b; b &= b - 1)
                    reach |= near[std::countr_zero(b)];
                frontier = reach & rest & ~component;
                component |= frontier;
            }
            rest &= ~component;
            std::int64_t cost = 0;
            std::uint32_t entries = 0, exits = 0;
            for (std::uint32_t b = component; b; b &= b - 1) {
                const int k = std::countr_zero(b);
                cost += bytes[k];
                entries |= pred[k];
                exits |= succ[k];
            }
            largest = std::max(largest, cost);
            if (m_isPlansOnly)
                ok = std::popcount(entries & chosen) == 1 && std::popcount(exits & chosen) == 1;
            ok = ok && total + largest < best;
        }
        if (ok) {
            best = total + largest;
            bestSet = chosen;
        }
    }
    std::vector<VertexIndex> checkpoints;
    for (std::uint32_t b = bestSet; b; b &= b - 1)
        checkpoints.push_back(order[std::countr_zero(b)]);
    Plan plan = makePlan(graph, *this, options, std::move(checkpoints));
    if (plan.evaluation.objective != best)
        throw std::logic_error(name() + ": the best set does not evaluate as found");
    return plan;
}

}  // namespace ckpt
