#include "io/PickleReader.h"

#include "graph/GraphError.h"

#include <bit>
#include <cstdio>
#include <unordered_map>

namespace ckpt {

namespace {

// The opcodes of pickletools, by the byte that spells them.
enum Op : unsigned char {
    MARK = '(', STOP = '.', POP = '0', POP_MARK = '1', DUP = '2', BINFLOAT = 'G', BININT = 'J', BININT1 = 'K',
    BININT2 = 'M', NONE = 'N', REDUCE = 'R', BINUNICODE = 'X', EMPTY_LIST = ']', APPEND = 'a', BINBYTES = 'B',
    SHORT_BINBYTES = 'C', GLOBAL = 'c', DICT = 'd', APPENDS = 'e', BINGET = 'h', LONG_BINGET = 'j', LIST = 'l',
    BINPUT = 'q', LONG_BINPUT = 'r', SETITEM = 's', TUPLE = 't', SETITEMS = 'u', EMPTY_DICT = '}',
    EMPTY_TUPLE = ')', PROTO = 0x80, TUPLE1 = 0x85, TUPLE2 = 0x86, TUPLE3 = 0x87, NEWTRUE = 0x88,
    NEWFALSE = 0x89, LONG1 = 0x8a, LONG4 = 0x8b, SHORT_BINUNICODE = 0x8c, BINUNICODE8 = 0x8d,
    BINBYTES8 = 0x8e, MEMOIZE = 0x94, FRAME = 0x95, BYTEARRAY8 = 0x96, STACK_GLOBAL = 0x93,
};

// Names of the opcodes outside the subset, so a refusal says what the pickle asked for.
const char* unsupportedOpcodeName(unsigned char op)
{
    switch (op) {
    case 'b': return "BUILD";
    case 'i': return "INST";
    case 'o': return "OBJ";
    case 0x81: return "NEWOBJ";
    case 0x92: return "NEWOBJ_EX";
    case 'P': return "PERSID";
    case 'Q': return "BINPERSID";
    case 0x82: case 0x83: case 0x84: return "EXT";
    case 'I': return "INT";
    case 'L': return "LONG";
    case 'F': return "FLOAT";
    case 'S': case 'T': case 'U': return "STRING";
    case 'V': return "UNICODE";
    case 'p': case 'g': return "PUT/GET (text)";
    case 0x8f: case 0x90: case 0x91: return "SET";
    case 0x97: case 0x98: return "out-of-band BUFFER";
    default: return nullptr;
    }
}

enum class Callable { CodecsEncode, Bytes };

}  // namespace

class PickleParser {
public:
    PickleParser(std::string_view bytes, const PickleLimits& limits) : m_in(bytes), m_limits(limits) {}

    PickleDocument run()
    {
        while (true) {
            if (m_pos >= m_in.size())
                fail(m_pos, "truncated: the pickle ends without a STOP opcode");
            m_op = m_pos;
            const auto op = static_cast<unsigned char>(m_in[m_pos++]);
            if (op == STOP) {
                m_doc.m_root = pop();
                return std::move(m_doc);
            }
            step(op);
        }
    }

private:
    [[noreturn]] void fail(std::size_t at, const std::string& problem) const
    {
        throw GraphError(problem, "byte " + std::to_string(at));
    }

    std::string_view take(std::size_t n, const char* what)
    {
        if (n > m_in.size() - m_pos)
            fail(m_op, std::string("truncated: ") + what + " needs " + std::to_string(n) + " bytes, " +
                           std::to_string(m_in.size() - m_pos) + " left");
        const auto out = m_in.substr(m_pos, n);
        m_pos += n;
        return out;
    }

    std::uint64_t unsignedLE(std::size_t n, const char* what)
    {
        const auto raw = take(n, what);
        std::uint64_t v = 0;
        for (std::size_t i = n; i-- > 0;)
            v = (v << 8) | static_cast<unsigned char>(raw[i]);
        return v;
    }

    PickleId make(PickleValue value)
    {
        if (m_doc.m_values.size() >= m_limits.maxValues)
            fail(m_op, "more than " + std::to_string(m_limits.maxValues) + " values");
        value.offset = m_op;
        m_doc.m_values.push_back(std::move(value));
        return static_cast<PickleId>(m_doc.m_values.size() - 1);
    }

    void push(PickleValue value) { m_stack.push_back(make(std::move(value))); }

    static PickleValue of(PickleValue::Kind kind)
    {
        PickleValue v;
        v.kind = kind;
        return v;
    }

    std::size_t floor() const { return m_marks.empty() ? 0 : m_marks.back(); }

