#include "solvers/MaxBatch.h"

#include "graph/GraphBuilder.h"
#include "memory/PlanMemory.h"
#include "solvers/Comparison.h"
#include "solvers/SolverRegistry.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace ckpt {

std::optional<std::int64_t> recordedBatchSize(const Graph& graph)
{
    const auto it = graph.metadata().find("batch_size");
    if (it == graph.metadata().end())
        return std::nullopt;
    const auto value = nlohmann::json::parse(it->second, nullptr, false);
    if (!value.is_number_integer() || value.get<std::int64_t>() < 1)
        throw std::invalid_argument("/metadata/batch_size: must be a positive integer, got " + it->second);
    return value.get<std::int64_t>();
}

Graph graphAtBatch(const Graph& graph, std::int64_t fromBatch, std::int64_t toBatch)
{
    const long double factor = static_cast<long double>(toBatch) / static_cast<long double>(fromBatch);
    auto scaled = [factor](std::int64_t bytes) {
        const long double b = std::round(static_cast<long double>(bytes) * factor);
        if (b > 9.2e18L)
            throw std::overflow_error("sizes at this batch overflow 64 bits");
        return static_cast<std::int64_t>(b);
    };
    Graph out = withChangedVertices(graph, [&](Vertex& v) {
        if (!v.batchScaled)
            return;
        v.bytes = scaled(v.bytes);
        if (v.autograd.written()) {
            AutogradFacts& a = v.autograd.write();
            a.savedBytes = scaled(a.savedBytes);
            a.forwardWorkspaceBytes = scaled(a.forwardWorkspaceBytes);
            a.backwardWorkspaceBytes = scaled(a.backwardWorkspaceBytes);
            // P52: scaled by their running sums, so that they still add up to the vertex's bytes.
            std::int64_t before = 0, scaledBefore = 0;
            for (OutputTensor& tensor : a.tensors) {
                before += tensor.bytes;
                const std::int64_t upTo = scaled(before);
                tensor.bytes = upTo - scaledBefore;
                scaledBefore = upTo;
            }
            // P50: a gradient of tracked outputs stays at least a byte where its tensor has any.
            if (a.gradientBytes)
                a.gradientBytes = std::clamp(scaled(*a.gradientBytes), std::min<std::int64_t>(1, v.bytes), v.bytes);
            for (auto* measured : {&a.backwardWorkspaceReleasedBytes, &a.backwardReleasedRiseBytes,
                                   &a.firstBackwardNodeBytes, &a.backwardWorkspacePartlyReleasedBytes,
                                   &a.checkpointedForwardWorkspaceBytes, &a.copiedStaticsForwardWorkspaceBytes,
                                   &a.leafInputsBackwardWorkspaceBytes, &a.leafInputsBackwardRiseBytes,
                                   &a.engineBackwardWorkspaceBytes, &a.engineBackwardWorkspaceReleasedBytes,
                                   &a.engineBackwardReleasedRiseBytes, &a.engineFirstNodeBytes})
                if (*measured)
                    *measured = scaled(**measured);
        }
        if (v.compute)
            v.compute = *v.compute * static_cast<double>(factor);
    });
    return out;
}

std::int64_t trainedWeightBytes(const Graph& graph)
{
    std::int64_t sum = 0;
    for (const Vertex& v : graph.vertices())
        sum += v.autograd->parameterBytes;
    return sum;
}

std::int64_t weightBytes(const Graph& graph)
{
    return std::max(graph.metadataBytes("parameter_bytes"), trainedWeightBytes(graph));
}

MaxBatchResult largestBatch(const Graph& graph, std::int64_t graphBatch, std::int64_t memoryBytes,
                            const std::string& solver, const SolverOptions& options, MemoryCount count,
                            const OptimizerMemory& optimizer)
{
    SolverOptions solveOptions = options;
    if (solver == "optimal" && !solveOptions.values.count("memory-model"))
        solveOptions.values["memory-model"] = "pytorch";
    MaxBatchResult result;
    result.weightBytes = weightBytes(graph);
    result.optimizerStateBytes = optimizer.stateBytes;
    // P33: an accumulation step starts with the weights' gradients, one copy of the weights trained.
    result.keptGradientBytes = stepAccumulatesGradients(graph) ? trainedWeightBytes(graph) : 0;
    // What the step itself may take: the memory less what lives through every step.
    const std::int64_t forStep =
        memoryBytes - result.weightBytes - result.optimizerStateBytes - result.keptGradientBytes;
    // The question is whether any plan fits: the search may stop at the first that does.
    const bool leastPeakSearch = solver == "optimal" && solveOptions.text("memory-model", "") == "pytorch" &&
                                 !solveOptions.values.count("budget");
    if (leastPeakSearch && !solveOptions.values.count("enough"))
        solveOptions.values["enough"] = std::to_string(std::max<std::int64_t>(0, forStep));
    bool lastMissProven = true;  // whether no plan fits the batch that last did not
    // The solver's plan at `batch`, kept in `result` when it fits.
    auto fits = [&](std::int64_t batch) {
        options.checkCancelled();
        ++result.solves;
        std::optional<Graph> atBatch;
        try {
            atBatch = graphAtBatch(graph, graphBatch, batch);
        } catch (const std::exception&) {
            lastMissProven = true;
            return false;  // sizes beyond 64 bits: far too large
        }
        const Graph& scaled = *atBatch;
        Plan plan = runSolver(solver, scaled, solveOptions);
        const MemoryProfile memory = simulateMemory(scaled, plan, MemoryModel::PyTorch, false, count);
        const std::int64_t optimizerStep = optimizerStepBytes(memory, optimizer);
        if (memory.peakBytes > forStep || optimizerStep > forStep) {
            // The search minimises requested bytes and blocks hold at least those (A1): in blocks a
            // plan whose requested bytes fit may miss where another fits, so only a miss in requested
            // bytes proves anything.
            const std::int64_t requestedPeak =
                count == MemoryCount::Requested ? memory.peakBytes
                                                : simulateMemory(scaled, plan, MemoryModel::PyTorch, false).peakBytes;
            // What the step leaves does not depend on the plan (P35: the weights' gradients).
            lastMissProven = optimizerStep > forStep || !leastPeakSearch ||
                             (requestedPeak > forStep && plan.provenOptimal.value_or(false)) ||
                             (plan.lowerBound && *plan.lowerBound > static_cast<double>(forStep));
            return false;
        }
        if (batch > result.batch) {
            result.batch = batch;
            result.plan = std::move(plan);
            result.peakBytes = memory.peakBytes;
            result.optimizerStepBytes = optimizerStep;
        }
        return true;
    };
    std::int64_t low = 0, high = 1;  // low fits (0 trivially), high is to be tried
    constexpr std::int64_t limit = std::int64_t{1} << 40;
    while (high < limit && fits(high)) {
        low = high;
        high *= 2;
    }
    if (high >= limit) {
        result.firstTooLarge = 0;
        return result;
    }
    while (high - low > 1) {
        const std::int64_t mid = low + (high - low) / 2;
        if (fits(mid))
            low = mid;
        else
            high = mid;
    }
    result.firstTooLarge = high;  // the last batch tried that did not fit
    result.firstTooLargeProven = lastMissProven;
    return result;
}

}  // namespace ckpt
