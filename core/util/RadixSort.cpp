#include "util/RadixSort.h"

#include <algorithm>
#include <array>
#include <vector>

namespace ckpt {

void radixSort(std::span<std::int64_t> values)
{
    if (values.size() < 2)
        return;
    // Flipping the sign bit orders negative values first when the bits are read as unsigned.
    constexpr std::uint64_t kSign = std::uint64_t{1} << 63;
    auto key = [](std::int64_t v) { return static_cast<std::uint64_t>(v) ^ kSign; };
    std::uint64_t differing = 0;  // the bits in which some value differs from the first
    for (std::int64_t v : values)
        differing |= key(v) ^ key(values.front());
    std::vector<std::int64_t> buffer(values.size());
    std::span<std::int64_t> from = values, to = buffer;
    for (int shift = 0; shift < 64; shift += 8) {
        if (((differing >> shift) & 0xff) == 0)
            continue;  // every value has the same byte here: the pass would keep their order
        std::array<std::size_t, 257> start{};
        for (std::int64_t v : from)
            ++start[((key(v) >> shift) & 0xff) + 1];
        for (int d = 0; d < 256; ++d)
            start[d + 1] += start[d];
        for (std::int64_t v : from)
            to[start[(key(v) >> shift) & 0xff]++] = v;
        std::swap(from, to);
    }
    if (from.data() != values.data())
        std::copy(from.begin(), from.end(), values.begin());
}

}  // namespace ckpt
