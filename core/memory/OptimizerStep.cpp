#include "memory/OptimizerStep.h"

#include "graph/GraphBuilder.h"
#include "graph/GraphError.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <iterator>

namespace ckpt {

std::optional<int> optimizerStateCopies(const std::string& optimizer)
{
    if (optimizer == "sgd")
        return 0;
    if (optimizer == "momentum")
        return 1;
    if (optimizer == "adam" || optimizer == "adamw")
        return 2;
    return std::nullopt;
}

std::optional<OptimizerMemory> measuredOptimizer(const Graph& graph)
{
    const auto& metadata = graph.metadata();
    const char* fields[] = {"optimizer", "optimizer_state_bytes", "optimizer_step_workspace_bytes"};
    if (std::none_of(std::begin(fields), std::end(fields), [&](const char* f) { return metadata.count(f); }))
        return std::nullopt;
    auto field = [&](const char* name) {
        const auto it = metadata.find(name);
        if (it == metadata.end())
            throw GraphError("missing (an export with --optimizer writes optimizer, optimizer_state_bytes and "
                             "optimizer_step_workspace_bytes)",
                             std::string("/metadata/") + name);
        return nlohmann::json::parse(it->second, nullptr, false);
    };
    auto bytes = [&](const char* name) {
        const nlohmann::json value = field(name);
        // At most a graph's byte count, so that the sums beside the weights cannot overflow.
        const bool byteCount = value.is_number_unsigned()
                                   ? value.get<std::uint64_t>() <= std::uint64_t(kMaxGraphBytes)
                                   : value.is_number_integer() && value.get<std::int64_t>() >= 0 &&
                                         value.get<std::int64_t>() <= kMaxGraphBytes;
        if (!byteCount)
            throw GraphError("must be a non-negative integer of at most 2^53, got " + metadata.at(name),
                             std::string("/metadata/") + name);
        return value.get<std::int64_t>();
    };
    const nlohmann::json name = field("optimizer");
    if (!name.is_string())
        throw GraphError("must be a string, got " + metadata.at("optimizer"), "/metadata/optimizer");
    return OptimizerMemory{name.get<std::string>(), bytes("optimizer_state_bytes"),
                           bytes("optimizer_step_workspace_bytes"), true};
}

std::int64_t optimizerStepBytes(const MemoryProfile& step, const OptimizerMemory& optimizer)
{
    return (step.phases.empty() ? 0 : step.phases.back().endBytes) + optimizer.stepWorkspaceBytes;
}

}  // namespace ckpt
