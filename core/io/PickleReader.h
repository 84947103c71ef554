#pragma once
// The subset of Python's pickle format (protocols 2–5) that `pickle.dump` writes for plain data —
// dicts, lists, tuples, str, bytes, int, float, bool, None — and that PyTorch's memory snapshots
// (torch.cuda.memory._dump_snapshot, or the C++ Pickler of _memory_snapshot_pickled) consist of.
// Nothing is executed: the only globals accepted are the two that protocol 2 uses to spell bytes
// (_codecs.encode and builtins.bytes); any other class or function is refused.
//
// The reader is a loop over opcodes with an explicit stack (no recursion, so a deeply nested
// pickle cannot overflow the C++ stack). Values live in one arena and refer to their items by
// index, so memo references (shared or even self-containing objects) cost nothing and need no
// ownership cycles; every value remembers the byte offset of the opcode that made it, for errors.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ckpt {

using PickleId = std::uint32_t;

struct PickleValue {
    // Global: _codecs.encode or builtins.bytes itself, only meaningful as the callable of a REDUCE.
    enum class Kind : std::uint8_t { None, Bool, Int, Float, String, Bytes, List, Tuple, Dict, Global };
    Kind kind = Kind::None;
    bool boolean = false;
    std::int64_t integer = 0;
    double number = 0;
    std::string text;              // String (UTF-8) and Bytes
    std::vector<PickleId> items;   // List, Tuple; Dict as key, value, key, value, …
    std::size_t offset = 0;        // of the opcode that made it
};

struct PickleLimits {
    std::size_t maxMarkDepth = 256;        // nested MARKs (a snapshot needs 5)
    std::size_t maxValues = 200'000'000;   // values in the arena
};

class PickleDocument {
public:
    const PickleValue& root() const { return m_values[m_root]; }
    const PickleValue& at(PickleId id) const { return m_values[id]; }
    std::size_t valueCount() const { return m_values.size(); }
    // The value of `key` in a Dict (the last one when a key repeats), or nullptr.
    const PickleValue* member(const PickleValue& dict, std::string_view key) const;

private:
    friend class PickleParser;
    std::vector<PickleValue> m_values;
    PickleId m_root = 0;
};

// Throws GraphError("...", "byte N") naming the offset of the opcode at fault; readers fill the file.
PickleDocument parsePickle(std::string_view bytes, const PickleLimits& limits = {});

// "dict", "list", … for error messages.
const char* pickleKindName(PickleValue::Kind kind);

}  // namespace ckpt
