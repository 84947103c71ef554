#pragma once
// Plan files (docs/FORMAT.md, "Plan files"): the graph's fingerprint, the solver and its
// options, the checkpoint ids, the segments, the predicted peaks and any schedule. A plan is
// only ever read against a graph, and refused (GraphError) when the fingerprints differ.
#include "graph/Graph.h"
#include "solvers/Plan.h"

#include <string>

namespace ckpt {

inline constexpr const char* kPlanSchema = "checkpoint-explorer/plan";
inline constexpr int kPlanSchemaVersion = 1;

std::string toPlanJson(const Graph& graph, const Plan& plan);
void writePlanFile(const std::string& path, const Graph& graph, const Plan& plan);

// The checkpoints are re-evaluated against `graph`; segments and peaks in the file are
// informative only. `file` names the source in error messages.
Plan parsePlanJson(const Graph& graph, const std::string& text, const std::string& file = "<input>");
Plan readPlanFile(const std::string& path, const Graph& graph);

}  // namespace ckpt