    PickleId pop()
    {
        if (m_stack.size() <= floor())
            fail(m_op, m_stack.empty() ? "the stack is empty" : "a value was expected, found a MARK");
        const PickleId id = m_stack.back();
        m_stack.pop_back();
        return id;
    }

    PickleId top() const
    {
        if (m_stack.size() <= floor())
            fail(m_op, "the stack is empty");
        return m_stack.back();
    }

    // The values pushed since the last MARK, which is removed.
    std::vector<PickleId> popMark()
    {
        if (m_marks.empty())
            fail(m_op, "no MARK to pop");
        const std::size_t mark = m_marks.back();
        m_marks.pop_back();
        std::vector<PickleId> items(m_stack.begin() + static_cast<std::ptrdiff_t>(mark), m_stack.end());
        m_stack.resize(mark);
        return items;
    }

    PickleValue& container(PickleId id, PickleValue::Kind kind, const char* opcode)
    {
        PickleValue& v = m_doc.m_values[id];
        if (v.kind != kind)
            fail(m_op, std::string(opcode) + " on a " + pickleKindName(v.kind) + ", expected a " +
                           pickleKindName(kind));
        return v;
    }

    void pushSequence(PickleValue::Kind kind, std::vector<PickleId> items)
    {
        PickleValue v = of(kind);
        v.items = std::move(items);
        push(std::move(v));
    }

    void pushTuple(std::size_t n)
    {
        std::vector<PickleId> items(n);
        for (std::size_t i = n; i-- > 0;)
            items[i] = pop();
        pushSequence(PickleValue::Kind::Tuple, std::move(items));
    }

    void pushInt(std::int64_t i)
    {
        PickleValue v = of(PickleValue::Kind::Int);
        v.integer = i;
        push(std::move(v));
    }

    void pushText(PickleValue::Kind kind, std::size_t length, const char* what)
    {
        PickleValue v = of(kind);
        v.text = std::string(take(length, what));
        push(std::move(v));
    }

    // LONG1/LONG4: little-endian two's complement; wider than 64 bits only as sign extension.
    void pushLong(std::size_t n)
    {
        const auto raw = take(n, "LONG");
        if (n == 0)
            return pushInt(0);
        const bool negative = static_cast<unsigned char>(raw[n - 1]) & 0x80;
        const unsigned char extension = negative ? 0xff : 0x00;
        for (std::size_t i = 8; i < n; ++i)
            if (static_cast<unsigned char>(raw[i]) != extension)
                fail(m_op, "integer wider than 64 bits");
        std::uint64_t v = negative ? ~std::uint64_t(0) : 0;
        for (std::size_t i = std::min<std::size_t>(n, 8); i-- > 0;)
            v = (v << 8) | static_cast<unsigned char>(raw[i]);
        if (n >= 8 && ((v >> 63) != 0) != negative)
            fail(m_op, "integer wider than 64 bits");
        pushInt(static_cast<std::int64_t>(v));
    }

    std::size_t length(std::uint64_t n)
    {
        if (n > m_in.size() - m_pos)
            fail(m_op, "truncated: a length of " + std::to_string(n) + " bytes, " +
                           std::to_string(m_in.size() - m_pos) + " left");
        return static_cast<std::size_t>(n);
    }

    void pushGlobal(std::string_view module, std::string_view name)
    {
        Callable callable;
        if (module == "_codecs" && name == "encode")
            callable = Callable::CodecsEncode;
        else if ((module == "__builtin__" || module == "builtins") && name == "bytes")
            callable = Callable::Bytes;
        else
            fail(m_op, "refuses global " + std::string(module) + "." + std::string(name) +
                           " (a memory snapshot holds only plain data)");
        PickleValue v = of(PickleValue::Kind::Global);
        v.integer = static_cast<std::int64_t>(callable);
        push(std::move(v));
    }

    std::string_view line(const char* what)
    {
        const auto end = m_in.find('\n', m_pos);
        if (end == std::string_view::npos)
            fail(m_op, std::string("truncated: ") + what + " has no end of line");
        const auto out = m_in.substr(m_pos, end - m_pos);
        m_pos = end + 1;
        return out;
    }

