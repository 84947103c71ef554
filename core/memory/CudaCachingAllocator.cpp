#include "memory/CudaCachingAllocator.h"

#include <iterator>
#include <stdexcept>
#include <string>

namespace ckpt {

std::int64_t CudaCachingAllocator::roundSize(std::int64_t requested)
{
    if (requested < kMinBlockSize)
        return kMinBlockSize;
    return kMinBlockSize * ((requested + kMinBlockSize - 1) / kMinBlockSize);
}

void CudaCachingAllocator::insertFree(std::int64_t address, const BlockState& block)
{
    pool(block.large).insert({block.size, address});
}

std::int64_t CudaCachingAllocator::allocate(std::int64_t requested)
{
    if (requested <= 0)
        throw std::logic_error("CudaCachingAllocator: a request of " + std::to_string(requested) + " bytes");
    if (requested > kMostBytes)
        throw std::overflow_error("CudaCachingAllocator: a request of " + std::to_string(requested) +
                                  " bytes, beyond any GPU");
    const std::int64_t size = roundSize(requested);
    const bool large = size > kSmallSize;
    FreeBlocks& free = pool(large);
    auto found = free.lower_bound({size, 0});
    std::int64_t address;
    if (found == free.end()) {
        // get_allocation_size: a new segment (cudaMalloc), packed for small and mid-sized requests.
        const std::int64_t segment = !large ? kSmallBuffer
                                     : size < kMinLargeAlloc ? kLargeBuffer
                                                             : kRoundLarge * ((size + kRoundLarge - 1) / kRoundLarge);
        if (m_reserved > kMostBytes - segment)
            throw std::overflow_error("CudaCachingAllocator: segments of more than " + std::to_string(kMostBytes) +
                                      " bytes, beyond any GPU");
        address = m_nextSegment;
        m_nextSegment += segment + kRoundLarge;  // segments are apart: they never merge
        m_reserved += segment;
        m_blocks[address] = BlockState{segment, false, large, address};
    } else {
        address = found->second;
        free.erase(found);
    }
    BlockState& block = m_blocks.at(address);
    const std::int64_t rest = block.size - size;
    if (large ? rest > kSmallSize : rest >= kMinBlockSize) {  // should_split
        const BlockState remainder{rest, false, large, block.segment};
        block.size = size;
        m_blocks[address + size] = remainder;  // a map insert: `block` stays valid
        insertFree(address + size, remainder);
    }
    block.allocated = true;
    m_allocated += block.size;
    return address;
}

void CudaCachingAllocator::free(std::int64_t address)
{
    auto it = m_blocks.find(address);
    if (it == m_blocks.end() || !it->second.allocated)
        throw std::logic_error("CudaCachingAllocator: no block allocated at " + std::to_string(address));
    it->second.allocated = false;
    m_allocated -= it->second.size;
    // free_block: merge with the free neighbours of the same segment.
    if (auto next = std::next(it); next != m_blocks.end() && !next->second.allocated &&
                                   next->second.segment == it->second.segment) {
        pool(next->second.large).erase({next->second.size, next->first});
        it->second.size += next->second.size;
        m_blocks.erase(next);
    }
    if (it != m_blocks.begin()) {
        auto prev = std::prev(it);
        if (!prev->second.allocated && prev->second.segment == it->second.segment) {
            pool(prev->second.large).erase({prev->second.size, prev->first});
            prev->second.size += it->second.size;
            m_blocks.erase(it);
            it = prev;
        }
    }
    insertFree(it->first, it->second);
}

std::int64_t CudaCachingAllocator::blockSize(std::int64_t address) const
{
    const auto it = m_blocks.find(address);
    if (it == m_blocks.end())
        throw std::logic_error("CudaCachingAllocator: no block at " + std::to_string(address));
    return it->second.size;
}

void CudaCachingAllocator::addSegment(bool largePool, const std::vector<Block>& blocks)
{
    if (blocks.empty())
        return;
    const std::int64_t segment = blocks.front().address;
    std::int64_t end = segment;
    for (const Block& b : blocks) {
        if (b.address != end || b.size <= 0)
            throw std::invalid_argument("CudaCachingAllocator: a segment's blocks must be contiguous and non-empty");
        const BlockState state{b.size, b.allocated, largePool, segment};
        m_blocks[b.address] = state;
        if (b.allocated)
            m_allocated += b.size;
        else
            insertFree(b.address, state);
        end += b.size;
    }
    m_reserved += end - segment;
    if (end + kRoundLarge > m_nextSegment)
        m_nextSegment = end + kRoundLarge;
}

std::vector<CudaCachingAllocator::Block> CudaCachingAllocator::blocks() const
{
    std::vector<Block> out;
    out.reserve(m_blocks.size());
    for (const auto& [address, state] : m_blocks)
        out.push_back({address, state.size, state.allocated});
    return out;
}

}  // namespace ckpt
