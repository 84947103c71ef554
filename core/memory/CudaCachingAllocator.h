#pragma once
// PyTorch's CUDA caching allocator (c10/cuda/CUDACachingAllocator.cpp, torch 1.13 to 2.11) at its
// default settings (no max_split_size, no expandable segments, one stream), as far as what
// torch.cuda.memory_allocated() reports: the sizes of the blocks handed out, not the bytes
// requested (docs/MEMORY-MODEL.md, rule A1).
//   - A request is rounded up to a multiple of 512 bytes (at least 512).
//   - Requests of at most 1 MiB come from the small pool, whose segments are 2 MiB; larger ones from
//     the large pool, whose new segments are 20 MiB for requests under 10 MiB, else the request
//     rounded up to 2 MiB.
//   - The smallest free block of the pool that fits is taken (ties: the lowest address), else a new
//     segment. The block is split, the request at its front, when the rest is at least 512 bytes
//     (small pool) or more than 1 MiB (large pool); otherwise the whole block is handed out.
//   - A freed block merges with free neighbours of its segment. Segments are never returned
//     (empty_cache is not modelled).
// Checked against a real snapshot: replaying its history from its segments puts every allocation
// at the address the GPU's allocator chose (tests/core/memory/tst_cudacachingallocator.cpp).
#include <cstdint>
#include <map>
#include <set>
#include <utility>
#include <vector>

namespace ckpt {

class CudaCachingAllocator {
public:
    static constexpr std::int64_t kMinBlockSize = 512;
    static constexpr std::int64_t kSmallSize = std::int64_t(1) << 20;
    static constexpr std::int64_t kSmallBuffer = std::int64_t(2) << 20;
    static constexpr std::int64_t kLargeBuffer = std::int64_t(20) << 20;
    static constexpr std::int64_t kMinLargeAlloc = std::int64_t(10) << 20;
    static constexpr std::int64_t kRoundLarge = std::int64_t(2) << 20;
    // More than any device holds (1 PiB): requests and reservations beyond it throw
    // std::overflow_error, so that addresses (from 2^40, a gap after each segment) stay in 64 bits.
    static constexpr std::int64_t kMostBytes = std::int64_t(1) << 50;

    struct Block {
        std::int64_t address = 0;
        std::int64_t size = 0;
        bool allocated = false;
    };

    static std::int64_t roundSize(std::int64_t requested);

    // The address of the block handed out for `requested` bytes (> 0; see kMostBytes).
    std::int64_t allocate(std::int64_t requested);
    // Frees the block at `address` (as allocate returned it); throws std::logic_error otherwise.
    void free(std::int64_t address);
    std::int64_t blockSize(std::int64_t address) const;
    std::int64_t allocatedBytes() const { return m_allocated; }
    std::int64_t reservedBytes() const { return m_reserved; }

    // A segment as a snapshot lists it (contiguous blocks from `address`): to go on from a real state.
    void addSegment(bool largePool, const std::vector<Block>& blocks);
    // Every block, by address.
    std::vector<Block> blocks() const;

private:
    struct BlockState {
        std::int64_t size = 0;
        bool allocated = false;
        bool large = false;
        std::int64_t segment = 0;  // the address of its segment: blocks merge only within one
    };
    using FreeBlocks = std::set<std::pair<std::int64_t, std::int64_t>>;  // (size, address)

    FreeBlocks& pool(bool large) { return large ? m_largeFree : m_smallFree; }
    void insertFree(std::int64_t address, const BlockState& block);

    std::map<std::int64_t, BlockState> m_blocks;
    FreeBlocks m_smallFree, m_largeFree;
    std::int64_t m_allocated = 0;
    std::int64_t m_reserved = 0;
    std::int64_t m_nextSegment = std::int64_t(1) << 40;  // where the next new segment starts
};

}  // namespace ckpt
