// ckptx-torch profile: a regular and a checkpointed training step, measured.
#include "Cli.h"
#include "InputOptions.h"

#include "io/GraphJson.h"
#include "io/PlanJson.h"
#include "io/TextFile.h"
#include "io/TraceJson.h"
#include "memory/PlanMemory.h"
#include "torch/TorchProfile.h"

#include <iostream>

namespace ckptx {

namespace {

// The inputs the graph was imported with: --input may repeat them (shape and dtype; a profile
// at other inputs would measure another graph) or leave them out.
std::vector<ckpt::torchx::InputSpec> inputsOfGraph(const ckpt::Graph& graph, const std::string& graphFile,
                                                  const ckpt::torchx::ImportOptions& given)
{
    std::optional<std::vector<ckpt::torchx::InputSpec>> imported;
    try {
        imported = ckpt::torchx::importedInputs(graph);
    } catch (const std::invalid_argument& e) {
        throw std::runtime_error(graphFile + ": " + e.what());
    }
    if (given.inputs.empty()) {
        if (!imported)
            throw UsageError("missing --input: " + graphFile + " does not record the inputs it was imported with");
        return *imported;
    }
    if (!imported)
        return given.inputs;
    const auto resolved = ckpt::torchx::withDtypes(given.inputs, given.dtype);
    bool same = resolved.size() == imported->size();
    for (std::size_t i = 0; same && i < resolved.size(); ++i)
        same = resolved[i].shape == (*imported)[i].shape && resolved[i].dtype == (*imported)[i].dtype;
    if (!same)
        throw std::runtime_error(graphFile + ": the graph was imported with input " +
                                 ckpt::torchx::formatInputSpecs(*imported) + ", not " +
                                 ckpt::torchx::formatInputSpecs(resolved) +
                                 " (import the model at these inputs to profile them)");
    return given.inputs;
}

int runProfile(const std::vector<std::string>& argv)
{
    Args args(argv, {"--graph", "--plan", "--input", "--device", "--iterations", "--dtype", "-o"}, {"--json"});
    args.expectPositional({"MODEL"});
    const std::string graphFile = args.requireOption("--graph");
    const ckpt::Graph graph = ckpt::readGraphFile(graphFile);
    // P33: its steps start without weight gradients; the Python package's profile runs accumulation steps.
    if (ckpt::stepAccumulatesGradients(graph))
        throw std::runtime_error(graphFile + ": /metadata/accumulate_gradients: ckptx-torch profile measures steps "
                                 "that start without weight gradients; measure a gradient-accumulation step with "
                                 "python3 -m checkpoint_explorer profile");
    ckpt::torchx::ProfileOptions options;
    options.model.modelPath = args.positional()[0];
    readInputOptions(args, options.model);
    options.model.inputs = inputsOfGraph(graph, graphFile, options.model);
    try {
        auto granularity = graph.metadata().find("granularity");
        options.model.granularity = ckpt::torchx::parseGranularity(
            granularity == graph.metadata().end() ? "op" : nlohmann::json::parse(granularity->second).get<std::string>());
        options.iterations = std::stoi(args.option("--iterations").value_or("1"));
    } catch (const std::invalid_argument& e) {
        throw UsageError(e.what());
    } catch (const nlohmann::json::exception& e) {
        throw UsageError(std::string("graph metadata \"granularity\" is not a string: ") + e.what());
    }
    if (options.iterations < 1)
        throw UsageError("--iterations must be at least 1");
    options.model.device = args.option("--device").value_or("cpu");
    if (options.model.device != "cpu" && options.model.device != "cuda")
        throw UsageError("--device must be cpu or cuda");
    // readPlanFile refuses a plan made for another graph (by fingerprint).
    const ckpt::Plan plan = ckpt::readPlanFile(args.requireOption("--plan"), graph);
    for (ckpt::VertexIndex v : plan.checkpoints())
        if (!graph.vertex(v).isVirtual)  // a virtual source (several inputs) is no tensor
            options.checkpoints.push_back(graph.vertex(v).id);
    const std::string out = args.requireOption("-o");

    const ckpt::ProfileTrace trace = ckpt::torchx::profileTraining(graph, options);
    ckpt::writeTextFileAtomically(out, ckpt::toTraceJson(trace));
    if (args.flag("--json"))
        printJson({{"written", out},
                   {"gradients_match", trace.gradientsMatch},
                   {"baseline_bytes", trace.baselineBytes},
                   {"regular_peak_bytes", trace.regular.peakBytes},
                   {"checkpointed_peak_bytes", trace.checkpointed.peakBytes},
                   {"regular_step_ms", trace.regular.stepMs},
                   {"checkpointed_step_ms", trace.checkpointed.stepMs}});
    else
        std::cout << out << ": peak " << trace.regular.peakBytes << " bytes regular, " << trace.checkpointed.peakBytes
                  << " checkpointed (baseline " << trace.baselineBytes << "); step " << trace.regular.stepMs << " ms vs "
                  << trace.checkpointed.stepMs << " ms; gradients " << (trace.gradientsMatch ? "match" : "DIFFER")
                  << "\n";
    if (!trace.gradientsMatch) {
        printError(options.model.modelPath + ": the checkpointed step's gradients differ from the regular step's: " +
                   trace.mismatch + " (trace written to " + out + ")");
        return InvalidInput;
    }
    return Ok;
}

const CommandRegistration profile{
    {"profile",
     "profile MODEL.pt --graph GRAPH.json --plan PLAN.json [--input SHAPE[:DTYPE[:HIGH]] ...] --device cpu|cuda [--iterations K] "
     "[--dtype float32] -o TRACE.json [--json]",
     "run a regular and a checkpointed training step; compare gradients; memory per training phase", &runProfile}};

}  // namespace

}  // namespace ckptx
