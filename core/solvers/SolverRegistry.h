#pragma once
// Every solver the core offers, by name. The list lives in SolverRegistry.cpp.
#include "solvers/Solver.h"

#include <string>
#include <vector>

namespace ckpt {

const std::vector<const Solver*>& allSolvers();
// nullptr when there is no such solver.
const Solver* findSolver(const std::string& name);
// Runs a solver and times it; throws SolverError for an unknown name.
Plan runSolver(const std::string& name, const Graph& graph, const SolverOptions& options = {});

}  // namespace ckpt
