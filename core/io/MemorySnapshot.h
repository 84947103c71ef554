#pragma once
// A PyTorch CUDA memory snapshot (torch.cuda.memory._dump_snapshot: a pickled dict) as the
// allocation history per device. What is read (torch 2.x, torch/csrc/cuda/Module.cpp):
//   segments[]: {device, segment_type, blocks[]: {address, size, requested_size, state}} — the
//     allocator's state when it was dumped;
//   device_traces[d][]: {action, addr, size, time_us} with action alloc | free_requested |
//     free_completed | segment_alloc | segment_free | oom | … and, in torch 2.4, user_defined
//     entries whose frames[0] is {name: START|END, filename: <record_function name>};
//   external_annotations[] (torch ≥ 2.5): {device, time_us, stage: START|END, name}.
// Allocated bytes follow torch.cuda.memory_allocated(): an alloc adds its block size, a
// free_requested removes it (the caching allocator lowers allocated_bytes when the free is
// requested; free_completed only ends the stream wait).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ckpt {

struct SnapshotEvent {
    enum class Action : std::uint8_t { Alloc, Free, Oom, AnnotationStart, AnnotationEnd, Other };
    Action action = Action::Other;
    std::int64_t size = 0;
    std::int64_t address = -1;  // the block's (alloc, free), -1 where the entry has none
    std::int64_t timeUs = -1;  // -1 when the snapshot has no timestamps (torch < 2.2)
    std::string name;          // of an annotation
    std::size_t offset = 0;    // byte offset of the entry in the pickle, for errors
};

// A segment as dumped: its blocks in address order (block sizes; requested bytes where allocated).
struct SnapshotSegment {
    bool large = false;  // segment_type "large"
    struct Block {
        std::int64_t address = 0;
        std::int64_t size = 0;
        std::int64_t requested = 0;
        bool allocated = false;  // state active_allocated
    };
    std::vector<Block> blocks;
};

struct DeviceHistory {
    int device = 0;
    std::vector<SnapshotEvent> events;     // in the order they happened
    std::int64_t allocatedAtDump = 0;      // requested bytes of its segments' active_allocated blocks
    std::vector<SnapshotSegment> segments;  // where the dump gives addresses (torch 2.x)
};

struct MemorySnapshot {
    std::vector<DeviceHistory> devices;  // device_traces order: devices[d].device == d
};

inline constexpr std::size_t kMaxSnapshotBytes = std::size_t(1) << 30;

// Throws GraphError("…", "byte N (device_traces/0/12/size)") for a malformed snapshot, with `file`.
MemorySnapshot parseMemorySnapshot(std::string_view bytes, const std::string& file = "<input>");
// A regular file of at most kMaxSnapshotBytes, then parseMemorySnapshot.
MemorySnapshot readMemorySnapshotFile(const std::string& path);

}  // namespace ckpt
