// ckptx import-snapshot: a PyTorch CUDA memory snapshot as a measured trace (docs/FORMAT.md).
#include "Cli.h"

#include "graph/GraphError.h"
#include "io/GraphJson.h"
#include "io/MemorySnapshot.h"
#include "io/TextFile.h"
#include "memory/SnapshotTrace.h"

#include <charconv>
#include <filesystem>
#include <iostream>

namespace ckptx {

namespace {

int parseDevice(const std::string& text)
{
    int device = -1;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), device);
    if (ec != std::errc() || end != text.data() + text.size() || device < 0)
        throw UsageError("--device needs a CUDA device number, got \"" + text + "\"");
    return device;
}

int runImportSnapshot(const std::vector<std::string>& argv)
{
    Args args(argv, {"--graph", "--device", "-o"}, {});
    args.expectPositional({"SNAPSHOT"});
    const std::string path = args.positional()[0];
    const std::string output = args.requireOption("-o");
    ckpt::SnapshotImportOptions options;
    if (auto device = args.option("--device"))
        options.device = parseDevice(*device);
    std::optional<ckpt::Graph> graph;
    if (auto graphPath = args.option("--graph")) {
        graph = ckpt::readGraphFile(*graphPath);
        options.graph = &*graph;
    }
    options.model = std::filesystem::path(path).filename().string();

    const ckpt::MemorySnapshot snapshot = ckpt::readMemorySnapshotFile(path);
    ckpt::SnapshotImport imported;
    try {
        imported = ckpt::traceFromSnapshot(snapshot, options);
    } catch (const ckpt::GraphError& e) {
        throw e.inFile(path);
    }
    ckpt::writeTextFileAtomically(output, ckpt::toTraceJson(imported.trace));

    const ckpt::ProfileTrace& trace = imported.trace;
    std::cout << "device " << trace.snapshotDevice << ": " << trace.timeline.size() << " samples, "
              << trace.timeline.front().allocatedBytes << " requested bytes at the start of the history";
    if (!trace.checkpointed.phases.empty() || !trace.regular.phases.empty())
        std::cout << "; " << imported.completeSteps << " marked steps, the last mapped onto the graph's phases";
    else if (imported.phaseMarkers)
        std::cout << "; phase markers found, give --graph to map them";
    else
        std::cout << "; no ckptx:phase markers (a curve over time)";
    std::cout << "\n";
    if (imported.oomEvents > 0)
        std::cout << "note: the run hit " << imported.oomEvents << " out-of-memory event(s)\n";
    return Ok;
}

const CommandRegistration importSnapshot{
    {"import-snapshot", "import-snapshot SNAPSHOT.pickle [--graph GRAPH.json] [--device N] -o TRACE.json",
     "a PyTorch memory snapshot (torch.cuda.memory._dump_snapshot) as a measured trace: the bytes tensors requested over "
     "time, and per training phase when the run marked them (docs/FORMAT.md)",
     &runImportSnapshot}};

}  // namespace

}  // namespace ckptx
