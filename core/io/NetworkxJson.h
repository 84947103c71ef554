#pragma once
// networkx node-link JSON as published with the Checkmate graphs (../shared/data/checkmate-graphs):
// bytes = cost_ram (random layered graphs: out_cost), compute = cost_cpu (duration),
// gradient nodes of *_train_nx.json keep `backward`.
#include "graph/Graph.h"

#include <nlohmann/json.hpp>

namespace ckpt {

bool looksLikeNetworkx(const nlohmann::json& root);
Graph graphFromNetworkx(const nlohmann::json& root);

}  // namespace ckpt
