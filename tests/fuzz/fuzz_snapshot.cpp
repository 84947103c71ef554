// libFuzzer target: any bytes through the memory-snapshot reader (PickleReader, MemorySnapshot,
// SnapshotTrace with a small graph). Only GraphError may come out; a crash, hang, sanitizer
// report or any other exception is a bug.
// fuzz-seeds: tests/data/snapshots
#include "graph/GraphError.h"
#include "io/MemorySnapshot.h"
#include "memory/SnapshotTrace.h"

#include "graph/GraphBuilder.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace {

// input -> a -> out, the graph of tests/data/snapshots (trace phases 0..7).
const ckpt::Graph& chain()
{
    static const ckpt::Graph graph = [] {
        ckpt::GraphBuilder builder;
        builder.addVertex({.id = "input", .bytes = 1024});
        builder.addVertex({.id = "a", .bytes = 4096});
        builder.addVertex({.id = "out", .bytes = 512});
        builder.addEdge("input", "a");
        builder.addEdge("a", "out");
        return builder.build();
    }();
    return graph;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    try {
        const auto snapshot = ckpt::parseMemorySnapshot(std::string_view(reinterpret_cast<const char*>(data), size));
        ckpt::SnapshotImportOptions options;
        options.graph = &chain();
        options.device = size % 2 == 0 ? std::optional<int>{} : std::optional<int>{0};
        ckpt::traceFromSnapshot(snapshot, options);
    } catch (const ckpt::GraphError&) {
    }
    return 0;
}
