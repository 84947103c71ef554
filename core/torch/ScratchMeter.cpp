#include "ScratchMeter.h"

#include <algorithm>

namespace ckpt::torchx {

void ScratchMeter::allocated(const void* block, std::int64_t bytes)
{
    std::lock_guard lock(m_mutex);
    // The allocator may hand out the address of a block freed since mark(): this one is fresh (a
    // gradient left in a leaf's .grad read as scratch once, P24 2 MB high on one of four identical
    // attention groups, depending on where malloc put it).
    m_blocks[block] = {bytes, false};
    m_bytes += bytes;
    m_peak = std::max(m_peak, m_bytes);
}

void ScratchMeter::freed(const void* block)
{
    std::lock_guard lock(m_mutex);
    auto it = m_blocks.find(block);
    if (it == m_blocks.end())
        return;
    m_bytes -= it->second.bytes;
    m_blocks.erase(it);
}

void ScratchMeter::start()
{
    std::lock_guard lock(m_mutex);
    m_blocks.clear();
    m_bytes = m_peak = m_base = 0;
}

void ScratchMeter::mark()
{
    std::lock_guard lock(m_mutex);
    m_base = m_peak = m_bytes;
    for (auto& [address, block] : m_blocks)
        block.heldAtMark = true;
}

std::int64_t ScratchMeter::transientSinceMark() const
{
    std::lock_guard lock(m_mutex);
    std::int64_t fresh = 0;
    for (const auto& [address, block] : m_blocks)
        if (!block.heldAtMark)
            fresh += block.bytes;
    return std::max<std::int64_t>(0, m_peak - m_base - fresh);
}

std::int64_t ScratchMeter::riseSinceMark() const
{
    std::lock_guard lock(m_mutex);
    return m_peak - m_base;
}

std::int64_t ScratchMeter::transient() const
{
    std::lock_guard lock(m_mutex);
    return m_peak - m_bytes;
}

std::int64_t ScratchMeter::held() const
{
    std::lock_guard lock(m_mutex);
    return m_bytes;
}

}  // namespace ckpt::torchx
