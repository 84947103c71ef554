#pragma once
// Seeded random graphs for property tests.
#include "graph/Graph.h"

#include <cstdint>
#include <random>
#include <vector>

namespace ckpt::test {

// Bytes in [0, maxBytes] (zeros included, they are the corner cases of the DPs).
std::vector<std::int64_t> randomBytes(std::mt19937_64& rng, int count, std::int64_t maxBytes);
Graph randomChain(std::mt19937_64& rng, int vertices, std::int64_t maxBytes = 20);
// Every vertex after the first takes 1-2 inputs among the `window` vertices before it; several
// outputs are joined by a virtual sink. Some vertices get a `compute` cost.
Graph randomDag(std::mt19937_64& rng, int vertices, int window = 4, std::int64_t maxBytes = 20);

}  // namespace ckpt::test
