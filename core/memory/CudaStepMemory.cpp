#include "memory/CudaStepMemory.h"

#include "memory/CudaCachingAllocator.h"
#include "memory/PlanMemory.h"

#include <stdexcept>

namespace ckpt {

MemoryCount exportDeviceMemoryCount(const Graph& graph)
{
    const auto it = graph.metadata().find("device");
    return it != graph.metadata().end() && it->second.rfind("\"cuda", 0) == 0 ? MemoryCount::CudaBlocks
                                                                               : MemoryCount::Requested;
}

MemoryProfile simulateCudaStepMemory(const Graph& graph, const PlanEvaluation& plan, bool recordLive)
try {
    CudaCachingAllocator allocator;
    // The weights, and (P33) the gradients an accumulation step finds.
    const int copies = stepAccumulatesGradients(graph) ? 2 : 1;
    for (int copy = 0; copy < copies; ++copy)
        for (VertexIndex v = 0; v < graph.vertexCount(); ++v)
            if (const std::int64_t bytes = graph.vertex(v).autograd->parameterBytes; bytes > 0)
                allocator.allocate(bytes);
    const PlanEvaluation regular = evaluate(graph, graph.topologicalOrder());
    auto step = [&](const PlanEvaluation& p, bool record) {
        return simulatePlanMemory(graph, p, MemoryModel::PyTorch, record, &allocator);
    };
    // Segments only grow; a pair of steps that adds none leaves the cache as every later pair finds it.
    constexpr int kMostWarmUpPairs = 8;
    for (int pair = 0; pair < kMostWarmUpPairs; ++pair) {
        const std::int64_t reserved = allocator.reservedBytes();
        step(regular, false);
        step(plan, false);
        if (pair > 0 && allocator.reservedBytes() == reserved)
            break;
    }
    step(regular, false);
    return step(plan, recordLive);
} catch (const std::overflow_error&) {
    // Sizes beyond any GPU (CudaCachingAllocator::kMostBytes): there a block exceeds its request by
    // under a billionth, and the requested bytes are the answer.
    return simulatePlanMemory(graph, plan, MemoryModel::PyTorch, recordLive);
}

}  // namespace ckpt
