// libFuzzer target: profile traces (ckptx-torch profile's TRACE.json).
// fuzz-seeds: tests/fuzz/seeds/trace
// Bad input must end in a GraphError; a trace that loads must be written and read back.
#include "graph/GraphError.h"
#include "io/TraceJson.h"

#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string text(reinterpret_cast<const char*>(data), size);
    try {
        const ckpt::ProfileTrace trace = ckpt::parseTraceJson(text, "fuzz.json");
        ckpt::parseTraceJson(ckpt::toTraceJson(trace), "round-trip.json");
    } catch (const ckpt::GraphError&) {
    }
    return 0;
}
