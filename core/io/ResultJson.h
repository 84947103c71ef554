#pragma once
// JSON views of plans, sweeps and division trees: what `ckptx solve/sweep/tree --json`
// print and what the GUI shows. Vertices are named by their ids.
#include "graph/Graph.h"
#include "solvers/Plan.h"
#include "theory/DivisionTree.h"

#include <nlohmann/json.hpp>

namespace ckpt {

// {"solver", "options", "checkpoints", "segments": [{"vertices", "entries", "exits", "cost",
//  "independent"}], "checkpoint_bytes", "max_segment_cost", "objective", "is_plan",
//  ["why_not_is"], "time_ms", "notes", ["sweep"]}
nlohmann::json planToJson(const Graph& graph, const Plan& plan, bool withSweep = true);
// {"entries": [{"c", "objective", "checkpoints"}], "winner", "winner_c", "winner_objective"}
nlohmann::json sweepToJson(const Graph& graph, const Sweep& sweep);
// {"root": index, "nodes": [node...]}, node = {"type", "source", "target", "cost", "segment_cost",
//  "vertex_count", "parent", "children": [index...]}
nlohmann::json divisionTreeToJson(const Graph& graph, const DivisionTree& tree);

}  // namespace ckpt
