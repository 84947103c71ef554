// libFuzzer target: graph files in either format (ours and networkx node-link).
// fuzz-seeds: resources/examples ../shared/data/checkmate-graphs
// Bad input must end in a GraphError; a graph that loads must survive a round trip unchanged.
#include "graph/GraphError.h"
#include "graph/GraphFingerprint.h"
#include "io/GraphJson.h"

#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string text(reinterpret_cast<const char*>(data), size);
    try {
        const ckpt::Graph graph = ckpt::parseGraphJson(text, "fuzz.json");
        const ckpt::Graph back = ckpt::parseGraphJson(ckpt::toGraphJson(graph), "round-trip.json");
        if (ckpt::graphFingerprint(back) != ckpt::graphFingerprint(graph))
            std::abort();
    } catch (const ckpt::GraphError&) {
    }
    return 0;
}
