#pragma once
// Whether a vertex's backward sends one of its inputs a gradient: not where it reads the input for
// its shape alone, or reads a boolean mask (Vertex::readsWithoutGradient, written by ckptx-torch's
// importer; rule P13). And how large a gradient is (P42). The memory model and the peak search's
// floors ask the same questions.
#include "graph/Graph.h"

namespace ckpt {

bool sendsGradient(const Graph& graph, VertexIndex reader, VertexIndex input);
// Whether what it sends is its own gradient (P15: an add's summands), a slice of it (P27: a
// concatenation's inputs), or either, as the exporters measured; nothing is formed for the input then.
bool passesOwnGradient(const Graph& graph, VertexIndex reader, VertexIndex input);
bool slicesOwnGradient(const Graph& graph, VertexIndex reader, VertexIndex input);
bool handsOwnGradient(const Graph& graph, VertexIndex reader, VertexIndex input);

// P42: a tensor's gradient has the tensor's size; P50: that of its outputs autograd tracks, where a
// vertex has untracked ones too (max-pooling's indices). A 0-dim vertex's bytes may count a storage it views
// (P38: torch 1.13's losses return the reduced value as a view of their elementwise buffer); its
// gradient is one element.
std::int64_t gradientBytes(const Vertex& vertex);

}  // namespace ckpt
