#include "io/JsonAccess.h"

#include <cmath>
#include <limits>

namespace ckpt::json_access {

std::string typeName(const json& j)
{
    if (j.is_number_integer() || j.is_number_unsigned())
        return "an integer";
    if (j.is_number_float())
        return "a number";
    if (j.is_string())
        return "a string";
    if (j.is_boolean())
        return "a boolean";
    if (j.is_null())
        return "null";
    if (j.is_array())
        return "an array";
    return "an object";
}

std::string pointerOf(const std::string& parent, const std::string& key)
{
    std::string escaped;
    for (char c : key) {
        if (c == '~')
            escaped += "~0";
        else if (c == '/')
            escaped += "~1";
        else
            escaped += c;
    }
    return parent + "/" + escaped;
}

json parse(const std::string& text)
{
    if (text.find_first_not_of(" \t\r\n") == std::string::npos)
        throw GraphError("the file is empty");
    try {
        return json::parse(text);
    } catch (const json::parse_error& e) {
        std::string what = e.what();
        // nlohmann prefixes "[json.exception.parse_error.101] "; keep the readable part.
        auto pos = what.find("] ");
        throw GraphError("not valid JSON (" + (pos == std::string::npos ? what : what.substr(pos + 2)) + ")");
    }
}

const json& requireObject(const json& j, const std::string& where)
{
    if (!j.is_object())
        throw GraphError("expected an object, got " + typeName(j), where);
    return j;
}

const json* optionalMember(const json& obj, const std::string& key)
{
    auto it = obj.find(key);
    if (it == obj.end() || it->is_null())
        return nullptr;
    return &*it;
}

const json& requireArray(const json& parent, const std::string& key, const std::string& where)
{
    const json* member = optionalMember(parent, key);
    const std::string at = pointerOf(where, key);
    if (!member)
        throw GraphError("missing required field \"" + key + "\"", at);
    if (!member->is_array())
        throw GraphError("expected an array, got " + typeName(*member), at);
    return *member;
}

std::string requireString(const json& obj, const std::string& key, const std::string& where)
{
    auto value = optionalString(obj, key, where);
    if (!value)
        throw GraphError("missing required field \"" + key + "\"", pointerOf(where, key));
    return *value;
}

std::optional<std::string> optionalString(const json& obj, const std::string& key, const std::string& where)
{
    const json* member = optionalMember(obj, key);
    if (!member)
        return std::nullopt;
    if (!member->is_string())
        throw GraphError("expected a string, got " + typeName(*member), pointerOf(where, key));
    return member->get<std::string>();
}

std::int64_t toInt64(const json& value, const std::string& where)
{
    if (value.is_number_unsigned()) {
        auto u = value.get<std::uint64_t>();
        if (u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
            throw GraphError("value " + value.dump() + " does not fit a 64-bit signed integer", where);
        return static_cast<std::int64_t>(u);
    }
    // is_number_integer() is also true for unsigned values, so it comes second.
    if (value.is_number_integer())
        return value.get<std::int64_t>();
    if (value.is_number_float()) {
        double d = value.get<double>();
        if (std::isfinite(d) && std::floor(d) == d && std::fabs(d) < 9007199254740992.0)
            return static_cast<std::int64_t>(d);
        throw GraphError("expected an integer, got the fractional or out-of-range number " + value.dump(), where);
    }
    throw GraphError("expected an integer, got " + typeName(value), where);
}

std::int64_t requireInt64(const json& obj, const std::string& key, const std::string& where)
{
    auto value = optionalInt64(obj, key, where);
    if (!value)
        throw GraphError("missing required field \"" + key + "\"", pointerOf(where, key));
    return *value;
}

std::optional<std::int64_t> optionalInt64(const json& obj, const std::string& key, const std::string& where)
{
    const json* member = optionalMember(obj, key);
    if (!member)
        return std::nullopt;
    return toInt64(*member, pointerOf(where, key));
}

std::optional<double> optionalNumber(const json& obj, const std::string& key, const std::string& where)
{
    const json* member = optionalMember(obj, key);
    if (!member)
        return std::nullopt;
    if (!member->is_number())
        throw GraphError("expected a number, got " + typeName(*member), pointerOf(where, key));
    return member->get<double>();
}

std::optional<bool> optionalBool(const json& obj, const std::string& key, const std::string& where)
{
    const json* member = optionalMember(obj, key);
    if (!member)
        return std::nullopt;
    if (!member->is_boolean())
        throw GraphError("expected a boolean, got " + typeName(*member), pointerOf(where, key));
    return member->get<bool>();
}

namespace {

// An optional array whose items `item(value, pointer)` converts (and refuses with a GraphError).
template <class T, class Item>
std::optional<std::vector<T>> optionalArray(const json& obj, const std::string& key, const std::string& where,
                                            const std::string& itemsName, Item item)
{
    const json* member = optionalMember(obj, key);
    if (!member)
        return std::nullopt;
    const std::string at = pointerOf(where, key);
    if (!member->is_array())
        throw GraphError("expected an array of " + itemsName + ", got " + typeName(*member), at);
    std::vector<T> out;
    for (std::size_t i = 0; i < member->size(); ++i)
        out.push_back(item((*member)[i], at + "/" + std::to_string(i)));
    return out;
}

}  // namespace

std::optional<std::vector<std::int64_t>> optionalIntArray(const json& obj, const std::string& key,
                                                          const std::string& where)
{
    return optionalArray<std::int64_t>(obj, key, where, "integers", toInt64);
}

std::optional<std::vector<std::string>> optionalStringArray(const json& obj, const std::string& key,
                                                            const std::string& where)
{
    return optionalArray<std::string>(obj, key, where, "strings", [](const json& value, const std::string& at) {
        if (!value.is_string())
            throw GraphError("expected a string, got " + typeName(value), at);
        return value.get<std::string>();
    });
}

}  // namespace ckpt::json_access
