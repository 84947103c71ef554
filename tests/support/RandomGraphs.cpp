#include "RandomGraphs.h"

#include "graph/GraphBuilder.h"

#include <algorithm>
#include <set>

namespace ckpt::test {

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
