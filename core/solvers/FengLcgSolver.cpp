#include "solvers/FengLcgSolver.h"

#include "solvers/FengAcgSolver.h"
#include "solvers/ForwardGraphCheck.h"

namespace ckpt {

std::vector<OptionSpec> FengLcgSolver::options() const
{
    return FengAcgSolver().options();
}

Plan FengLcgSolver::solve(const Graph& graph, const SolverOptions& options) const
{
    requireForwardGraph(graph, name());
    if (!graph.isChain())
        throw SolverError("feng-lcg needs a linear computation graph (a chain); \"" + graph.name() +
                          "\" has branches — use feng-acg");
    return solveBySweep(graph, *this, options);
}

}  // namespace ckpt