    // Protocol 2 spells bytes as _codecs.encode(str, "latin1") or bytes().
    void reduce()
    {
        const PickleValue args = m_doc.m_values[pop()];
        const PickleValue callable = m_doc.m_values[pop()];
        if (callable.kind != PickleValue::Kind::Global || args.kind != PickleValue::Kind::Tuple)
            fail(m_op, "REDUCE needs an accepted global and a tuple");
        PickleValue bytes = of(PickleValue::Kind::Bytes);
        if (static_cast<Callable>(callable.integer) == Callable::Bytes) {
            if (!args.items.empty())
                fail(m_op, "bytes() with arguments");
            return push(std::move(bytes));
        }
        if (args.items.size() != 2 || at(args.items[0]).kind != PickleValue::Kind::String ||
            at(args.items[1]).kind != PickleValue::Kind::String || at(args.items[1]).text != "latin1")
            fail(m_op, "_codecs.encode needs (str, \"latin1\")");
        bytes.text = latin1(at(args.items[0]).text);
        push(std::move(bytes));
    }

    // The code points (all below 256) of a UTF-8 string, one byte each.
    std::string latin1(const std::string& utf8) const
    {
        std::string out;
        for (std::size_t i = 0; i < utf8.size(); ++i) {
            const auto c = static_cast<unsigned char>(utf8[i]);
            if (c < 0x80) {
                out += static_cast<char>(c);
            } else if ((c == 0xc2 || c == 0xc3) && i + 1 < utf8.size()) {
                out += static_cast<char>(((c & 0x03) << 6) | (static_cast<unsigned char>(utf8[++i]) & 0x3f));
            } else {
                fail(m_op, "_codecs.encode of a character above U+00FF");
            }
        }
        return out;
    }

    const PickleValue& at(PickleId id) const { return m_doc.m_values[id]; }

    void memoPut(std::uint64_t index)
    {
        m_memo[index] = top();
    }

    void memoGet(std::uint64_t index)
    {
        const auto it = m_memo.find(index);
        if (it == m_memo.end())
            fail(m_op, "memo entry " + std::to_string(index) + " was never stored");
        m_stack.push_back(it->second);
    }

