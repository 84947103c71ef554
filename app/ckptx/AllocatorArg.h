#pragma once
// --allocator requested|cuda (simulate, max-batch): whether a peak counts the bytes tensors request
// or the CUDA caching allocator's blocks (docs/MEMORY-MODEL.md, rule A1).
#include "Cli.h"

#include "memory/MemoryProfile.h"

namespace ckptx {

// The --allocator value, `fallback` when it is not given; an unknown name is a usage error.
inline ckpt::MemoryCount allocatorOption(const Args& args, ckpt::MemoryCount fallback)
{
    const auto allocator = args.option("--allocator");
    if (!allocator)
        return fallback;
    try {
        return ckpt::parseMemoryCount(*allocator);
    } catch (const std::invalid_argument& e) {
        throw UsageError(e.what());
    }
}

}  // namespace ckptx
