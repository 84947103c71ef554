#include "RandomGraphs.h"

#include "graph/GraphBuilder.h"

#include <map>
#include <algorithm>
#include <set>

namespace ckpt::test {

std::string shapeName(RandomShape shape)
{
    switch (shape) {
    case RandomShape::Chain:
        return "chain";
    case RandomShape::ResidualChain:
        return "residual chain";
    case RandomShape::Inception:
        return "inception";
    case RandomShape::DenseBlock:
        return "dense block";
    case RandomShape::Crossing:
        return "crossing";
    case RandomShape::SeriesParallel:
        return "series-parallel";
    case RandomShape::RandomDag:
        break;
    }
    return "random DAG";
}

std::string RandomGraphSpec::describe() const
{
    std::string out = "bytes {";
    for (std::size_t i = 0; i < bytes.size(); ++i)
        out += (i ? ", " : "") + std::to_string(bytes[i]);
    out += "} edges {";
    for (std::size_t i = 0; i < edges.size(); ++i)
        out += (i ? ", " : "") + std::string("{") + std::to_string(edges[i].first) + ", " +
               std::to_string(edges[i].second) + "}";
    return out + "}";
}

namespace {

int uniform(std::mt19937_64& rng, int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }
bool chance(std::mt19937_64& rng, double p) { return std::bernoulli_distribution(p)(rng); }

// Builds graphs vertex by vertex; edges are deduplicated and always go forward.
struct Builder {
    int n = 0;
    std::set<std::pair<int, int>> edges;
    int add() { return n++; }
    void edge(int a, int b)
    {
        if (a != b)
            edges.insert({std::min(a, b), std::max(a, b)});
    }
    // A chain of `length` new vertices from `from`; returns the last (or `from`).
    int chain(int from, int length)
    {
        for (int k = 0; k < length; ++k) {
            const int v = add();
            edge(from, v);
            from = v;
        }
        return from;
    }
};

// A two-terminal series-parallel piece between existing `from` and a new end, using at
// most `budget` new vertices; returns the end.
int seriesParallel(Builder& b, int from, int budget, std::mt19937_64& rng)
{
    if (budget <= 1)
        return b.chain(from, 1);
    if (chance(rng, 0.5)) {  // series
        const int left = uniform(rng, 1, budget - 1);
        return seriesParallel(b, seriesParallel(b, from, left, rng), budget - left, rng);
    }
    // parallel: branches built separately, then joined at a new vertex
    const int branches = uniform(rng, 2, 3);
    std::vector<int> ends;
    int left = budget - 1;
    for (int k = 0; k < branches && left > 0; ++k) {
        const int size = k + 1 == branches ? left : uniform(rng, 0, left);
        left -= size;
        ends.push_back(size == 0 ? from : seriesParallel(b, from, size, rng));
    }
    const int join = b.add();
    for (int e : ends)
        b.edge(e, join);
    return join;
}

}  // namespace

RandomGraphSpec randomGraph(RandomShape shape, int maxVertices, std::mt19937_64& rng)
{
    Builder b;
    const int source = b.add();
    // Vertices after the source; half of the graphs are at least half the maximum size.
    const int top = std::max(1, maxVertices - 1);
    const int budget = chance(rng, 0.5) ? uniform(rng, 1, top) : uniform(rng, std::max(1, top / 2), top);
    switch (shape) {
    case RandomShape::Chain:
        b.chain(source, budget);
        break;
    case RandomShape::ResidualChain: {
        int at = source;
        while (b.n < budget + 1) {
            const int body = std::min(uniform(rng, 1, 3), budget + 1 - b.n);
            const int end = b.chain(at, body);
            if (body >= 2 || chance(rng, 0.3))
                b.edge(at, end);  // the skip connection
            at = end;
        }
        break;
    }
    case RandomShape::Inception: {
        // Modules of parallel branches joined by a concat; the last vertex ends the graph.
        int at = source;
        auto room = [&] { return budget - b.n; };  // vertices left before the last
        while (room() >= 2) {
            const int branches = uniform(rng, 2, 4);
            std::vector<int> ends;
            for (int k = 0; k < branches; ++k)
                ends.push_back(b.chain(at, std::min(uniform(rng, 0, 2), room() - 1)));
            const int concat = b.add();
            for (int e : ends)
                b.edge(e, concat);
            at = concat;
        }
        b.chain(at, budget + 1 - b.n);
        break;
    }
    case RandomShape::DenseBlock: {
        const int lead = uniform(rng, 0, std::min(2, budget - 1));
        const int start = b.chain(source, lead);
        const int layers = budget - lead;
        std::vector<int> block{start};
        for (int k = 0; k < layers; ++k) {
            const int v = b.add();
            for (int u : block)
                if (u == block.back() || chance(rng, 0.85))
                    b.edge(u, v);
            block.push_back(v);
        }
        break;
    }
    case RandomShape::Crossing: {
        // Series-parallel pieces plus edges that cross them (Complicate IS, Fig. 4 right).
        seriesParallel(b, source, budget, rng);
        const int extra = uniform(rng, 1, 3);
        for (int k = 0; k < extra; ++k) {
            const int x = uniform(rng, 0, b.n - 2), y = uniform(rng, x + 1, b.n - 1);
            b.edge(x, y);
        }
        break;
    }
    case RandomShape::SeriesParallel:
        seriesParallel(b, source, budget, rng);
        break;
    case RandomShape::RandomDag: {
        const int n = budget + 1;
        const double p = std::uniform_real_distribution<double>(0.1, 0.6)(rng);
        for (int v = 1; v < n; ++v) {
            b.add();
            b.edge(uniform(rng, 0, v - 1), v);
            for (int u = 0; u < v; ++u)
                if (chance(rng, p))
                    b.edge(u, v);
        }
        break;
    }
    }
    // Single sink: every vertex without a successor (other than the last) feeds the last.
    RandomGraphSpec spec;
    std::vector<char> hasSucc(b.n, 0);
    for (auto [u, v] : b.edges)
        hasSucc[u] = 1;
    for (int v = 0; v + 1 < b.n; ++v)
        if (!hasSucc[v])
            b.edge(v, b.n - 1);
    spec.edges.assign(b.edges.begin(), b.edges.end());
    const bool large = chance(rng, 0.2);
    for (int v = 0; v < b.n; ++v)
        spec.bytes.push_back(large ? uniform(rng, 0, 1000) : (chance(rng, 0.2) ? 0 : uniform(rng, 1, 9)));
    return spec;
}


std::vector<std::int64_t> randomBytes(std::mt19937_64& rng, int count, std::int64_t maxBytes)
{
    std::uniform_int_distribution<std::int64_t> dist(0, maxBytes);
    std::vector<std::int64_t> out(count);
    for (auto& b : out)
        b = dist(rng);
    return out;
}

namespace {

Vertex vertex(int i, std::int64_t bytes)
{
    Vertex v;
    v.id = "v" + std::to_string(i);
    v.bytes = bytes;
    return v;
}

}  // namespace

Graph randomChain(std::mt19937_64& rng, int vertices, std::int64_t maxBytes)
{
    GraphBuilder b;
    const auto bytes = randomBytes(rng, vertices, maxBytes);
    for (int i = 0; i < vertices; ++i) {
        b.addVertex(vertex(i, bytes[i]));
        if (i > 0)
            b.addEdge("v" + std::to_string(i - 1), "v" + std::to_string(i));
    }
    return b.build();
}

Graph randomDag(std::mt19937_64& rng, int vertices, int window, std::int64_t maxBytes)
{
    GraphBuilder b;
    const auto bytes = randomBytes(rng, vertices, maxBytes);
    for (int i = 0; i < vertices; ++i) {
        Vertex v = vertex(i, bytes[i]);
        if (rng() % 2)
            v.compute = static_cast<double>(rng() % 5 + 1);
        b.addVertex(v);
        if (i == 0)
            continue;
        std::set<int> inputs;
        const int count = 1 + static_cast<int>(rng() % 2);
        for (int k = 0; k < count; ++k)
            inputs.insert(std::max(0, i - 1 - static_cast<int>(rng() % window)));
        for (int from : inputs)
            b.addEdge("v" + std::to_string(from), v.id);
    }
    return b.build();
}

}  // namespace ckpt::test

