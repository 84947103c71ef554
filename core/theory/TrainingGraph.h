#pragma once
// Training graphs (forward + backward nodes), as Checkmate's MILP consumes them (002 §4.1).
//
// Derivation rule for a forward-only graph, read off the published *_train_nx.json graphs
// (it reproduces every one of them edge for edge, see tst_traininggraph):
//  - one "Loss" node after the forward sink, depending on the sink;
//  - one backward node "<v>_backward" per forward node v, with v's bytes, depending on
//    v itself, on every forward consumer w of v (its output) and on w's backward node
//    (the incoming gradient); the sink's backward node depends on the sink and on Loss.
// Order: forward nodes in topological order, Loss, then backward nodes in reverse order.
// Costs: a backward node costs what its forward node costs (Vertex::compute, else 1);
// Loss holds one 4-byte scalar and costs nothing. Virtual vertices stay 0-byte, cost 0.
#include "graph/Graph.h"

#include <cstdint>

namespace ckpt {

bool isTrainingGraph(const Graph& graph);  // has backward vertices
Graph deriveTrainingGraph(const Graph& forward);
// The graph as a training graph: itself when it has backward nodes, else derived.
Graph asTrainingGraph(const Graph& graph);
// The forward vertices of a training graph as a graph of their own (same ids).
Graph forwardPart(const Graph& training);

// Checkmate's C_i: the vertex's profiled compute, 1 when unknown, 0 for virtual vertices.
double computeCost(const Graph& graph, VertexIndex v);
// 002 Eq. 2's constant overhead M_input + 2 M_param: parameters and their gradients, from the
// graph's "parameter_bytes" metadata (0 when absent); the input is the source vertex and is
// counted as a node of the schedule instead.
std::int64_t fixedOverheadBytes(const Graph& graph);

}  // namespace ckpt
