#include "memory/MemoryTrace.h"

#include "memory/CudaCachingAllocator.h"

#include <algorithm>
#include <stdexcept>

namespace ckpt {

std::string memoryModelName(MemoryModel model)
{
    return model == MemoryModel::Chen ? "chen" : "pytorch";
}

MemoryModel parseMemoryModel(const std::string& name)
{
    if (name == "chen")
        return MemoryModel::Chen;
    if (name == "pytorch")
        return MemoryModel::PyTorch;
    throw std::invalid_argument("unknown memory model \"" + name + "\" (known: chen, pytorch)");
}

std::string memoryCountName(MemoryCount count)
{
    return count == MemoryCount::Requested ? "requested" : "cuda";
}

MemoryCount parseMemoryCount(const std::string& name)
{
    if (name == "requested")
        return MemoryCount::Requested;
    if (name == "cuda")
        return MemoryCount::CudaBlocks;
    throw std::invalid_argument("unknown allocator \"" + name + "\" (known: requested, cuda)");
}

MemoryTrace::MemoryTrace(const Graph& graph, bool recordLive)
    : m_graph(graph), m_n(graph.vertexCount()), m_recordLive(recordLive),
      m_itemBytes(std::make_unique_for_overwrite<std::int64_t[]>(11 * m_n + 2)), m_position(11 * m_n + 2, -1)
{
}

void MemoryTrace::endPhase()
{
    snapshotIfPending();
    if (!m_phases.empty())
        m_phases.back().endBytes = m_current;
}

void MemoryTrace::beginPhase(int index)
{
    endPhase();
    PhaseMemory phase;
    phase.index = index;
    phase.peakBytes = m_current;
    m_phases.push_back(std::move(phase));
    m_peakPending = true;
}

void MemoryTrace::releaseApart(VertexIndex v, std::int64_t bytes)
{
    if (!hasValue(v) || bytes <= 0)
        return;
    const int item = apartItem(v);
    const std::int64_t before = m_position[item] >= 0 ? m_itemBytes[item] : 0;
    release(item);
    alloc(item, before - bytes);  // no block of its own: the allocator's blocks go with the value (A1)
}

void MemoryTrace::touchWorkspace(VertexIndex v, std::int64_t bytes)
{
    if (bytes <= 0)
        return;
    alloc(4 * m_n + 1 + v, bytes);
    release(4 * m_n + 1 + v);
}

void MemoryTrace::alloc(int item, std::int64_t bytes)
{
    if (m_position[item] >= 0)
        throw std::logic_error("memory model allocated " + itemName(item) + " twice");
    if (m_allocator != nullptr && bytes > 0) {
        if (m_block.empty())
            m_block.resize(m_position.size());
        m_block[item] = m_allocator->allocate(bytes);
        bytes = m_allocator->blockSize(m_block[item]);
    }
    m_itemBytes[item] = bytes;
    m_position[item] = static_cast<int>(m_live.size());
    m_live.push_back(item);
    m_current += bytes;
    if (!m_phases.empty() && m_current > m_phases.back().peakBytes) {
        m_phases.back().peakBytes = m_current;
        m_peakPending = true;
    }
}

void MemoryTrace::release(int item)
{
    const int pos = m_position[item];
    if (pos < 0)
        return;
    snapshotIfPending();
    m_live[pos] = m_live.back();
    m_position[m_live[pos]] = pos;
    m_live.pop_back();
    m_position[item] = -1;
    m_current -= m_itemBytes[item];
    if (m_allocator != nullptr && m_itemBytes[item] > 0)
        m_allocator->free(m_block[item]);
}

void MemoryTrace::releaseAll()
{
    while (!m_live.empty())
        release(m_live.back());
}

void MemoryTrace::snapshotIfPending()
{
    if (!m_peakPending || m_phases.empty())
        return;
    m_peakPending = false;
    if (!m_recordLive)
        return;
    std::vector<int> items = m_live;
    std::sort(items.begin(), items.end());
    auto& live = m_phases.back().live;
    live.clear();
    for (int item : items)
        live.push_back(itemName(item));
}

std::string MemoryTrace::itemName(int item) const
{
    if (item < m_n)
        return m_graph.vertex(item).id;
    if (item < 2 * m_n)
        return "grad:" + m_graph.vertex(item - m_n).id;
    if (item == 2 * m_n)
        return "grad-buffer";
    if (item <= 3 * m_n)
        return "param-grad:" + m_graph.vertex(item - 2 * m_n - 1).id;
    if (item <= 4 * m_n)
        return "saved:" + m_graph.vertex(item - 3 * m_n - 1).id;
    if (item <= 5 * m_n)
        return "workspace:" + m_graph.vertex(item - 4 * m_n - 1).id;
    if (item <= 6 * m_n)
        return "copy:" + m_graph.vertex(item - 5 * m_n - 1).id;
    if (item <= 7 * m_n)
        return "static-grad:" + m_graph.vertex(item - 6 * m_n - 1).id;
    if (item <= 8 * m_n)
        return "rng-state:" + m_graph.vertex(item - 7 * m_n - 1).id;
    if (item == 8 * m_n + 1)
        return "rng-fork";
    if (item <= 9 * m_n + 1)
        return "tied-grad:" + m_graph.vertex(item - 8 * m_n - 2).id;
    if (item <= 10 * m_n + 1)
        return "static-value:" + m_graph.vertex(item - 9 * m_n - 2).id;
    return "released-apart:" + m_graph.vertex(item - 10 * m_n - 2).id;
}

MemoryProfile MemoryTrace::finish(MemoryModel model, int phaseCount)
{
    endPhase();
    // Phases run in the plan's order (P18), and are listed by index.
    std::stable_sort(m_phases.begin(), m_phases.end(),
                     [](const PhaseMemory& a, const PhaseMemory& b) { return a.index < b.index; });
    if (static_cast<int>(m_phases.size()) < phaseCount) {
        std::vector<PhaseMemory> all;
        all.reserve(phaseCount);
        std::size_t next = 0;
        for (int index = 0; index < phaseCount; ++index) {
            if (next < m_phases.size() && m_phases[next].index == index) {
                all.push_back(std::move(m_phases[next++]));
                continue;
            }
            PhaseMemory empty;
            empty.index = index;
            empty.endBytes = empty.peakBytes = all.empty() ? 0 : all.back().endBytes;
            all.push_back(std::move(empty));
        }
        m_phases = std::move(all);
    }
    MemoryProfile profile;
    profile.model = model;
    profile.peakBytes = -1;
    for (const PhaseMemory& p : m_phases)
        if (p.peakBytes > profile.peakBytes) {
            profile.peakBytes = p.peakBytes;
            profile.peakPhase = p.index;
        }
    profile.phases = std::move(m_phases);
    if (m_allocator != nullptr)
        releaseAll();  // the next step starts without them (p.grad = None), from the same cache
    return profile;
}

}  // namespace ckpt
