#pragma once
// Articulation points (cut vertices) of the undirected form of a graph (Checkmate §5.1.1):
// removing one disconnects the forward graph, so everything after it in topological order
// depends on the graph before it only through that vertex.
#include "graph/Graph.h"

#include <vector>

namespace ckpt {

// The cut vertices, in topological order; O(V + E) (iterative Hopcroft–Tarjan DFS).
std::vector<VertexIndex> articulationPoints(const Graph& graph);

}  // namespace ckpt
