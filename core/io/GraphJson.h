#pragma once
// Reading and writing graphs as JSON: our schema (docs/FORMAT.md) and the networkx
// node-link JSON of the published Checkmate graphs. All errors are GraphError naming
// the file and, where there is one, the JSON pointer of the problem.
#include "graph/Graph.h"

#include <string>

namespace ckpt {

inline constexpr const char* kGraphSchema = "checkpoint-explorer/graph";
inline constexpr int kGraphSchemaVersion = 1;

enum class GraphFormat { Ours, NetworkxNodeLink };

// Parses text in either format (detected from its top-level keys). `file` names the
// source in error messages.
Graph parseGraphJson(const std::string& text, const std::string& file = "<input>");
// Reads a file in either format; a missing, empty, truncated or binary file is a GraphError.
Graph readGraphFile(const std::string& path);

// Our format; virtual vertices (and their edges) are left out so a round trip is exact.
std::string toGraphJson(const Graph& graph);
void writeGraphFile(const std::string& path, const Graph& graph);

}  // namespace ckpt