    void step(unsigned char op)
    {
        using K = PickleValue::Kind;
        switch (op) {
        case PROTO: {
            const auto version = unsignedLE(1, "PROTO");
            if (version < 2 || version > 5)
                fail(m_op, "pickle protocol " + std::to_string(version) + " (2 to 5 are read)");
            return;
        }
        case FRAME:
            unsignedLE(8, "FRAME");  // a read-ahead hint; the opcodes inside are read as usual
            return;
        case MARK:
            if (m_marks.size() >= m_limits.maxMarkDepth)
                fail(m_op, "nested deeper than " + std::to_string(m_limits.maxMarkDepth) + " MARKs");
            m_marks.push_back(m_stack.size());
            return;
        case POP: pop(); return;
        case POP_MARK: popMark(); return;
        case DUP: m_stack.push_back(top()); return;
        case NONE: return push(of(K::None));
        case NEWTRUE:
        case NEWFALSE: {
            PickleValue v = of(K::Bool);
            v.boolean = op == NEWTRUE;
            return push(std::move(v));
        }
        case BININT: return pushInt(static_cast<std::int32_t>(unsignedLE(4, "BININT")));
        case BININT1: return pushInt(static_cast<std::int64_t>(unsignedLE(1, "BININT1")));
        case BININT2: return pushInt(static_cast<std::int64_t>(unsignedLE(2, "BININT2")));
        case LONG1: return pushLong(unsignedLE(1, "LONG1"));
        case LONG4: {
            const auto n = static_cast<std::int32_t>(unsignedLE(4, "LONG4"));
            if (n < 0)
                fail(m_op, "LONG4 with a negative length");
            return pushLong(length(static_cast<std::uint64_t>(n)));
        }
        case BINFLOAT: {
            const auto raw = take(8, "BINFLOAT");
            std::uint64_t bits = 0;
            for (char c : raw)
                bits = (bits << 8) | static_cast<unsigned char>(c);  // big-endian
            PickleValue v = of(K::Float);
            v.number = std::bit_cast<double>(bits);
            return push(std::move(v));
        }
        case SHORT_BINUNICODE: return pushText(K::String, unsignedLE(1, "SHORT_BINUNICODE"), "a string");
        case BINUNICODE: return pushText(K::String, length(unsignedLE(4, "BINUNICODE")), "a string");
        case BINUNICODE8: return pushText(K::String, length(unsignedLE(8, "BINUNICODE8")), "a string");
        case SHORT_BINBYTES: return pushText(K::Bytes, unsignedLE(1, "SHORT_BINBYTES"), "bytes");
        case BINBYTES: return pushText(K::Bytes, length(unsignedLE(4, "BINBYTES")), "bytes");
        case BINBYTES8:
        case BYTEARRAY8: return pushText(K::Bytes, length(unsignedLE(8, "BINBYTES8")), "bytes");
        case EMPTY_LIST: return push(of(K::List));
        case EMPTY_DICT: return push(of(K::Dict));
        case EMPTY_TUPLE: return push(of(K::Tuple));
        case LIST: return pushSequence(K::List, popMark());
        case TUPLE: return pushSequence(K::Tuple, popMark());
        case TUPLE1: return pushTuple(1);
        case TUPLE2: return pushTuple(2);
        case TUPLE3: return pushTuple(3);
        case DICT: {
            auto items = popMark();
            if (items.size() % 2 != 0)
                fail(m_op, "DICT with an odd number of items");
            return pushSequence(K::Dict, std::move(items));
        }
        case APPEND: {
            const PickleId value = pop();
            container(top(), K::List, "APPEND").items.push_back(value);
            return;
        }
        case APPENDS: {
            const auto items = popMark();
            auto& list = container(top(), K::List, "APPENDS").items;
            list.insert(list.end(), items.begin(), items.end());
            return;
        }
        case SETITEM: {
            const PickleId value = pop();
            const PickleId key = pop();
            auto& dict = container(top(), K::Dict, "SETITEM").items;
            dict.push_back(key);
            dict.push_back(value);
            return;
        }
        case SETITEMS: {
            const auto items = popMark();
            if (items.size() % 2 != 0)
                fail(m_op, "SETITEMS with an odd number of items");
            auto& dict = container(top(), K::Dict, "SETITEMS").items;
            dict.insert(dict.end(), items.begin(), items.end());
            return;
        }
        case BINPUT: return memoPut(unsignedLE(1, "BINPUT"));
        case LONG_BINPUT: return memoPut(unsignedLE(4, "LONG_BINPUT"));
        case MEMOIZE: return memoPut(m_memo.size());
        case BINGET: return memoGet(unsignedLE(1, "BINGET"));
        case LONG_BINGET: return memoGet(unsignedLE(4, "LONG_BINGET"));
        case GLOBAL: {
            const auto module = line("GLOBAL");
            return pushGlobal(module, line("GLOBAL"));
        }
        case STACK_GLOBAL: {
            const PickleValue& name = at(pop());
            const PickleValue& module = at(pop());
            if (name.kind != K::String || module.kind != K::String)
                fail(m_op, "STACK_GLOBAL needs two strings");
            return pushGlobal(module.text, name.text);
        }
        case REDUCE: return reduce();
        default: break;
        }
        char hex[8];
        std::snprintf(hex, sizeof hex, "0x%02x", op);
        if (const char* name = unsupportedOpcodeName(op))
            fail(m_op, std::string("refuses opcode ") + name + " (" + hex + "): not plain data of protocol 2 to 5");
        fail(m_op, std::string("unknown opcode ") + hex + " (not a pickle, or a corrupt one)");
    }

    std::string_view m_in;
    PickleLimits m_limits;
    std::size_t m_pos = 0;
    std::size_t m_op = 0;  // offset of the opcode being read
    std::vector<PickleId> m_stack;
    std::vector<std::size_t> m_marks;
    std::unordered_map<std::uint64_t, PickleId> m_memo;
    PickleDocument m_doc;
};

const PickleValue* PickleDocument::member(const PickleValue& dict, std::string_view key) const
{
    if (dict.kind != PickleValue::Kind::Dict)
        return nullptr;
    const PickleValue* found = nullptr;
    for (std::size_t i = 0; i + 1 < dict.items.size(); i += 2) {
        const PickleValue& k = m_values[dict.items[i]];
        if (k.kind == PickleValue::Kind::String && k.text == key)
            found = &m_values[dict.items[i + 1]];
    }
    return found;
}

PickleDocument parsePickle(std::string_view bytes, const PickleLimits& limits)
{
    return PickleParser(bytes, limits).run();
}

const char* pickleKindName(PickleValue::Kind kind)
{
    switch (kind) {
    case PickleValue::Kind::None: return "None";
    case PickleValue::Kind::Bool: return "bool";
    case PickleValue::Kind::Int: return "int";
    case PickleValue::Kind::Float: return "float";
    case PickleValue::Kind::String: return "str";
    case PickleValue::Kind::Bytes: return "bytes";
    case PickleValue::Kind::List: return "list";
    case PickleValue::Kind::Tuple: return "tuple";
    case PickleValue::Kind::Dict: return "dict";
    case PickleValue::Kind::Global: return "global";
    }
    return "value";
}

}  // namespace ckpt
