#pragma once
// Feng & Huang divide the forward computation graph (Def. 1-2: independent segments between
// articulation points). In a training graph every forward vertex also feeds its backward vertex,
// and the backward chain joins them all to the loss, so the whole graph is one segment and any
// division-based solver would silently return checkpoint-all. Those solvers ask this first.
#include "graph/Graph.h"

#include <string>

namespace ckpt {

// Throws SolverError when `graph` is a training graph (has backward vertices), saying which
// forward graph to open instead: for Checkmate's published `<model>_train` graphs, `<model>_test`.
void requireForwardGraph(const Graph& graph, const std::string& solver);

}  // namespace ckpt
