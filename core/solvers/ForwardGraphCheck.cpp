#include "solvers/ForwardGraphCheck.h"

#include "solvers/Solver.h"

namespace ckpt {

void requireForwardGraph(const Graph& graph, const std::string& solver)
{
    int backward = 0;
    for (VertexIndex v = 0; v < graph.vertexCount(); ++v)
        backward += graph.vertex(v).backward ? 1 : 0;
    if (backward == 0)
        return;
    std::string hint = "open its forward graph";
    if (const auto at = graph.name().rfind("_train"); at != std::string::npos)
        hint += " (\"" + std::string(graph.name()).replace(at, 6, "_test") + "\", the *_test_nx.json file next to it)";
    throw SolverError(solver + " divides forward graphs; \"" + graph.name() + "\" is a training graph (" +
                      std::to_string(backward) + " of its " + std::to_string(graph.vertexCount()) +
                      " vertices are backward, which joins it into one segment): " + hint +
                      ", or use checkmate-milp, which schedules training graphs");
}

}  // namespace ckpt
