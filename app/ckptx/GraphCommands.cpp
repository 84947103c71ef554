// ckptx info / validate / convert: the graph itself.
#include "Cli.h"

#include "graph/GraphError.h"
#include "io/GraphJson.h"

#include <iostream>

namespace ckptx {

namespace {

nlohmann::json describe(const ckpt::Graph& g)
{
    int backward = 0, virtualCount = 0;
    for (const auto& v : g.vertices()) {
        backward += v.backward;
        virtualCount += v.isVirtual;
    }
    return {{"name", g.name()},
            {"vertices", g.vertexCount()},
            {"edges", g.edgeCount()},
            {"total_bytes", g.totalBytes()},
            {"source", g.vertex(g.source()).id},
            {"sink", g.vertex(g.sink()).id},
            {"is_chain", g.isChain()},
            {"virtual_vertices", virtualCount},
            {"backward_vertices", backward}};
}

int runInfo(const std::vector<std::string>& argv)
{
    Args args(argv, {}, {"--json"});
    args.expectPositional({"GRAPH"});
    const auto graph = ckpt::readGraphFile(args.positional()[0]);
    auto info = describe(graph);
    if (args.flag("--json")) {
        printJson(info);
        return Ok;
    }
    std::cout << "name:        " << graph.name() << "\n"
              << "vertices:    " << graph.vertexCount() << " (" << info["virtual_vertices"].get<int>()
              << " virtual, " << info["backward_vertices"].get<int>() << " backward)\n"
              << "edges:       " << graph.edgeCount() << "\n"
              << "total bytes: " << graph.totalBytes() << "\n"
              << "source:      " << graph.vertex(graph.source()).id << "\n"
              << "sink:        " << graph.vertex(graph.sink()).id << "\n"
              << "chain:       " << (graph.isChain() ? "yes" : "no") << "\n";
    return Ok;
}

int runValidate(const std::vector<std::string>& argv)
{
    Args args(argv, {}, {"--json"});
    args.expectPositional({"GRAPH"});
    const std::string& path = args.positional()[0];
    try {
        const auto graph = ckpt::readGraphFile(path);
        if (args.flag("--json"))
            printJson({{"file", path}, {"valid", true}, {"vertices", graph.vertexCount()}, {"edges", graph.edgeCount()}});
        else
            std::cout << path << ": valid (" << graph.vertexCount() << " vertices, " << graph.edgeCount()
                      << " edges)\n";
        return Ok;
    } catch (const ckpt::GraphError& e) {
        if (args.flag("--json"))
            printJson({{"file", path}, {"valid", false}, {"error", e.what()}, {"where", e.where()}});
        printError(e.what());
        return InvalidInput;
    }
}

int runConvert(const std::vector<std::string>& argv)
{
    Args args(argv, {}, {"--json"});
    args.expectPositional({"IN", "OUT"});
    const auto graph = ckpt::readGraphFile(args.positional()[0]);
    ckpt::writeGraphFile(args.positional()[1], graph);
    if (args.flag("--json"))
        printJson({{"written", args.positional()[1]}, {"vertices", graph.vertexCount()}, {"edges", graph.edgeCount()}});
    return Ok;
}

const CommandRegistration info{{"info", "info GRAPH [--json]",
                                "vertices, edges, total bytes, source, sink, whether it is a chain", &runInfo}};
const CommandRegistration validate{{"validate", "validate GRAPH [--json]", "check a graph file; exit 1 if invalid",
                                    &runValidate}};
const CommandRegistration convert{{"convert", "convert IN OUT [--json]",
                                   "read any supported format, write ours (atomically)", &runConvert}};

}  // namespace

}  // namespace ckptx
