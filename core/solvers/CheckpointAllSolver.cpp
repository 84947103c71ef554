#include "solvers/CheckpointAllSolver.h"

namespace ckpt {

Plan CheckpointAllSolver::solve(const Graph& graph, const SolverOptions& options) const
{
    return makePlan(graph, *this, options, graph.topologicalOrder());
}

}  // namespace ckpt
