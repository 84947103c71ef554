#pragma once

#include <cstdint>
#include <mutex>
#include <unordered_map>

namespace ckpt::torchx {

// Scratch memory of one run, told block by block (by c10's memory reporting in ckptx-torch, as the
// profiler measures): the largest total of the blocks allocated since start() and still live,
// minus what is still live at the end. Frees of older blocks do not count, so what the run
// releases of its inputs cannot hide what it allocates. Torch-free, so it is tested alone.
class ScratchMeter {
public:
    void allocated(const void* block, std::int64_t bytes);
    void freed(const void* block);

    void start();
    // A measurement that goes on from what the run so far holds: frees of those blocks count from
    // here (what a backward releases of what its forward saved), as allocations do.
    void mark();
    // Since mark(): the largest rise above what was held then, minus what the blocks allocated
    // since and still live hold.
    std::int64_t transientSinceMark() const;
    // Since mark(): the largest rise above what was held then, what is live at the end included.
    std::int64_t riseSinceMark() const;
    // Since start(): the peak minus what is held at the end.
    std::int64_t transient() const;
    // What the run allocated and still holds.
    std::int64_t held() const;

private:
    struct Block {
        std::int64_t bytes = 0;
        bool heldAtMark = false;  // live at mark(); a block allocated since, at any address, is not
    };
    mutable std::mutex m_mutex;
    std::unordered_map<const void*, Block> m_blocks;  // the live ones
    std::int64_t m_bytes = 0, m_peak = 0, m_base = 0;
};

}  // namespace ckpt::torchx
