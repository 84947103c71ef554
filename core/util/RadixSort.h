#pragma once
// Least-significant-digit radix sort of 64-bit integers: O(n) per byte that differs among them,
// where std::sort is O(n log n) (the C sweep's max-term list has millions of entries).
#include <cstdint>
#include <span>

namespace ckpt {

void radixSort(std::span<std::int64_t> values);

}  // namespace ckpt
