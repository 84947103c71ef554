#pragma once
// Random single-source single-sink DAGs of the shapes the Feng–Huang theory cares about,
// for property tests. Deterministic for a given seed.
#include "graph/Graph.h"

#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace ckpt::test {

enum class RandomShape { Chain, ResidualChain, Inception, DenseBlock, Crossing, SeriesParallel, RandomDag };
std::string shapeName(RandomShape shape);
inline constexpr int kRandomShapeCount = 7;

struct RandomGraphSpec {
    std::vector<std::int64_t> bytes;
    std::vector<std::pair<int, int>> edges;
    std::string describe() const;  // bytes and edges, to paste into a test
};

// At most maxVertices vertices (>= 2); vertex 0 is the source and the last the sink.
// Bytes are small with zeros and ties (0..9) or, now and then, large and distinct.
RandomGraphSpec randomGraph(RandomShape shape, int maxVertices, std::mt19937_64& rng);

// Simple seeded graphs for the memory-model and baseline tests.
// Bytes in [0, maxBytes] (zeros included, they are the corner cases of the DPs).
std::vector<std::int64_t> randomBytes(std::mt19937_64& rng, int count, std::int64_t maxBytes);
Graph randomChain(std::mt19937_64& rng, int vertices, std::int64_t maxBytes = 20);
// Every vertex after the first takes 1-2 inputs among the `window` vertices before it; several
// outputs are joined by a virtual sink. Some vertices get a `compute` cost.
Graph randomDag(std::mt19937_64& rng, int vertices, int window = 4, std::int64_t maxBytes = 20);
// The graph with random values for the fields `ckptx-torch import` records: compute, parameter
// bytes, saved extras, savers (the vertex or its successors; unknown now and then) and workspace,
// and which executor runs its plans (metadata plan_executor: apply_plan's, ckptx-torch's or none),
// and, for a third of those an executor runs, a gradient-accumulation step with tied weights (P33);
// a quarter of apply_plan's graphs have their first half frozen (P36).
Graph withImporterFields(const Graph& graph, std::mt19937_64& rng);

}  // namespace ckpt::test
