#include "io/JsonAccess.h"

#include "graph/GraphBuilder.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <unordered_set>

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

std::string readableMessage(const json::exception& e)
{
    const std::string what = e.what();
    const auto pos = what.find("] ");
    return pos == std::string::npos ? what : what.substr(pos + 2);
}

namespace {

// Builds the DOM through nlohmann's own SAX builder while tracking the JSON pointer of the
// value being read, so that every refusal names its place: nesting deeper than kMaxJsonDepth
// (printing such a value recurses once per level), duplicate keys (nlohmann keeps the last one
// silently) and numbers out of range (nlohmann's out_of_range.406). Items of streamed arrays go to
// the sink one at a time: an object is first read as a string record (no json value: an edge
// costs its two texts), and becomes a document of its own at its first member that is not a string.
class CheckedDomBuilder {
public:
    using number_integer_t = json::number_integer_t;
    using number_unsigned_t = json::number_unsigned_t;
    using number_float_t = json::number_float_t;
    using string_t = json::string_t;
    using binary_t = json::binary_t;

    CheckedDomBuilder(json& result, const StreamedArrays* streamed) : m_dom(result, true), m_streamed(streamed) {}

    bool null() { return scalar(startingValue().null()); }
    bool boolean(bool value) { return scalar(startingValue().boolean(value)); }
    bool number_integer(number_integer_t value) { return scalar(startingValue().number_integer(value)); }
    bool number_unsigned(number_unsigned_t value) { return scalar(startingValue().number_unsigned(value)); }
    bool number_float(number_float_t value, const string_t& text) { return scalar(startingValue().number_float(value, text)); }
    bool string(string_t& value)
    {
        if (m_recordMembers && m_depth == 3) {
            m_record.set(m_levels[2].key, value);
            return scalar(true);
        }
        return scalar(startingValue().string(value));
    }
    bool binary(binary_t& value) { return scalar(startingValue().binary(value)); }

    bool start_object(std::size_t size)
    {
        if (startsStreamedItem()) {
            m_recordMembers = true;
            m_record.clear();
            open(false);
            return true;
        }
        auto& parser = startingValue();
        open(false);
        return parser.start_object(size);
    }
    bool key(string_t& key)
    {
        Level& level = m_levels[m_depth - 1];
        level.key = key;
        if (!level.addKey(key))
            throw GraphError("duplicate key \"" + key + "\"", pointer());
        return m_recordMembers || dom().key(key);
    }
    bool end_object()
    {
        if (m_recordMembers) {
            m_recordMembers = false;
            --m_depth;
            StreamedItem item(m_record);
            m_streamed->sink(m_levels[0].key, m_levels[1].index, item);
            return scalar(true);
        }
        return close(dom().end_object());
    }
    bool start_array(std::size_t size)
    {
        auto& parser = startingValue();
        open(true);
        return parser.start_array(size);
    }
    bool end_array() { return close(dom().end_array()); }

    bool parse_error(std::size_t, const std::string&, const json::exception& e)
    {
        const std::string what = readableMessage(e);
        if (e.id == 406)  // out_of_range: a number too large for a double
            throw GraphError(what, pointer());
        // A syntax error may fall between members: name the object or array it is in.
        throw GraphError("not valid JSON (" + what + ")", pointer(m_depth == 0 ? 0 : m_depth - 1));
    }

private:
    using DomParser = nlohmann::detail::json_sax_dom_parser<json>;

    struct Level {
        bool isArray = false;
        bool isStreamed = false;  // an array whose items go to the sink
        std::size_t index = 0;    // arrays: the item being read
        std::string key;          // objects: the member being read
        // Keys seen so far: a list while short (most objects have a few keys, and a set per
        // object costs more than the parse), a set beyond.
        std::vector<std::string> few;
        std::unordered_set<std::string> many;

        bool addKey(const std::string& k)
        {
            if (many.empty()) {
                if (std::find(few.begin(), few.end(), k) != few.end())
                    return false;
                few.push_back(k);
                if (few.size() > 16)
                    many.insert(std::make_move_iterator(few.begin()), std::make_move_iterator(few.end()));
                return true;
            }
            return many.insert(k).second;
        }
    };

    // The parser of the value being read: a streamed item's own, or the document's.
    DomParser& dom() { return m_itemDom ? *m_itemDom : m_dom; }
    bool startsStreamedItem() const { return m_depth == 2 && m_levels[1].isStreamed && !m_itemDom; }
    // dom() for a value that starts here. One directly inside a streamed array starts a new item;
    // one inside a string record turns the record into a document, its members read so far first.
    DomParser& startingValue()
    {
        const bool fromRecord = m_recordMembers;
        if (!startsStreamedItem() && !fromRecord)
            return dom();
        m_item = json();
        m_itemDom.emplace(m_item, true);
        if (fromRecord) {
            m_recordMembers = false;
            m_itemDom->start_object(static_cast<std::size_t>(-1));
            for (const auto& [key, text] : m_record.members()) {
                std::string k = key, t = text;  // the parser's SAX interface takes non-const references
                m_itemDom->key(k);
                m_itemDom->string(t);
            }
            m_itemDom->key(m_levels[2].key);
        }
        return *m_itemDom;
    }

