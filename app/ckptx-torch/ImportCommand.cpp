// ckptx-torch import: a TorchScript model to a graph file.
#include "Cli.h"

#include "io/GraphJson.h"
#include "torch/TorchImport.h"

#include <chrono>
#include <iostream>

namespace ckptx {

namespace {

int runImport(const std::vector<std::string>& argv)
{
    Args args(argv, {"--input", "--dtype", "--granularity", "-o"}, {"--json"});
    args.expectPositional({"MODEL"});
    ckpt::torchx::ImportOptions options;
    options.modelPath = args.positional()[0];
    try {
        options.inputShape = ckpt::torchx::parseInputShape(args.requireOption("--input"));
        options.granularity = ckpt::torchx::parseGranularity(args.option("--granularity").value_or("op"));
        options.dtype = args.option("--dtype").value_or("float32");
        ckpt::torchx::checkDtype(options.dtype);
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
    {"import", "import MODEL.pt --input 1x3x224x224 [--dtype float32] [--granularity op|module] -o GRAPH.json [--json]",
     "run a TorchScript model once and write its graph (tensor shapes, bytes, FLOPs)", &runImport}};

}  // namespace

}  // namespace ckptx
