#include "graph/Graph.h"

#include <algorithm>
#include <charconv>

namespace ckpt {

std::span<const VertexIndex> Graph::successors(VertexIndex v) const
{
    return {m_succ.data() + m_succStart[v], m_succ.data() + m_succStart[v + 1]};
}

std::span<const VertexIndex> Graph::predecessors(VertexIndex v) const
{
    return {m_pred.data() + m_predStart[v], m_pred.data() + m_predStart[v + 1]};
}

std::span<const EdgeIndex> Graph::outEdges(VertexIndex v) const
{
    return {m_out.data() + m_outStart[v], m_out.data() + m_outStart[v + 1]};
}

std::span<const EdgeIndex> Graph::inEdges(VertexIndex v) const
{
    return {m_in.data() + m_inStart[v], m_in.data() + m_inStart[v + 1]};
}

std::optional<VertexIndex> Graph::find(const std::string& id) const
{
    auto it = m_index.find(id);
    if (it == m_index.end())
        return std::nullopt;
    return it->second;
}

bool Graph::isChain() const
{
    for (VertexIndex v = 0; v < vertexCount(); ++v)
        if (successors(v).size() > 1 || predecessors(v).size() > 1)
            return false;
    return true;
}

std::vector<bool> Graph::reachableFrom(VertexIndex from) const
{
    return flood(from, true);
}

std::vector<bool> Graph::reaching(VertexIndex to) const
{
    return flood(to, false);
}

std::vector<bool> Graph::flood(VertexIndex start, bool forward) const
{
    std::vector<bool> seen(vertexCount(), false);
    std::vector<VertexIndex> stack{start};
    seen[start] = true;
    while (!stack.empty()) {
        VertexIndex v = stack.back();
        stack.pop_back();
        for (VertexIndex w : forward ? successors(v) : predecessors(v))
            if (!seen[w]) {
                seen[w] = true;
                stack.push_back(w);
            }
    }
    return seen;
}

bool Graph::isJoinedSource(VertexIndex v) const
{
    const auto preds = predecessors(v);
    return preds.size() == 1 && preds.front() == m_source;
}

std::int64_t Graph::inputBytes() const
{
    if (!m_vertices[m_source].isVirtual)
        return bytes(m_source);
    std::int64_t total = 0;
    for (VertexIndex v : successors(m_source))
        total += bytes(v);
    return total;
}

std::int64_t Graph::metadataBytes(const std::string& key) const
{
    const auto it = m_metadata.find(key);
    if (it == m_metadata.end())
        return 0;
    const std::string& text = it->second;
    std::int64_t bytes = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), bytes);
    return error == std::errc() && end == text.data() + text.size() && bytes > 0 ? bytes : 0;
}

bool Graph::hasVirtualVertices() const
{
    return std::any_of(m_vertices.begin(), m_vertices.end(), [](const Vertex& v) { return v.isVirtual; });
}

}  // namespace ckpt
