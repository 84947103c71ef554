// ckptx max-batch: the largest batch whose best plan fits a memory size (solvers/MaxBatch.h).
#include "AllocatorArg.h"
#include "Cli.h"
#include "SolverArgs.h"

#include "graph/GraphBuilder.h"
#include "io/GraphJson.h"
#include "memory/PlanMemory.h"
#include "solvers/MaxBatch.h"
#include "util/Units.h"

#include <charconv>
#include <chrono>
#include <iostream>

namespace ckptx {

namespace {

std::int64_t positiveInteger(const std::string& option, const std::string& text)
{
    std::int64_t value = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || ptr != text.data() + text.size() || value < 1)
        throw UsageError(option + " needs a positive integer, got \"" + text + "\"");
    return value;
}

int runMaxBatch(const std::vector<std::string>& argv)
{
    Args args(argv, {"--memory", "--solver", "--option", "--batch-size", "--allocator", "--optimizer"}, {"--json", "--accumulate"});
    args.expectPositional({"GRAPH"});
    const std::string memoryText = args.requireOption("--memory");
    const auto memory = ckpt::parseBytes(memoryText);
    if (!memory || *memory < 1)
        throw UsageError("--memory needs a byte size such as 24GiB, got \"" + memoryText + "\"");
    const std::string solver = args.option("--solver").value_or("optimal");
    ckpt::SolverOptions options = solverOptions(args);
    if (solver == "optimal" && !options.values.count("time-limit"))
        options.values["time-limit"] = "2";  // per batch tried; the gap is in the plan's notes
    const std::string path = args.positional()[0];
    ckpt::Graph graph = ckpt::readGraphFile(path);
    // P33: each micro-batch after the first starts with the gradients of those before it.
    if (args.flag("--accumulate"))
        graph = ckpt::withMetadata(graph, {{"accumulate_gradients", "true"}});
    const bool accumulates = ckpt::stepAccumulatesGradients(graph);
    std::optional<std::int64_t> batch;
    try {
        batch = ckpt::recordedBatchSize(graph);
    } catch (const std::invalid_argument& e) {
        throw std::runtime_error(path + ": " + e.what());
    }
    if (auto given = args.option("--batch-size"))
        batch = positiveInteger("--batch-size", *given);
    if (!batch)
        throw std::runtime_error(path + ": the graph does not record its batch size (metadata batch_size); "
                                 "pass --batch-size N, the batch its sizes were recorded for");
    // P35: what the export measured of the user's optimizer, unless --optimizer names one (whose state
    // is known from its kind, its step's scratch memory is not).
    ckpt::OptimizerMemory optimizer = ckpt::measuredOptimizer(graph).value_or(ckpt::OptimizerMemory{});
    if (auto named = args.option("--optimizer")) {
        const std::optional<int> stateCopies = ckpt::optimizerStateCopies(*named);
        if (!stateCopies)
            throw UsageError("--optimizer needs sgd, momentum, adam or adamw, got \"" + *named + "\"");
        optimizer = ckpt::OptimizerMemory{*named, *stateCopies * ckpt::trainedWeightBytes(graph), 0, false};
    }
    const ckpt::MemoryCount count = allocatorOption(args, ckpt::exportDeviceMemoryCount(graph));
    const bool blocks = count == ckpt::MemoryCount::CudaBlocks;
    const auto start = std::chrono::steady_clock::now();
    const ckpt::MaxBatchResult r = ckpt::largestBatch(graph, *batch, *memory, solver, options, count, optimizer);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (args.flag("--json")) {
        nlohmann::json out = {{"graph", graph.name()},
                              {"recorded_batch", *batch},
                              {"memory_bytes", *memory},
                              {"solver", solver},
                              {"allocator", ckpt::memoryCountName(count)},
                              {"max_batch", r.batch},
                              {"peak_bytes", r.peakBytes},
                              {"weight_bytes", r.weightBytes},
                              {"optimizer", optimizer.name},
                              {"optimizer_measured", optimizer.measured},
                              {"optimizer_state_bytes", r.optimizerStateBytes},
                              {"optimizer_step_workspace_bytes", optimizer.stepWorkspaceBytes},
                              {"optimizer_step_bytes", r.optimizerStepBytes},
                              {"accumulate_gradients", accumulates},
                              {"kept_gradient_bytes", r.keptGradientBytes},
                              {"first_too_large", r.firstTooLarge},
                              {"first_too_large_proven", r.firstTooLargeProven},
                              {"solves", r.solves},
                              {"seconds", seconds}};
        if (r.plan)
            out["notes"] = r.plan->notes;
        printJson(out);
        return Ok;
    }
    std::cout << "largest batch: " << r.batch;
    if (r.batch == 0)
        std::cout << " (not even batch 1 fits in " << ckpt::formatBytes(*memory) << ")";
    std::cout << "\nmemory:        " << ckpt::formatBytes(*memory)
              << " = weights + optimizer state" << (accumulates ? " + the weights' gradients" : "")
              << " + the plan's pytorch-model peak"
              << (optimizer.stepWorkspaceBytes ? " (or optimizer.step()'s, if larger)" : "")
              << (blocks ? " in CUDA caching allocator blocks" : "") << "\n"
              << "weights:       " << ckpt::formatBytes(r.weightBytes) << "\n"
              << "optimizer:     " << ckpt::formatBytes(r.optimizerStateBytes) << " (" << optimizer.name;
    if (optimizer.measured)
        std::cout << ", measured by the export; each step's scratch "
                  << ckpt::formatBytes(optimizer.stepWorkspaceBytes) << ")\n";
    else
        std::cout << (r.optimizerStateBytes ? ": its state; its step's scratch is counted when exported with --optimizer"
                                            : ": no state; --optimizer momentum|adam|adamw")
                  << ")\n";
    if (accumulates)
        std::cout << "gradients:     " << ckpt::formatBytes(r.keptGradientBytes)
                  << " (kept from the micro-batch before: gradient accumulation)\n";
    if (r.plan)
        std::cout << "peak:          " << ckpt::formatBytes(r.peakBytes) << " (" << solver << ", "
                  << r.plan->checkpoints().size() << " checkpoints)\n";
    if (r.plan && optimizer.stepWorkspaceBytes)
        std::cout << "step:          " << ckpt::formatBytes(r.optimizerStepBytes)
                  << " (what the step leaves + optimizer.step()'s scratch)\n";
    if (r.firstTooLarge > 0 && r.firstTooLargeProven)
        std::cout << "batch " << r.firstTooLarge << " does not fit\n";
    else if (r.firstTooLarge > 0)
        std::cout << "batch " << r.firstTooLarge
                  << ": no plan found that fits, not proven that none does (the search's time or size limit; "
                     "a larger batch may fit)\n";
    std::cout << "searched:      " << r.solves << " solves in " << seconds << " s (graph recorded at batch " << *batch
              << ")\n";
    return Ok;
}

const CommandRegistration maxBatch{
    {"max-batch", "max-batch GRAPH --memory SIZE [--solver NAME] [--option KEY=VALUE ...] [--batch-size N] "
                  "[--allocator requested|cuda] [--optimizer sgd|momentum|adam|adamw] [--accumulate] [--json]",
     "the largest batch whose plan (default: optimal, least pytorch-model peak) fits SIZE (e.g. 24GiB) with the "
     "weights and the optimizer's state (default: what an export with --optimizer measured, with its step's "
     "scratch memory; else sgd: none; adam: two copies of the weights); --accumulate: a "
     "gradient-accumulation micro-batch, which starts with the weights' gradients; batch-scaled sizes "
     "grow with the batch; a graph exported on CUDA is counted in the caching allocator's blocks unless "
     "--allocator requested (docs/MEMORY-MODEL.md)",
     &runMaxBatch}};

}  // namespace

}  // namespace ckptx
