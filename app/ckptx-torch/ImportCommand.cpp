// ckptx-torch import: a TorchScript model to a graph file.
#include "Cli.h"
#include "InputOptions.h"

#include "io/GraphJson.h"
#include "torch/TorchImport.h"

#include <chrono>
#include <iostream>

namespace ckptx {

namespace {

int runImport(const std::vector<std::string>& argv)
{
    Args args(argv, {"--input", "--dtype", "--batch-dim", "--granularity", "-o"}, {"--json"});
    args.expectPositional({"MODEL"});
    ckpt::torchx::ImportOptions options;
    options.modelPath = args.positional()[0];
    readInputOptions(args, options);
    if (options.inputs.empty())
        throw UsageError("missing required option --input (one per argument of the model's forward)");
    try {
        options.granularity = ckpt::torchx::parseGranularity(args.option("--granularity").value_or("op"));
        const std::string batchDim = args.option("--batch-dim").value_or("0");
        if (batchDim.empty() || batchDim.size() > 2 || batchDim.find_first_not_of("0123456789") != std::string::npos)
            throw std::invalid_argument("--batch-dim must be a dimension index (0, 1, ...), got \"" + batchDim + "\"");
        options.batchDim = std::stoi(batchDim);
        ckpt::torchx::checkBatchDim(options.inputs, options.batchDim);
    } catch (const std::invalid_argument& e) {
        throw UsageError(e.what());
    }
    const std::string out = args.requireOption("-o");

    const auto start = std::chrono::steady_clock::now();
    const ckpt::Graph graph = ckpt::torchx::importTorchScript(options);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    ckpt::writeGraphFile(out, graph);
    if (args.flag("--json"))
        printJson({{"written", out},
                   {"vertices", graph.vertexCount()},
                   {"edges", graph.edgeCount()},
                   {"total_bytes", graph.totalBytes()},
                   {"import_seconds", seconds}});
    else
        std::cout << out << ": " << graph.vertexCount() << " vertices, " << graph.edgeCount() << " edges ("
                  << seconds << " s)\n";
    return Ok;
}

const CommandRegistration import{
    {"import",
     "import MODEL.pt --input SHAPE[:DTYPE[:HIGH]] [--input ...] [--dtype float32] [--batch-dim 0] [--granularity op|module] "
     "-o GRAPH.json [--json]",
     "run a TorchScript model once on random inputs (one --input per forward argument: 1x3x224x224, 4x64:int64, "
     "4x64:int64:1000) and write its graph (tensor shapes, bytes, FLOPs)",
     &runImport}};

}  // namespace

}  // namespace ckptx
