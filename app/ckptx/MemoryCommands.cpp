// ckptx compare / simulate: solvers side by side, and a plan's memory over the training phases.
#include "AllocatorArg.h"
#include "Cli.h"

#include "io/GraphJson.h"
#include "io/PlanJson.h"
#include "io/TextFile.h"
#include "io/TraceJson.h"
#include "memory/OptimizerStep.h"
#include "memory/StepTimeComparison.h"
#include "memory/TraceComparison.h"
#include "solvers/Comparison.h"

#include <iomanip>
#include <iostream>
#include <sstream>

namespace ckptx {

namespace {

std::vector<std::string> splitList(const std::string& text)
{
    std::vector<std::string> out;
    std::stringstream in(text);
    std::string item;
    while (std::getline(in, item, ','))
        if (!item.empty())
            out.push_back(item);
    if (out.empty())
        throw UsageError("--solvers needs at least one solver name");
    return out;
}

nlohmann::json rowJson(const ckpt::ComparisonRow& row)
{
    nlohmann::json j = {{"solver", row.solver}, {"ok", !row.error}};
    if (row.error) {
        j["error"] = *row.error;
        return j;
    }
    const ckpt::PlanCosts& c = row.costs;
    j.update({{"checkpoints", c.checkpointCount},
              {"objective", c.objective},
              {"is_plan", c.isISPlan},
              {"peak_chen", c.peakChen},
              {"peak_pytorch", c.peakPyTorch},
              {"recomputed_bytes", c.recomputedBytes},
              {"recomputed_compute", c.recomputedCompute},
              {"recompute_overhead", c.recomputeOverhead()},
              {"solve_ms", row.solveMs},
              {"notes", row.notes}});
    if (c.peakCudaBlocks)
        j["peak_pytorch_cuda_blocks"] = *c.peakCudaBlocks;
    if (c.optimizerStepBytes) {
        j["optimizer_step_bytes"] = *c.optimizerStepBytes;
        j["peak_iteration"] = c.iterationPeak();
    }
    return j;
}

int runCompare(const std::vector<std::string>& argv)
{
    Args args(argv, {"--solvers"}, {"--json"});
    args.expectPositional({"GRAPH"});
    const auto graph = ckpt::readGraphFile(args.positional()[0]);
    std::vector<std::string> names;
    if (auto list = args.option("--solvers"))
        names = splitList(*list);
    const auto rows = ckpt::compareSolvers(graph, names);
    const int recommended = ckpt::recommendedRow(rows);
    if (args.flag("--json")) {
        nlohmann::json out = {{"graph", graph.name()}, {"vertices", graph.vertexCount()}, {"rows", nlohmann::json::array()}};
        for (const auto& row : rows)
            out["rows"].push_back(rowJson(row));
        out["recommended"] = recommended < 0 ? nlohmann::json() : nlohmann::json(rows[recommended].solver);
        printJson(out);
        return Ok;
    }
    std::cout << std::left << std::setw(24) << "solver" << std::right << std::setw(6) << "ckpts" << std::setw(16)
              << "objective" << std::setw(16) << "peak chen" << std::setw(16) << "peak pytorch" << std::setw(16)
              << "recomp bytes" << std::setw(14) << "recomp cost" << std::setw(10) << "overhead" << std::setw(11) << "ms"
              << "\n";
    for (const auto& row : rows) {
        std::cout << std::left << std::setw(24) << row.solver << std::right;
        if (row.error) {
            std::cout << "  failed: " << *row.error << "\n";
            continue;
        }
        const auto& c = row.costs;
        std::cout << std::setw(6) << c.checkpointCount << std::setw(16) << c.objective << std::setw(16) << c.peakChen
                  << std::setw(16) << c.peakPyTorch << std::setw(16) << c.recomputedBytes << std::setw(14)
                  << c.recomputedCompute << std::setw(9) << std::fixed << std::setprecision(1)
                  << 100 * c.recomputeOverhead() << "%" << std::setw(11) << std::setprecision(2) << row.solveMs
                  << std::defaultfloat << "\n";
    }
    std::cout << "overhead: compute re-forwarded (each segment once, vertex compute) / compute of the forward\n";
    if (recommended >= 0) {
        const ckpt::PlanCosts& best = rows[recommended].costs;
        if (best.optimizerStepBytes)
            std::cout << "optimizer.step(): " << *best.optimizerStepBytes
                      << " on what the step leaves (measured by the export): a plan's iteration peaks at the larger "
                         "of the two\n";
        std::cout << "recommended: " << rows[recommended].solver
                  << (best.optimizerStepBytes ? " (lowest iteration peak, then least recompute)\n"
                                              : " (lowest pytorch-model peak, then least recompute)\n");
    }
    return Ok;
}

std::string joined(const std::vector<std::string>& items, char separator)
{
    std::string out;
    for (const auto& s : items)
        out += (out.empty() ? "" : std::string(1, separator)) + s;
    return out;
}

// The --trace measurement, and which of its steps (--step, checkpointed unless "regular") to compare.
struct MeasuredStep {
    ckpt::ProfileTrace trace;
    bool regular = false;
    std::string path;
};

std::optional<MeasuredStep> measuredStep(const Args& args)
{
    const auto path = args.option("--trace");
    if (!path) {
        if (args.option("--step"))
            throw UsageError("--step needs --trace");
        return std::nullopt;
    }
    const std::string step = args.option("--step").value_or("checkpointed");
    if (step != "checkpointed" && step != "regular")
        throw UsageError("--step is checkpointed or regular, got \"" + step + "\"");
    return MeasuredStep{ckpt::parseTraceJson(ckpt::readInputFile(*path), *path), step == "regular", *path};
}

ckpt::TraceComparison traceComparison(const MeasuredStep& m, const ckpt::Graph& graph,
                                      const ckpt::MemoryProfile& profile)
{
    try {
        return ckpt::compareWithTrace(graph, profile, m.trace, m.regular ? m.trace.regular : m.trace.checkpointed);
    } catch (const std::invalid_argument& e) {
        throw std::runtime_error(m.path + ": " + e.what());
    }
}

nlohmann::json comparisonJson(const ckpt::TraceComparison& c)
{
    nlohmann::json phases = nlohmann::json::array();
    for (const auto& p : c.phases)
        phases.push_back({{"index", p.index},
                          {"trace_index", p.traceIndex},
                          {"predicted_bytes", p.predicted},
                          {"measured_bytes", p.measured},
                          {"error_percent", p.errorPercent}});
    nlohmann::json out = {{"mean_abs_error_percent", c.meanAbsErrorPercent},
                          {"predicted_peak_bytes", c.predictedPeak},
                          {"measured_peak_bytes", c.measuredPeak},
                          {"peak_error_percent", c.peakErrorPercent},
                          {"phases", phases}};
    if (c.measuredOptimizerStep)
        out["optimizer_step"] = {{"predicted_bytes", *c.predictedOptimizerStep},
                                 {"measured_bytes", *c.measuredOptimizerStep},
                                 {"error_percent", c.optimizerStepErrorPercent}};
    return out;
}

int runSimulate(const std::vector<std::string>& argv)
{
    Args args(argv, {"--plan", "--model", "--trace", "--step", "--allocator"}, {"--json", "--csv", "--live"});
    args.expectPositional({"GRAPH"});
    if (args.flag("--json") && args.flag("--csv"))
        throw UsageError("--json and --csv exclude each other");
    const auto graph = ckpt::readGraphFile(args.positional()[0]);
    const auto plan = ckpt::readPlanFile(args.requireOption("--plan"), graph);
    ckpt::MemoryModel model;
    try {
        model = ckpt::parseMemoryModel(args.requireOption("--model"));
    } catch (const std::invalid_argument& e) {
        throw UsageError(e.what());
    }
    const auto measured = measuredStep(args);
    // Blocks apply to the pytorch model's checkpoint plans; the others count requested bytes.
    const bool blocksApply = model == ckpt::MemoryModel::PyTorch && !plan.schedule;
    const ckpt::MemoryCount count = allocatorOption(
        args, measured && blocksApply ? ckpt::traceMemoryCount(measured->trace) : ckpt::MemoryCount::Requested);
    if (count == ckpt::MemoryCount::CudaBlocks && !blocksApply)
        throw UsageError("--allocator cuda needs --model pytorch and a checkpoint plan (not a schedule)");
    const bool listLive = args.flag("--live") || graph.vertexCount() <= ckpt::kLiveListsUpTo;
    const auto profile = ckpt::simulateMemory(graph, plan, model, listLive, count);
    // P35: the optimizer's step after the phases, where the export measured it (pytorch model).
    std::optional<std::int64_t> optimizerStep;
    if (const auto optimizer = ckpt::measuredOptimizer(graph); optimizer && model == ckpt::MemoryModel::PyTorch)
        optimizerStep = ckpt::optimizerStepBytes(profile, *optimizer);
    std::optional<ckpt::TraceComparison> comparison;
    std::optional<ckpt::StepTimeComparison> stepTime;
    if (measured) {
        comparison = traceComparison(*measured, graph, profile);
        if (!measured->regular)
            stepTime = ckpt::compareStepTime(measured->trace, ckpt::planRecompute(graph, plan).recomputeOverhead());
    }
    if (args.flag("--json")) {
        nlohmann::json phases = nlohmann::json::array();
        for (const auto& p : profile.phases)
            phases.push_back({{"index", p.index}, {"end_bytes", p.endBytes}, {"peak_bytes", p.peakBytes}, {"live", p.live}});
        nlohmann::json out = {{"model", ckpt::memoryModelName(model)},
                              {"allocator", ckpt::memoryCountName(count)},
                              {"peak_bytes", profile.peakBytes},
                              {"peak_phase", profile.peakPhase},
                              {"live_listed", listLive},
                              {"phases", phases}};
        if (optimizerStep) {
            out["optimizer_step_bytes"] = *optimizerStep;
            out["iteration_peak_bytes"] = std::max(profile.peakBytes, *optimizerStep);
        }
        if (comparison)
            out["trace"] = comparisonJson(*comparison);
        if (stepTime)
            out["trace"]["step_time"] = {{"recompute_overhead", stepTime->overhead},
                                         {"regular_ms", stepTime->regularMs},
                                         {"regular_forward_ms", stepTime->regularForwardMs},
                                         {"predicted_ms", stepTime->predictedMs()},
                                         {"measured_ms", stepTime->measuredMs},
                                         {"predicted_overhead", stepTime->predictedOverhead()},
                                         {"measured_overhead", stepTime->measuredOverhead()}};
        printJson(out);
        return Ok;
    }
    if (args.flag("--csv")) {
        std::cout << "index,end_bytes,peak_bytes,live\n";
        for (const auto& p : profile.phases)
            std::cout << p.index << "," << p.endBytes << "," << p.peakBytes << ",\"" << joined(p.live, ';') << "\"\n";
        return Ok;
    }
    std::cout << "model " << ckpt::memoryModelName(model)
              << (count == ckpt::MemoryCount::CudaBlocks ? " (CUDA caching allocator's blocks)" : "") << ": peak "
              << profile.peakBytes << " bytes at phase " << profile.peakPhase << "\n";
    if (optimizerStep)
        std::cout << "optimizer.step() after the phases: " << *optimizerStep
                  << " bytes (what the step leaves + its measured scratch); the iteration's peak "
                  << std::max(profile.peakBytes, *optimizerStep) << " bytes\n";
    if (!listLive)
        std::cout << "live tensors not listed: the graph has more than " << ckpt::kLiveListsUpTo
                  << " vertices (--live lists them)\n";
    if (comparison)
        std::cout << "vs trace: mean |error| " << std::fixed << std::setprecision(2) << comparison->meanAbsErrorPercent
                  << " % over " << comparison->phases.size() << " phases, peak error " << comparison->peakErrorPercent
                  << " % (measured " << comparison->measuredPeak << " bytes above the weights)\n"
                  << std::defaultfloat;
    if (comparison && comparison->measuredOptimizerStep)
        std::cout << "vs trace: optimizer.step() predicted " << *comparison->predictedOptimizerStep << " bytes, measured "
                  << *comparison->measuredOptimizerStep << " (" << std::fixed << std::setprecision(2) << std::showpos
                  << comparison->optimizerStepErrorPercent << std::noshowpos << " %)\n"
                  << std::defaultfloat;
    if (stepTime)
        std::cout << "step time: predicted " << std::fixed << std::setprecision(1) << stepTime->predictedMs()
                  << " ms (" << std::showpos << 100 * stepTime->predictedOverhead() << std::noshowpos
                  << " %: the regular step + " << std::setprecision(3) << stepTime->overhead << " x its forward, "
                  << std::setprecision(1) << stepTime->regularForwardMs << " ms), measured " << stepTime->measuredMs
                  << " ms (" << std::showpos << 100 * stepTime->measuredOverhead() << std::noshowpos << " %)\n"
                  << std::defaultfloat;
    for (const auto& p : profile.phases)
        std::cout << std::setw(6) << p.index << std::setw(16) << p.endBytes << std::setw(16) << p.peakBytes << "  "
                  << joined(p.live, ' ') << "\n";
    return Ok;
}

const CommandRegistration compare{{"compare", "compare GRAPH [--solvers a,b,...] [--json]",
                                   "one row per solver: checkpoints, Eq. 2 objective, peak under each memory "
                                   "model, recomputation, solve time",
                                   &runCompare}};
const CommandRegistration simulate{{"simulate", "simulate GRAPH --plan PLAN.json --model chen|pytorch [--trace TRACE.json "
                                    "[--step checkpointed|regular]] [--allocator requested|cuda] [--live] [--json|--csv]",
                                    "memory per training phase (end, peak, live at the peak) of a saved plan; "
                                    "with --trace, the error against a profile trace and, for the checkpointed step, its "
                                    "predicted against its measured time; --allocator cuda counts the CUDA caching "
                                    "allocator's blocks, as torch.cuda.memory_allocated() does (the default with a "
                                    "CUDA profile's trace; docs/MEMORY-MODEL.md); the tensors live at each peak are "
                                    "listed for graphs of up to 2000 vertices, or always with --live",
                                    &runSimulate}};

}  // namespace

}  // namespace ckptx
