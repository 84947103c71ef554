#pragma once
// A plan as JSON (vertex ids, not indices): solver, options, objective and its terms, checkpoints,
// segments, notes and the C sweep when there is one. Written by the GUI's export and the CLI.
#include "graph/Graph.h"
#include "solvers/Plan.h"

#include <nlohmann/json.hpp>

namespace ckpt {

nlohmann::json planToJson(const Graph& graph, const Plan& plan);

}  // namespace ckpt
