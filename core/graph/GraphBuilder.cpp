#include "graph/GraphBuilder.h"

#include "graph/GraphError.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <queue>

namespace ckpt {

namespace {

std::string vertexPointer(int i) { return "/vertices/" + std::to_string(i); }
std::string edgePointer(int i) { return "/edges/" + std::to_string(i); }

// Compressed adjacency: start[v]..start[v+1] indexes into items.
template <typename Item>
void buildCsr(int n, const std::vector<std::pair<int, Item>>& pairs, std::vector<int>& start, std::vector<Item>& items)
{
    start.assign(n + 1, 0);
    for (const auto& [key, _] : pairs)
        ++start[key + 1];
    for (int v = 0; v < n; ++v)
        start[v + 1] += start[v];
    items.resize(pairs.size());
    std::vector<int> fill(start.begin(), start.end() - 1);
    for (const auto& [key, item] : pairs)
        items[fill[key]++] = item;
}

// Each key's distinct items: buildCsr, then each key's few items sorted and made unique in place
// (one global sort of millions of pairs cost more than the rest of the build).
void buildDistinctCsr(int n, const std::vector<std::pair<int, VertexIndex>>& pairs, std::vector<int>& start,
                      std::vector<VertexIndex>& items)
{
    buildCsr(n, pairs, start, items);
    int kept = 0;
    for (int v = 0; v < n; ++v) {
        const auto first = items.begin() + start[v], last = items.begin() + start[v + 1];
        std::sort(first, last);
        start[v] = kept;
        kept = static_cast<int>(std::unique_copy(first, last, items.begin() + kept) - items.begin());
    }
    start[n] = kept;
    items.resize(kept);
}

// Names one cycle among the vertices Kahn's algorithm could not order.
std::string describeCycle(const Graph& g, const std::vector<int>& indegreeLeft)
{
    VertexIndex start = -1;
    for (VertexIndex v = 0; v < g.vertexCount(); ++v)
        if (indegreeLeft[v] > 0) { start = v; break; }
    // Walk predecessors that are themselves unsorted until a vertex repeats.
    std::vector<int> seenAt(g.vertexCount(), -1);
    std::vector<VertexIndex> walk;
    VertexIndex v = start;
    while (seenAt[v] < 0) {
        seenAt[v] = static_cast<int>(walk.size());
        walk.push_back(v);
        for (VertexIndex p : g.predecessors(v))
            if (indegreeLeft[p] > 0) { v = p; break; }
    }
    std::vector<VertexIndex> cycle(walk.begin() + seenAt[v], walk.end());
    std::reverse(cycle.begin(), cycle.end());
    std::rotate(cycle.begin(), std::min_element(cycle.begin(), cycle.end()), cycle.end());
    std::string text;
    for (VertexIndex c : cycle)
        text += g.vertex(c).id + " -> ";
    return text + g.vertex(cycle.front()).id;
}

}  // namespace

void GraphBuilder::setMetadata(std::string key, std::string jsonValue)
{
    m_metadata[std::move(key)] = std::move(jsonValue);
}

int GraphBuilder::intern(std::string_view text)
{
    if (const auto it = m_textIndex.find(text); it != m_textIndex.end())
        return it->second;
    const int index = static_cast<int>(m_texts.size());
    m_texts.emplace_back(text);
    m_textIndex.emplace(m_texts.back(), index);
    return index;
}

void GraphBuilder::addEdge(std::string_view from, std::string_view to, std::string_view op)
{
    const int f = intern(from);
    const int t = intern(to);
    m_edges.push_back({f, t, intern(op)});
}

Graph GraphBuilder::build() const&
{
    return buildWith(m_vertices);
}

Graph GraphBuilder::build() &&
{
    return buildWith(std::move(m_vertices));
}

Graph GraphBuilder::buildWith(std::vector<Vertex> vertices) const
{
    Graph g;
    g.m_name = m_name;
    g.m_metadata = m_metadata;
    g.m_vertices = std::move(vertices);
    if (g.m_vertices.empty())
        throw GraphError("the graph has no vertices", "/vertices");

    std::int64_t total = 0;
    std::int64_t allBytes = 0;  // every byte field of every vertex
    auto countBytes = [&](const std::string& key, std::int64_t bytes, const std::string& at) {
        if (bytes < 0)
            throw GraphError(key + " must be >= 0, got " + std::to_string(bytes), at);
        if (bytes > kMaxGraphBytes - allBytes)
            throw GraphError("the graph's byte counts add up to more than 2^53 bytes (8 PiB)", at);
        allBytes += bytes;
    };
    for (int i = 0; i < static_cast<int>(g.m_vertices.size()); ++i) {
        const Vertex& v = g.m_vertices[i];
        if (v.id.empty())
            throw GraphError("vertex id is empty", vertexPointer(i) + "/id");
        if (!g.m_index.emplace(v.id, i).second)
            throw GraphError("duplicate vertex id \"" + v.id + "\"", vertexPointer(i) + "/id");
        const AutogradFacts& f = *v.autograd;
        for (auto [key, bytes] : {std::pair{"bytes", v.bytes}, std::pair{"gradient_bytes", f.gradientBytes.value_or(0)},
                                  std::pair{"parameter_bytes", f.parameterBytes},
                                  std::pair{"static_gradient_bytes", f.staticGradientBytes},
                                  std::pair{"saved_bytes", f.savedBytes},
                                  std::pair{"forward_workspace_bytes", f.forwardWorkspaceBytes},
                                  std::pair{"backward_workspace_bytes", f.backwardWorkspaceBytes},
                                  std::pair{"checkpointed_forward_workspace_bytes",
                                            f.checkpointedForwardWorkspaceBytes.value_or(0)},
                                  std::pair{"copied_statics_forward_workspace_bytes",
                                            f.copiedStaticsForwardWorkspaceBytes.value_or(0)},
                                  std::pair{"backward_workspace_released_bytes", f.backwardWorkspaceReleasedBytes.value_or(0)},
                                  std::pair{"backward_released_rise_bytes", f.backwardReleasedRiseBytes.value_or(0)},
                                  std::pair{"first_backward_node_bytes", f.firstBackwardNodeBytes.value_or(0)},
                                  std::pair{"backward_workspace_partly_released_bytes",
                                            f.backwardWorkspacePartlyReleasedBytes.value_or(0)},
                                  std::pair{"leaf_inputs_backward_workspace_bytes",
                                            f.leafInputsBackwardWorkspaceBytes.value_or(0)},
                                  std::pair{"leaf_inputs_backward_rise_bytes",
                                            f.leafInputsBackwardRiseBytes.value_or(0)},
                                  std::pair{"engine_backward_workspace_bytes", f.engineBackwardWorkspaceBytes.value_or(0)},
                                  std::pair{"engine_backward_workspace_released_bytes",
                                            f.engineBackwardWorkspaceReleasedBytes.value_or(0)},
                                  std::pair{"engine_backward_released_rise_bytes",
                                            f.engineBackwardReleasedRiseBytes.value_or(0)},
                                  std::pair{"engine_first_node_bytes", f.engineFirstNodeBytes.value_or(0)}})
            countBytes(key, bytes, vertexPointer(i) + "/" + key);
        // None tracked is requires_grad false; 0 would read as a gradient shared with another (P15).
        if (f.gradientBytes && (*f.gradientBytes > v.bytes || (*f.gradientBytes == 0 && v.bytes > 0)))
            throw GraphError("gradient_bytes must be between 1 and bytes (" + std::to_string(v.bytes) + "), got " +
                                 std::to_string(*f.gradientBytes),
                             vertexPointer(i) + "/gradient_bytes");
        if (!f.tensors.empty()) {
            std::int64_t sum = 0;
            for (std::size_t k = 0; k < f.tensors.size(); ++k) {
                const std::string at = vertexPointer(i) + "/tensors/" + std::to_string(k) + "/bytes";
                countBytes("bytes", f.tensors[k].bytes, at);
                sum += f.tensors[k].bytes;
            }
            if (sum != v.bytes)
                throw GraphError("the tensors' bytes add up to " + std::to_string(sum) + ", not the vertex's bytes (" +
                                     std::to_string(v.bytes) + ")",
                                 vertexPointer(i) + "/tensors");
        }
        for (std::size_t k = 0; k < f.staticValues.size(); ++k) {
            const StaticValue& value = f.staticValues[k];
            const std::string at = vertexPointer(i) + "/static_values/" + std::to_string(k);
            countBytes("bytes", value.bytes, at + "/bytes");
            countBytes("remade_saved_bytes", value.remadeSavedBytes, at + "/remade_saved_bytes");
            if (value.savedBytes < 0 || value.savedBytes > value.bytes)
                throw GraphError("saved_bytes must be between 0 and bytes (" + std::to_string(value.bytes) + "), got " +
                                     std::to_string(value.savedBytes),
                                 at + "/saved_bytes");
        }
        total += v.bytes;
    }
    g.m_totalBytes = total;

    std::vector<VertexIndex> vertexOf(m_texts.size(), -1);
    for (std::size_t t = 0; t < m_texts.size(); ++t)
        if (auto it = g.m_index.find(m_texts[t]); it != g.m_index.end())
            vertexOf[t] = it->second;
    g.m_edges.reserve(m_edges.size());
    for (int i = 0; i < static_cast<int>(m_edges.size()); ++i) {
        const PendingEdge& pe = m_edges[i];
        const VertexIndex from = vertexOf[pe.from], to = vertexOf[pe.to];
        if (from < 0)
            throw GraphError("edge from unknown vertex \"" + m_texts[pe.from] + "\"", edgePointer(i) + "/from");
        if (to < 0)
            throw GraphError("edge to unknown vertex \"" + m_texts[pe.to] + "\"", edgePointer(i) + "/to");
        if (from == to)
            throw GraphError("self-loop on vertex \"" + m_texts[pe.from] + "\"", edgePointer(i));
        g.m_edges.push_back({from, to, m_texts[pe.op]});
    }

    // Weak connectivity first: a disconnected graph is refused rather than silently joined.
    const int n = g.vertexCount();
    {
        std::vector<int> parent(n);
        for (int v = 0; v < n; ++v)
            parent[v] = v;
        auto root = [&parent](int v) {
            while (parent[v] != v)
                v = parent[v] = parent[parent[v]];
            return v;
        };
        for (const Edge& e : g.m_edges)
            parent[root(e.from)] = root(e.to);
        for (int v = 1; v < n; ++v)
            if (root(v) != root(0))
                throw GraphError("the graph is disconnected: vertex \"" + g.m_vertices[v].id +
                                     "\" is not connected to vertex \"" + g.m_vertices[0].id + "\"",
                                 vertexPointer(v));
    }

    auto buildAdjacency = [&g]() {
        const int count = g.vertexCount();
        std::vector<std::pair<int, EdgeIndex>> outPairs, inPairs;
        outPairs.reserve(g.m_edges.size());
        inPairs.reserve(g.m_edges.size());
        for (EdgeIndex e = 0; e < g.edgeCount(); ++e) {
            outPairs.emplace_back(g.m_edges[e].from, e);
            inPairs.emplace_back(g.m_edges[e].to, e);
        }
        buildCsr(count, outPairs, g.m_outStart, g.m_out);
        buildCsr(count, inPairs, g.m_inStart, g.m_in);
        std::vector<std::pair<int, VertexIndex>> succPairs, predPairs;
        succPairs.reserve(g.m_edges.size());
        predPairs.reserve(g.m_edges.size());
        for (const Edge& e : g.m_edges) {
            succPairs.emplace_back(e.from, e.to);
            predPairs.emplace_back(e.to, e.from);
        }
        buildDistinctCsr(count, succPairs, g.m_succStart, g.m_succ);
        buildDistinctCsr(count, predPairs, g.m_predStart, g.m_pred);
    };
    buildAdjacency();

    // Stable Kahn: among ready vertices, the one given first goes first.
    std::vector<int> indegree(n);
    for (int v = 0; v < n; ++v)
        indegree[v] = static_cast<int>(g.predecessors(v).size());
    std::priority_queue<int, std::vector<int>, std::greater<>> ready;
    for (int v = 0; v < n; ++v)
        if (indegree[v] == 0)
            ready.push(v);
    while (!ready.empty()) {
        int v = ready.top();
        ready.pop();
        g.m_topo.push_back(v);
        for (VertexIndex s : g.successors(v))
            if (--indegree[s] == 0)
                ready.push(s);
    }
    if (static_cast<int>(g.m_topo.size()) != n)
        throw GraphError("the graph has a cycle: " + describeCycle(g, indegree));

    std::vector<VertexIndex> sources, sinks;
    for (VertexIndex v : g.m_topo) {
        if (g.predecessors(v).empty())
            sources.push_back(v);
        if (g.successors(v).empty())
            sinks.push_back(v);
    }
    auto addVirtual = [&g](const std::string& id) {
        std::string unique = id;
        while (g.m_index.count(unique))
            unique += "_";
        Vertex v;
        v.id = unique;
        v.name = unique;
        v.op = "virtual";
        v.isVirtual = true;
        g.m_index.emplace(unique, g.vertexCount());
        g.m_vertices.push_back(v);
        return static_cast<VertexIndex>(g.vertexCount() - 1);
    };
    bool joined = false;
    if (sources.size() > 1) {
        VertexIndex s = addVirtual("__virtual_source__");
        for (VertexIndex v : sources)
            g.m_edges.push_back({s, v, "virtual"});
        g.m_topo.insert(g.m_topo.begin(), s);
        sources = {s};
        joined = true;
    }
    if (sinks.size() > 1) {
        VertexIndex t = addVirtual("__virtual_sink__");
        for (VertexIndex v : sinks)
            g.m_edges.push_back({v, t, "virtual"});
        g.m_topo.push_back(t);
        sinks = {t};
        joined = true;
    }
    if (joined)
        buildAdjacency();
    g.m_source = sources.front();
    g.m_sink = sinks.front();
    g.m_topoPos.assign(g.vertexCount(), 0);
    for (int i = 0; i < g.vertexCount(); ++i)
        g.m_topoPos[g.m_topo[i]] = i;
    // Neighbour lists in topological order make every traversal deterministic.
    auto byTopo = [&g](VertexIndex a, VertexIndex b) { return g.m_topoPos[a] < g.m_topoPos[b]; };
    for (int v = 0; v < g.vertexCount(); ++v) {
        std::sort(g.m_succ.begin() + g.m_succStart[v], g.m_succ.begin() + g.m_succStart[v + 1], byTopo);
        std::sort(g.m_pred.begin() + g.m_predStart[v], g.m_pred.begin() + g.m_predStart[v + 1], byTopo);
    }
    return g;
}

Graph withChangedVertices(const Graph& graph, const std::function<void(Vertex&)>& change)
{
    return withMetadata(graph, {}, change);
}

Graph withMetadata(const Graph& graph, const std::map<std::string, std::string>& metadata,
                   const std::function<void(Vertex&)>& change)
{
    GraphBuilder b;
    b.setName(graph.name());
    for (const auto& [key, value] : graph.metadata())
        b.setMetadata(key, value);
    for (const auto& [key, value] : metadata)
        b.setMetadata(key, value);
    for (Vertex v : graph.vertices()) {
        if (v.isVirtual)
            continue;
        if (change)
            change(v);
        b.addVertex(std::move(v));
    }
    for (const Edge& e : graph.edges())
        if (!graph.vertex(e.from).isVirtual && !graph.vertex(e.to).isVirtual)
            b.addEdge(graph.vertex(e.from).id, graph.vertex(e.to).id, e.op);
    return std::move(b).build();
}

}  // namespace ckpt