    // The pointer of the value being read, or of its enclosing container at `depth` levels.
    std::string pointer(std::size_t depth = kMaxJsonDepth) const
    {
        std::string out;
        for (std::size_t i = 0; i < std::min(depth, m_depth); ++i) {
            const Level& level = m_levels[i];
            out = level.isArray ? out + "/" + std::to_string(level.index) : pointerOf(out, level.key);
        }
        return out;
    }
    // Levels are reused, not popped: their key lists keep their capacity for the next object.
    void open(bool isArray)
    {
        if (m_depth >= kMaxJsonDepth)
            throw GraphError("nested deeper than " + std::to_string(kMaxJsonDepth) + " levels", pointer());
        const bool isStreamed = isArray && m_depth == 1 && m_streamed && !m_levels[0].isArray &&
                                std::find(m_streamed->keys.begin(), m_streamed->keys.end(), m_levels[0].key) !=
                                    m_streamed->keys.end();
        if (m_depth == m_levels.size())
            m_levels.emplace_back();
        Level& level = m_levels[m_depth++];
        level.isArray = isArray;
        level.isStreamed = isStreamed;
        level.index = 0;
        level.few.clear();
        level.many.clear();
    }
    bool close(bool ok)
    {
        --m_depth;
        return scalar(ok);
    }
    // A value is complete: a streamed item goes to the sink; the enclosing array moves on to its
    // next item.
    bool scalar(bool ok)
    {
        if (m_itemDom && m_depth == 2) {
            m_itemDom.reset();
            StreamedItem item(std::move(m_item));
            m_streamed->sink(m_levels[0].key, m_levels[1].index, item);
        }
        if (m_depth > 0 && m_levels[m_depth - 1].isArray)
            ++m_levels[m_depth - 1].index;
        return ok;
    }

    DomParser m_dom;
    const StreamedArrays* m_streamed;
    json m_item;
    std::optional<DomParser> m_itemDom;
    StringRecord m_record;
    bool m_recordMembers = false;  // reading a streamed item's members into m_record
    std::vector<Level> m_levels;
    std::size_t m_depth = 0;
};

}  // namespace

void StringRecord::set(const std::string& key, const std::string& text)
{
    if (m_size == m_members.size())
        m_members.emplace_back();
    m_members[m_size].first = key;
    m_members[m_size].second = text;
    ++m_size;
}

const std::string* StringRecord::find(std::string_view key) const
{
    for (const auto& [k, text] : members())
        if (k == key)
            return &text;
    return nullptr;
}

json StreamedItem::value() &&
{
    if (!m_record)
        return std::move(m_value);
    json object = json::object();
    for (const auto& [key, text] : m_record->members())
        object[key] = text;
    return object;
}

namespace {

json parseChecked(const std::string& text, const StreamedArrays* streamed)
{
    if (text.find_first_not_of(" \t\r\n") == std::string::npos)
        throw GraphError("the file is empty");
    // nlohmann stops at a NUL byte as if the input ended there; what follows would go unread.
    if (const auto nul = text.find('\0'); nul != std::string::npos)
        throw GraphError("contains a NUL byte at offset " + std::to_string(nul) + " (not a JSON text file)");
    json root;
    CheckedDomBuilder builder(root, streamed);
    json::sax_parse(text, &builder);
    return root;
}

}  // namespace

json parse(const std::string& text) { return parseChecked(text, nullptr); }

json parse(const std::string& text, const StreamedArrays& streamed) { return parseChecked(text, &streamed); }

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

std::int64_t toInt64InRange(const json& value, std::int64_t lo, std::int64_t hi, const std::string& where)
{
    const std::int64_t n = toInt64(value, where);
    if (n < lo || n > hi)
        throw GraphError("value " + std::to_string(n) + " is outside " + std::to_string(lo) + ".." + std::to_string(hi),
                         where);
    return n;
}

int toCount(const json& value, const std::string& where)
{
    return static_cast<int>(toInt64InRange(value, 0, std::numeric_limits<int>::max(), where));
}

std::int64_t requireInt64InRange(const json& obj, const std::string& key, std::int64_t lo, std::int64_t hi,
                                 const std::string& where)
{
    requireInt64(obj, key, where);  // present and an integer
    return toInt64InRange(obj.at(key), lo, hi, pointerOf(where, key));
}

std::int64_t requireByteCount(const json& obj, const std::string& key, const std::string& where)
{
    return requireInt64InRange(obj, key, 0, kMaxGraphBytes, where);
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

namespace {

std::string toString(const json& value, const std::string& at)
{
    if (!value.is_string())
        throw GraphError("expected a string, got " + typeName(value), at);
    return value.get<std::string>();
}

}  // namespace

std::optional<std::vector<std::string>> optionalStringArray(const json& obj, const std::string& key,
                                                            const std::string& where)
{
    return optionalArray<std::string>(obj, key, where, "strings", toString);
}

std::optional<std::vector<std::vector<std::string>>> optionalStringArrays(const json& obj, const std::string& key,
                                                                          const std::string& where)
{
    return optionalArray<std::vector<std::string>>(
        obj, key, where, "arrays of strings", [](const json& value, const std::string& at) {
            if (!value.is_array())
                throw GraphError("expected an array of strings, got " + typeName(value), at);
            std::vector<std::string> out;
            for (std::size_t i = 0; i < value.size(); ++i)
                out.push_back(toString(value[i], at + "/" + std::to_string(i)));
            return out;
        });
}

}  // namespace ckpt::json_access
