#include "graph/GradientFlow.h"

#include <algorithm>

namespace ckpt {

bool sendsGradient(const Graph& graph, VertexIndex reader, VertexIndex input)
{
    const auto& without = graph.vertex(reader).autograd->readsWithoutGradient;
    return std::find(without.begin(), without.end(), graph.vertex(input).id) == without.end();
}

namespace {

bool names(const std::vector<std::string>& ids, const Vertex& vertex)
{
    return std::find(ids.begin(), ids.end(), vertex.id) != ids.end();
}

}  // namespace

bool passesOwnGradient(const Graph& graph, VertexIndex reader, VertexIndex input)
{
    return names(graph.vertex(reader).autograd->passesGradientTo, graph.vertex(input));
}

bool slicesOwnGradient(const Graph& graph, VertexIndex reader, VertexIndex input)
{
    return names(graph.vertex(reader).autograd->slicesGradientTo, graph.vertex(input));
}

bool handsOwnGradient(const Graph& graph, VertexIndex reader, VertexIndex input)
{
    return passesOwnGradient(graph, reader, input) || slicesOwnGradient(graph, reader, input);
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
