// libFuzzer target: plan files, read against a chain graph so that schedules are parsed too.
// fuzz-seeds: tests/fuzz/seeds/plan
// Bad input must end in a GraphError; a plan that loads must be written and read back.
#include "graph/GraphError.h"
#include "io/GraphJson.h"
#include "io/PlanJson.h"

#include <cstdint>
#include <string>

namespace {

const ckpt::Graph& chainGraph()
{
    static const ckpt::Graph graph = ckpt::readGraphFile(CKPT_SOURCE_DIR "/resources/examples/supp-fig2-chain.json");
    return graph;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string text(reinterpret_cast<const char*>(data), size);
    try {
        const ckpt::Plan plan = ckpt::parsePlanJson(chainGraph(), text, "fuzz.json");
        ckpt::parsePlanJson(chainGraph(), ckpt::toPlanJson(chainGraph(), plan), "round-trip.json");
    } catch (const ckpt::GraphError&) {
    }
    return 0;
}
