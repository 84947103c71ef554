#include "graph/GradientFlow.h"

#include <algorithm>

namespace ckpt {

bool sendsGradient(const Graph& graph, VertexIndex reader, VertexIndex input)
{
    const auto& without = graph.vertex(reader).autograd->readsWithoutGradient;
    return std::find(without.begin(), without.end(), graph.vertex(input).id) == without.end();
}

bool handsOwnGradient(const Graph& graph, VertexIndex reader, VertexIndex input)
{
    const AutogradFacts& f = *graph.vertex(reader).autograd;
    const std::string& id = graph.vertex(input).id;
    return std::find(f.passesGradientTo.begin(), f.passesGradientTo.end(), id) != f.passesGradientTo.end() ||
           std::find(f.slicesGradientTo.begin(), f.slicesGradientTo.end(), id) != f.slicesGradientTo.end();
}

std::int64_t gradientBytes(const Vertex& vertex)
{
    if (vertex.autograd->gradientBytes)
        return *vertex.autograd->gradientBytes;
    if (!vertex.shape || !vertex.shape->empty())
        return vertex.bytes;
    const std::int64_t element = vertex.dtype == "float64" ? 8 : vertex.dtype == "float16" || vertex.dtype == "bfloat16" ? 2 : 4;
    return std::min(vertex.bytes, element);
}

}  // namespace ckpt
