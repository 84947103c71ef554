#pragma once
// A short fingerprint of a graph's content (vertex ids and bytes, edges), so a saved plan
// can refuse to load against a different graph.
#include "graph/Graph.h"

#include <string>

namespace ckpt {

// "fnv1a64:<16 hex digits>" over ids, bytes and edge endpoints in input order;
// names, ops, shapes and metadata do not enter (they do not change any plan).
std::string graphFingerprint(const Graph& graph);

}  // namespace ckpt
