// ckptx-torch profile: a regular and a checkpointed training step, measured.
#include "Cli.h"

#include "io/GraphJson.h"
#include "io/PlanJson.h"
#include "io/TextFile.h"
#include "io/TraceJson.h"
#include "torch/TorchProfile.h"

#include <iostream>

namespace ckptx {

namespace {

int runProfile(const std::vector<std::string>& argv)
{
    Args args(argv, {"--graph", "--plan", "--input", "--device", "--iterations", "--dtype", "-o"}, {"--json"});
    args.expectPositional({"MODEL"});
    const ckpt::Graph graph = ckpt::readGraphFile(args.requireOption("--graph"));
    ckpt::torchx::ProfileOptions options;
    options.model.modelPath = args.positional()[0];
    try {
        options.model.inputShape = ckpt::torchx::parseInputShape(args.requireOption("--input"));
        auto granularity = graph.metadata().find("granularity");
        options.model.granularity = ckpt::torchx::parseGranularity(
            granularity == graph.metadata().end() ? "op" : nlohmann::json::parse(granularity->second).get<std::string>());
        options.iterations = std::stoi(args.option("--iterations").value_or("1"));
        options.model.dtype = args.option("--dtype").value_or("float32");
        ckpt::torchx::checkDtype(options.model.dtype);
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
     "profile MODEL.pt --graph GRAPH.json --plan PLAN.json --input 1x3x224x224 --device cpu|cuda [--iterations K] [--dtype float32] -o "
     "TRACE.json [--json]",
     "run a regular and a checkpointed training step; compare gradients; memory per training phase", &runProfile}};

}  // namespace

}  // namespace ckptx