namespace ckpt::test {

Graph withImporterFields(const Graph& graph, std::mt19937_64& rng)
{
    auto small = [&rng](int percent, std::int64_t most) {
        return static_cast<int>(rng() % 100) < percent ? static_cast<std::int64_t>(rng() % (most + 1)) : 0;
    };
    // A third run their plans as torch.utils.checkpoint functions (rules P9-P12), a third on
    // ckptx-torch's executor (P13), a third as Hong's Alg. 4 says (a published graph).
    std::map<std::string, std::string> metadata;
    if (const auto executor = rng() % 3; executor < 2)
        metadata["plan_executor"] = executor == 0 ? "\"torch.utils.checkpoint\"" : "\"ckptx-torch\"";
    const bool pythonExport = metadata.count("plan_executor") && metadata.at("plan_executor") == "\"torch.utils.checkpoint\"";
    const bool rootedExecutor = metadata.count("plan_executor") && !pythonExport;
    // Half the Python exports were made on the CPU: each checkpointed function's state counts (P22).
    if (pythonExport && rng() % 2)
        metadata["checkpoint_rng_state_bytes"] = std::to_string(1 + rng() % 6);
    // A quarter of the Python exports fine-tune: the first half of the network is frozen, autograd
    // tracks none of it (P36; chosen by size, drawing nothing, so the other fields stay as they were).
    const bool frozenFirstHalf = pythonExport && graph.vertexCount() % 4 == 0;
    Graph out = withMetadata(graph, metadata, [&](Vertex& vertex) {
        const VertexIndex v = *graph.find(vertex.id);
        vertex.compute = static_cast<double>(rng() % 9 + 1);
        // Now and then a tensor autograd does not track, in the Python exporter's graphs (P19).
        if (pythonExport && !graph.successors(v).empty() && rng() % 10 == 0)
            vertex.requiresGrad = false;
        if (frozenFirstHalf && !graph.isInput(v) && !graph.successors(v).empty() &&
            2 * graph.topologicalPosition(v) < graph.vertexCount())
            vertex.requiresGrad = false;
        vertex.autograd.write().parameterBytes = small(40, 12);
        // Now and then a gradient for what weights alone compute, held to the end of an earlier
        // vertex's backward, or of the whole backward (P20).
        if (pythonExport && rng() % 8 == 0) {
            vertex.autograd.write().staticGradientBytes = small(100, 9);
            if (rng() % 3 != 0)
                vertex.autograd.write().staticGradientUntil = graph.vertex(static_cast<VertexIndex>(rng() % (v + 1))).id;
        }
        // P44: where a static gradient is, its value too, read again by the two vertices after it in
        // topological order (no draw of its own, so the graphs are as before where nothing reads it).
        if (const int p = graph.topologicalPosition(v); vertex.autograd->staticGradientBytes > 0 &&
                                                         p + 2 < graph.vertexCount() && !graph.isInput(v)) {
            // Two values, each with readers of its own and statics that save a little (P47).
            for (int q = p + 1; q <= p + 2; ++q)
                vertex.autograd.write().staticValues.push_back({vertex.autograd->staticGradientBytes + 3 - q + p, 0,
                                                                q - p, {graph.vertex(graph.topologicalOrder()[q]).id}});
        }
        vertex.autograd.write().savedBytes = small(20, 6);
        // Of the first, what its saved extras hold too (no draw of its own either).
        if (!vertex.autograd->staticValues.empty())
            vertex.autograd.write().staticValues.front().savedBytes =
                std::min(vertex.autograd->savedBytes, vertex.autograd->staticValues.front().bytes) / 2;
        vertex.autograd.write().forwardWorkspaceBytes = small(30, 10);
        vertex.autograd.write().backwardWorkspaceBytes = small(30, 10);
        if (rng() % 2)
            vertex.autograd.write().backwardWorkspaceReleasedBytes = small(30, 10);
        // P81, no draw of its own: that measure's whole rise, v's and the weights' gradients in it,
        // now and then below them.
        if (const auto& released = vertex.autograd->backwardWorkspaceReleasedBytes; pythonExport && released && v % 2)
            vertex.autograd.write().backwardReleasedRiseBytes = vertex.autograd->parameterBytes + *released / 2;
        // P43: the released measure up to the first node holds the weight gradients' bytes more
        // (no draw of its own, so the graphs are as before where nothing reads it).
        if (const auto& released = vertex.autograd->backwardWorkspaceReleasedBytes; released && v % 2)
            vertex.autograd.write().firstBackwardNodeBytes = *released + vertex.autograd->parameterBytes;
        // P48: of two inputs or more, the first held and the rest freed, between the two (no draw).
        if (const auto& released = vertex.autograd->backwardWorkspaceReleasedBytes;
            pythonExport && released && graph.predecessors(v).size() >= 2) {
            vertex.autograd.write().backwardWorkspacePartlyReleasedBytes =
                (*released + vertex.autograd->backwardWorkspaceBytes) / 2;
            vertex.autograd.write().backwardWorkspaceHeldInputs = {graph.vertex(graph.predecessors(v).front()).id};
        }
        if (rng() % 2)
            vertex.autograd.write().checkpointedForwardWorkspaceBytes = small(40, 14);  // P17
        // P49: making a function's copy of an earlier vertex's statics first (no draw of its own).
        if (const auto& checkpointed = vertex.autograd->checkpointedForwardWorkspaceBytes; pythonExport && checkpointed)
            vertex.autograd.write().copiedStaticsForwardWorkspaceBytes = *checkpointed + 7;
        if (rootedExecutor && rng() % 2)
            vertex.autograd.write().leafInputsBackwardWorkspaceBytes = small(50, 12);  // P24
        // P82, no draw of its own: that run's rise, the weights' gradients in it, now and then below them.
        if (const auto& leaf = vertex.autograd->leafInputsBackwardWorkspaceBytes; leaf && v % 2)
            vertex.autograd.write().leafInputsBackwardRiseBytes = *leaf + vertex.autograd->parameterBytes / 2;
        if (rootedExecutor && rng() % 2)
            vertex.autograd.write().engineBackwardWorkspaceBytes = small(50, 12);  // P25
        // P73, no draw of its own: the rise of that run with the inputs released, v's gradient in it.
        if (const auto& engine = vertex.autograd->engineBackwardWorkspaceBytes; engine && *engine % 3 == 0)
            vertex.autograd.write().engineBackwardWorkspaceReleasedBytes = *engine / 3 + vertex.bytes;
        // P81, no draw of its own: that rise with the weights' gradients in it, now and then below
        // them and v's gradient (the weights' gradients formed after the backward's frees).
        if (const auto& released = vertex.autograd->engineBackwardWorkspaceReleasedBytes; released && v % 2)
            vertex.autograd.write().engineBackwardReleasedRiseBytes = vertex.autograd->parameterBytes + *released / 2;
        // P77, no draw of its own: that run up to its first node's end, v's gradient in it.
        if (const auto& engine = vertex.autograd->engineBackwardWorkspaceBytes; engine && *engine % 2 == 0)
            vertex.autograd.write().engineFirstNodeBytes = *engine / 2 + vertex.bytes;
        // Now and then an add, passing its gradient to some of its inputs (P15), or a concatenation,
        // slicing it for all of them (P27; no draw of its own, so the graphs before it are unchanged).
        const auto kind = rng() % 4;
        if (kind == 0)
            for (VertexIndex u : graph.predecessors(v))
                if (!graph.vertex(u).isVirtual && rng() % 2)
                    vertex.autograd.write().passesGradientTo.push_back(graph.vertex(u).id);
        // P79: in ckptx-torch's graphs, every other such add hands its first a view (no draw).
        if (const auto& passed = vertex.autograd->passesGradientTo; rootedExecutor && !passed.empty() && v % 2 == 0)
            vertex.autograd.write().passesGradientViewTo = {passed.front()};
        if (kind == 1)
            for (VertexIndex u : graph.predecessors(v))
                if (!graph.vertex(u).isVirtual)
                    vertex.autograd.write().slicesGradientTo.push_back(graph.vertex(u).id);
        // P53: or an add and a ReLU in one vertex, forming one gradient for all its inputs (no draw).
        if (kind == 2) {
            std::vector<std::string> group;
            for (VertexIndex u : graph.predecessors(v))
                if (!graph.vertex(u).isVirtual)
                    group.push_back(graph.vertex(u).id);
            if (group.size() >= 2)
                vertex.autograd.write().formsOneGradientFor = {group};
        }
        // Now and then inputs read for their shape alone, in ckptx-torch's graphs (P13).
        if (rootedExecutor && rng() % 5 == 0)
            for (VertexIndex u : graph.predecessors(v))
                if (!graph.vertex(u).isVirtual && rng() % 2)
                    vertex.autograd.write().readsWithoutGradient.push_back(graph.vertex(u).id);
        // P50: now and then a vertex with untracked outputs too (max-pooling's indices), and a reader of
        // those alone, in the Python exporter's graphs (no draw of its own).
        if (pythonExport && v % 3 == 1 && vertex.bytes >= 2)
            vertex.autograd.write().gradientBytes = vertex.bytes / 2;
        if (pythonExport && v % 5 == 2)
            for (VertexIndex u : graph.predecessors(v))
                if (!graph.vertex(u).isVirtual && !graph.isInput(u)) {
                    vertex.autograd.write().readsWithoutGradient.push_back(graph.vertex(u).id);
                    break;
                }
        // Savers: the vertex itself and its successors, each now and then; sometimes unknown.
        if (rng() % 4 == 0)
            return;
        std::vector<std::string> savers;
        if (rng() % 3 == 0)
            savers.push_back(vertex.id);
        for (VertexIndex w : graph.successors(v))
            if (!graph.vertex(w).isVirtual && rng() % 2)
                savers.push_back(graph.vertex(w).id);
        vertex.autograd.write().savedBy = savers;
        // P52: now and then, in the Python exporter's graphs, two tensors read apart: the first
        // successor reads (and may save) a third of the bytes, the others and the vertex's own backward
        // the rest (no draw of its own).
        const auto successors = graph.successors(v);
        if (pythonExport && v % 4 == 3 && successors.size() >= 2 && v != graph.sink() &&
            std::none_of(successors.begin(), successors.end(), [&graph](VertexIndex w) { return graph.vertex(w).isVirtual; })) {
            OutputTensor first{vertex.bytes / 3, {graph.vertex(successors.front()).id}, {}};
            OutputTensor rest{vertex.bytes - first.bytes, {}, {}};
            for (std::size_t i = 1; i < successors.size(); ++i)
                rest.readBy.push_back(graph.vertex(successors[i]).id);
            for (const std::string& id : savers)
                (id == first.readBy.front() ? first : rest).savedBy.push_back(id);
            vertex.autograd.write().tensors = {first, rest};
        }
    });
    // P59: in a third of the Python exports, every third vertex reads the weights of the first later
    // vertex with weights that does not depend on it, which a plan may run first, adding its gradient
    // into theirs (no draw of its own, so the graphs' other fields are as before).
    if (pythonExport && graph.vertexCount() % 3 == 1) {
        const Graph before = out;
        out = withMetadata(before, {}, [&before](Vertex& vertex) {
            const VertexIndex r = *before.find(vertex.id);
            const int position = before.topologicalPosition(r);
            if (before.isInput(r) || position % 3 != 0)
                return;
            std::vector<bool> below(before.vertexCount(), false);
            for (int p = position; p < before.vertexCount(); ++p) {
                const VertexIndex w = before.topologicalOrder()[p];
                below[w] = w == r || std::any_of(before.predecessors(w).begin(), before.predecessors(w).end(),
                                                 [&below](VertexIndex u) { return below[u]; });
            }
            int p = position + 1;
            while (p < before.vertexCount() &&
                   (below[before.topologicalOrder()[p]] || before.vertex(before.topologicalOrder()[p]).autograd->parameterBytes <= 0))
                ++p;
            if (p == before.vertexCount())
                return;
            const Vertex& owner = before.vertex(before.topologicalOrder()[p]);
            if (owner.isVirtual || before.isInput(before.topologicalOrder()[p]))
                return;
            vertex.autograd.write().addsWeightGradientTo = owner.id;
            vertex.autograd.write().sharedWeightGradientBytes = owner.autograd->parameterBytes;
            vertex.autograd.write().sharedWeightSumBytes = owner.autograd->parameterBytes / 2;
        });
    }
    // A third of the Python exports and of ckptx-torch's graphs predict a gradient-accumulation step
    // (P33), where now and then part of a vertex's weights is tied to an earlier vertex's. Drawn last, so
    // the graphs' other fields are as before.
    if (!metadata.count("plan_executor") || rng() % 3 != 0)
        return out;
    return withMetadata(out, {{"accumulate_gradients", "true"}}, [&](Vertex& vertex) {
        const int position = out.topologicalPosition(*out.find(vertex.id));
        const std::int64_t bytes = vertex.autograd->parameterBytes;
        if (bytes <= 0 || position <= 1 || rng() % 3 != 0)
            return;
        const VertexIndex first = out.topologicalOrder()[1 + rng() % (position - 1)];
        if (!out.isInput(first)) {
            vertex.autograd.write().tiedParameterBytes = 1 + static_cast<std::int64_t>(rng() % bytes);
            vertex.autograd.write().tiedParameterUntil = out.vertex(first).id;
        }
    });
}

}  // namespace ckpt::test
