#include "solvers/SolverRegistry.h"

#include "solvers/CheckmateMilpSolver.h"
#include "solvers/CheckpointAllSolver.h"
#include "solvers/OptimalSolver.h"

#include <chrono>
#include <memory>

namespace ckpt {

const std::vector<const Solver*>& allSolvers()
{
    // One line per solver; the order is the order users see them in.
    static const CheckpointAllSolver checkpointAll;
    static const OptimalSolver optimal;
    static const CheckmateMilpSolver checkmateMilp;
    static const std::vector<const Solver*> solvers{
        &checkpointAll,
        &optimal,
        &checkmateMilp,
    };
    return solvers;
}

const Solver* findSolver(const std::string& name)
{
    for (const Solver* s : allSolvers())
        if (s->name() == name)
            return s;
    return nullptr;
}

Plan runSolver(const std::string& name, const Graph& graph, const SolverOptions& options)
{
    const Solver* solver = findSolver(name);
    if (!solver) {
        std::string known;
        for (const Solver* s : allSolvers())
            known += (known.empty() ? "" : ", ") + s->name();
        throw SolverError("unknown solver \"" + name + "\" (known: " + known + ")");
    }
    const auto start = std::chrono::steady_clock::now();
    Plan plan = solver->solve(graph, options);
    plan.wallTimeMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return plan;
}

}  // namespace ckpt
