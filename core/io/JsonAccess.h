#pragma once
// Typed access to parsed JSON that fails with a GraphError naming the JSON pointer,
// shared by every reader in core/io.
#include "graph/GraphError.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ckpt::json_access {

using nlohmann::json;

std::string typeName(const json& j);
std::string pointerOf(const std::string& parent, const std::string& key);
// Parses text; an empty, truncated or non-JSON input is a GraphError.
json parse(const std::string& text);

const json& requireObject(const json& j, const std::string& where);
const json& requireArray(const json& parent, const std::string& key, const std::string& where);
const json* optionalMember(const json& obj, const std::string& key);

std::string requireString(const json& obj, const std::string& key, const std::string& where);
std::optional<std::string> optionalString(const json& obj, const std::string& key, const std::string& where);
// Integers only: fractional, non-numeric and out-of-range values are refused.
std::int64_t toInt64(const json& value, const std::string& where);
std::int64_t requireInt64(const json& obj, const std::string& key, const std::string& where);
std::optional<std::int64_t> optionalInt64(const json& obj, const std::string& key, const std::string& where);
std::optional<double> optionalNumber(const json& obj, const std::string& key, const std::string& where);
std::optional<bool> optionalBool(const json& obj, const std::string& key, const std::string& where);
std::optional<std::vector<std::int64_t>> optionalIntArray(const json& obj, const std::string& key,
                                                          const std::string& where);
std::optional<std::vector<std::string>> optionalStringArray(const json& obj, const std::string& key,
                                                            const std::string& where);

}  // namespace ckpt::json_access
