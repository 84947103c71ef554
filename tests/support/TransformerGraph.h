#pragma once
// A GPT-2-like training forward graph at operator granularity (what `ckptx-torch import
// --granularity op` gives for a transformer): every layer norm, matmul, softmax and GELU step is a
// vertex with its module path (transformer.h.3.attn.c_attn, ...). 55 vertices per layer;
// 182 layers make a 10,026-vertex graph for the DAG view's scale tests and benchmark.
#include "graph/Graph.h"

namespace ckpt::test {

Graph makeTransformerOpGraph(int layers);

}  // namespace ckpt::test
