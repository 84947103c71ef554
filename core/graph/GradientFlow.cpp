#include "graph/GradientFlow.h"

#include <algorithm>

namespace ckpt {

bool sendsGradient(const Graph& graph, VertexIndex reader, VertexIndex input)
{
    const auto& without = graph.vertex(reader).autograd->readsWithoutGradient;
    return std::find(without.begin(), without.end(), graph.vertex(input).id) == without.end();
}

}  // namespace ckpt
