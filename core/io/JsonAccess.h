#pragma once
// Typed access to parsed JSON that fails with a GraphError naming the JSON pointer,
// shared by every reader in core/io.
#include "graph/GraphError.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string_view>
#include <utility>
#include <string>
#include <vector>

namespace ckpt::json_access {

using nlohmann::json;

std::string typeName(const json& j);
std::string pointerOf(const std::string& parent, const std::string& key);
// Our files nest a few levels; metadata and plan options are free-form but no deeper than this.
inline constexpr std::size_t kMaxJsonDepth = 100;

// Parses text; an empty, truncated or non-JSON input is a GraphError, and so are NUL bytes,
// duplicate keys, numbers beyond a double's range and nesting deeper than kMaxJsonDepth.
json parse(const std::string& text);

// An object whose members are all strings, as read: the cheap form of a streamed item.
class StringRecord {
public:
    void clear() { m_size = 0; }
    void set(const std::string& key, const std::string& text);
    // The member's text, or nullptr when the record has no such member.
    const std::string* find(std::string_view key) const;
    std::span<const std::pair<std::string, std::string>> members() const { return {m_members.data(), m_size}; }

private:
    std::vector<std::pair<std::string, std::string>> m_members;  // reused: the first m_size are this record's
    std::size_t m_size = 0;
};

// An item of a streamed array: an object of string members as a StringRecord (no json value is
// built: an edge is its two ids), anything else as json. value() gives the json either way.
class StreamedItem {
public:
    explicit StreamedItem(const StringRecord& record) : m_record(&record) {}
    explicit StreamedItem(json&& value) : m_value(std::move(value)) {}
    const StringRecord* stringRecord() const { return m_record; }
    json value() &&;

private:
    const StringRecord* m_record = nullptr;
    json m_value;
};

// Items of the root object's arrays named in `keys` go to `sink` one at a time, as soon as each is
// read, instead of into the document (where those arrays stay empty): a 100k-vertex graph's
// 1.75 M edges never exist as JSON objects all at once. Parse errors are thrown as by parse().
struct StreamedArrays {
    std::vector<std::string> keys;
    std::function<void(const std::string& key, std::size_t index, StreamedItem& item)> sink;
};
json parse(const std::string& text, const StreamedArrays& streamed);

// nlohmann's message without its "[json.exception.NAME.ID] " prefix.
std::string readableMessage(const json::exception& e);
// Runs a reader of `file`: every failure leaves as a GraphError naming the file, including a
// nlohmann exception that a reader let through.
template <class Read>
auto readingFile(const std::string& file, Read read) -> decltype(read())
{
    try {
        return read();
    } catch (const GraphError& e) {
        throw e.inFile(file);
    } catch (const json::exception& e) {
        throw GraphError(readableMessage(e), {}, file);
    }
}

const json& requireObject(const json& j, const std::string& where);
const json& requireArray(const json& parent, const std::string& key, const std::string& where);
const json* optionalMember(const json& obj, const std::string& key);

std::string requireString(const json& obj, const std::string& key, const std::string& where);
std::optional<std::string> optionalString(const json& obj, const std::string& key, const std::string& where);
// Integers only: fractional, non-numeric and out-of-range values are refused.
std::int64_t toInt64(const json& value, const std::string& where);
// toInt64 within [lo, hi] (so that a narrower type holds it); outside is a GraphError.
std::int64_t toInt64InRange(const json& value, std::int64_t lo, std::int64_t hi, const std::string& where);
// A count that an int holds: 0 to INT_MAX.
int toCount(const json& value, const std::string& where);
std::int64_t requireInt64InRange(const json& obj, const std::string& key, std::int64_t lo, std::int64_t hi,
                                 const std::string& where);
// A byte count read from a file: 0 to kMaxGraphBytes (GraphBuilder.h).
std::int64_t requireByteCount(const json& obj, const std::string& key, const std::string& where);
std::int64_t requireInt64(const json& obj, const std::string& key, const std::string& where);
std::optional<std::int64_t> optionalInt64(const json& obj, const std::string& key, const std::string& where);
std::optional<double> optionalNumber(const json& obj, const std::string& key, const std::string& where);
std::optional<bool> optionalBool(const json& obj, const std::string& key, const std::string& where);
std::optional<std::vector<std::int64_t>> optionalIntArray(const json& obj, const std::string& key,
                                                          const std::string& where);
std::optional<std::vector<std::string>> optionalStringArray(const json& obj, const std::string& key,
                                                            const std::string& where);
// An array of arrays of strings (groups of vertex ids).
std::optional<std::vector<std::vector<std::string>>> optionalStringArrays(const json& obj, const std::string& key,
                                                                          const std::string& where);

}  // namespace ckpt::json_access
