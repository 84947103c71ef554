#pragma once
// Bookkeeping shared by the memory models: allocations and frees of values, gradients and
// the output-gradient buffer, grouped into training phases (see MemoryProfile.h).
#include "graph/GradientFlow.h"
#include "graph/Graph.h"
#include "memory/MemoryProfile.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace ckpt {

class CudaCachingAllocator;

class MemoryTrace {
public:
    // recordLive: keep the names live at each phase's peak (costs O(live) per new peak).
    MemoryTrace(const Graph& graph, bool recordLive);

    // Ends the current phase (if any) and starts `index`; its peak starts at what is live.
    void beginPhase(int index);
    void allocValue(VertexIndex v) { alloc(v, m_graph.bytes(v)); }
    void freeValue(VertexIndex v)
    {
        release(v);
        release(apartItem(v));
    }
    // P52: of v's value, a tensor that goes before the others: counted off until the value goes.
    void releaseApart(VertexIndex v, std::int64_t bytes);
    bool hasValue(VertexIndex v) const { return m_position[v] >= 0; }
    void allocGradient(VertexIndex v) { alloc(m_n + v, gradientBytes(m_graph.vertex(v))); }
    void freeGradient(VertexIndex v) { release(m_n + v); }
    bool hasGradient(VertexIndex v) const { return m_position[m_n + v] >= 0; }
    // v's gradient is another's tensor (P15): live, of no bytes of its own.
    void shareGradient(VertexIndex v) { alloc(m_n + v, 0); }
    bool sharesGradient(VertexIndex v) const { return hasGradient(v) && m_itemBytes[m_n + v] == 0; }
    void allocBuffer(std::int64_t bytes) { alloc(2 * m_n, bytes); }
    // The gradients of the parameters vertex v's operation reads (Vertex::parameterBytes; P33: less
    // the tied ones, which wait apart).
    void allocParameterGradient(VertexIndex v, std::int64_t bytes) { alloc(2 * m_n + 1 + v, bytes); }
    void freeParameterGradient(VertexIndex v) { release(2 * m_n + 1 + v); }
    // P33: the part of them (tied weights) that waits in autograd's engine for the other readers'.
    void allocTiedGradient(VertexIndex v) { allocTiedGradient(v, m_graph.vertex(v).autograd->tiedParameterBytes); }
    // P59: or the sum of the readers' gradients begun by another reader's backward, of `bytes`.
    void allocTiedGradient(VertexIndex v, std::int64_t bytes) { alloc(8 * m_n + 2 + v, bytes); }
    void freeTiedGradient(VertexIndex v) { release(8 * m_n + 2 + v); }
    // P20: the gradients v's backward forms for what parameters alone compute, held past it.
    void allocStaticGradient(VertexIndex v) { alloc(6 * m_n + 1 + v, m_graph.vertex(v).autograd->staticGradientBytes); }
    void freeStaticGradient(VertexIndex v) { release(6 * m_n + 1 + v); }
    bool hasStaticGradient(VertexIndex v) const { return m_position[6 * m_n + 1 + v] >= 0; }
    // P44: the live copies of what parameters alone compute that v reads first and later vertices too.
    void allocStaticValue(VertexIndex v, std::int64_t bytes) { alloc(9 * m_n + 2 + v, bytes); }
    void freeStaticValue(VertexIndex v) { release(9 * m_n + 2 + v); }
    bool hasStaticValue(VertexIndex v) const { return m_position[9 * m_n + 2 + v] >= 0; }
    // What autograd saves for v's backward beyond its inputs and output (Vertex::savedBytes).
    void allocSaved(VertexIndex v, std::int64_t bytes) { alloc(3 * m_n + 1 + v, bytes); }
    void freeSaved(VertexIndex v) { release(3 * m_n + 1 + v); }
    bool hasSaved(VertexIndex v) const { return m_position[3 * m_n + 1 + v] >= 0; }
    void freeBuffer() { release(2 * m_n); }
    // P22: the random-number state the checkpointed function whose first vertex is v stashes.
    void allocRngState(VertexIndex v, std::int64_t bytes) { alloc(7 * m_n + 1 + v, bytes); }
    void freeRngState(VertexIndex v) { release(7 * m_n + 1 + v); }
    // P22: the state a re-forward's fork_rng stashes while it runs.
    void allocRngFork(std::int64_t bytes) { alloc(8 * m_n + 1, bytes); }
    void freeRngFork() { release(8 * m_n + 1); }
    // A second copy of v made while its checkpointed function is re-forwarded (P9).
    void allocCopy(VertexIndex v) { alloc(5 * m_n + 1 + v, m_graph.bytes(v)); }
    void freeCopy(VertexIndex v) { release(5 * m_n + 1 + v); }
    bool hasCopy(VertexIndex v) const { return m_position[5 * m_n + 1 + v] >= 0; }
    // Operator scratch memory of vertex v (P8): counted in the phase's peak, freed at once.
    void touchWorkspace(VertexIndex v, std::int64_t bytes);
    std::int64_t liveBytes() const { return m_current; }
    // Rule A1: each item of bytes becomes one block of `allocator`, and the phases count the blocks'
    // sizes (torch.cuda.memory_allocated()) instead of the bytes requested.
    void countBlocksOf(CudaCachingAllocator* allocator) { m_allocator = allocator; }

    // With an allocator, also frees what is still live (the step's input, the weights' gradients).
    // The phases by index; with `phaseCount`, one that never began (an input's backward, P21) is
    // filled in as a profile lists a phase nothing happened in: it ends where the one before it ended.
    MemoryProfile finish(MemoryModel model, int phaseCount = 0);

private:
    int apartItem(VertexIndex v) const { return 10 * m_n + 2 + v; }
    void alloc(int item, std::int64_t bytes);
    void release(int item);
    void snapshotIfPending();
    void endPhase();
    void releaseAll();
    std::string itemName(int item) const;

    const Graph& m_graph;
    const int m_n;
    const bool m_recordLive;
    // Per item, set when it is allocated and read only while it is live: left uninitialised, as the
    // simulators make a trace per plan they evaluate (the peak search, thousands).
    std::unique_ptr<std::int64_t[]> m_itemBytes;
    std::vector<int> m_position;  // index into m_live, -1 when not live
    std::vector<int> m_live;
    std::int64_t m_current = 0;
    bool m_peakPending = false;  // a new phase peak was reached and not yet snapshotted
    std::vector<PhaseMemory> m_phases;
    CudaCachingAllocator* m_allocator = nullptr;
    std::vector<std::int64_t> m_block;  // per item, its block's address (with an allocator)
};

}  // namespace ckpt
