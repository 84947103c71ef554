#pragma once
// Whether a vertex's backward sends one of its inputs a gradient: not where it reads the input for
// its shape alone, or reads a boolean mask (Vertex::readsWithoutGradient, written by ckptx-torch's
// importer; rule P13). The memory model and the peak search's floors ask the same question.
#include "graph/Graph.h"

namespace ckpt {

bool sendsGradient(const Graph& graph, VertexIndex reader, VertexIndex input);

}  // namespace ckpt
