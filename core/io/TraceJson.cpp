#include "io/TraceJson.h"

#include "io/JsonAccess.h"

#include <limits>

namespace ckpt {

using namespace json_access;

namespace {

json stepJson(const StepMemory& step)
{
    json phases = json::array();
    for (const auto& p : step.phases)
        phases.push_back({{"index", p.index}, {"end_bytes", p.endBytes}, {"peak_bytes", p.peakBytes}});
    return {{"peak_bytes", step.peakBytes}, {"step_ms", step.stepMs}, {"phases", phases}};
}

StepMemory stepFromJson(const json& root, const std::string& key)
{
    const std::string at = pointerOf("", key);
    const json* member = optionalMember(root, key);
    if (!member)
        throw GraphError("missing \"" + key + "\"", at);
    const json& object = requireObject(*member, at);
    StepMemory step;
    step.peakBytes = requireByteCount(object, "peak_bytes", at);
    step.stepMs = optionalNumber(object, "step_ms", at).value_or(0);
    const json& phases = requireArray(object, "phases", at);
    for (std::size_t i = 0; i < phases.size(); ++i) {
        const std::string where = at + "/phases/" + std::to_string(i);
        const json& item = requireObject(phases[i], where);
        MeasuredPhase phase;
        phase.index = static_cast<int>(requireInt64InRange(item, "index", 0, std::numeric_limits<int>::max(), where));
        phase.endBytes = requireByteCount(item, "end_bytes", where);
        phase.peakBytes = requireByteCount(item, "peak_bytes", where);
        step.phases.push_back(phase);
    }
    return step;
}

std::vector<std::string> stringArray(const json& root, const std::string& key)
{
    std::vector<std::string> out;
    if (!optionalMember(root, key))
        return out;
    const json& items = requireArray(root, key, "");
    for (std::size_t i = 0; i < items.size(); ++i) {
        if (!items[i].is_string())
            throw GraphError("expected a string, got " + typeName(items[i]), pointerOf(pointerOf("", key), std::to_string(i)));
        out.push_back(items[i].get<std::string>());
    }
    return out;
}

}  // namespace

std::string toTraceJson(const ProfileTrace& trace)
{
    json root{{"schema", kTraceSchema},
              {"version", kTraceSchemaVersion},
              {"model", trace.model},
              {"device", trace.device},
              {"input_shape", trace.inputShape},
              {"iterations", trace.iterations},
              {"vertices", trace.vertices},
              {"checkpoints", trace.checkpoints},
              {"gradients_match", trace.gradientsMatch},
              {"gradient_tolerance", {{"rtol", trace.rtol}, {"atol", trace.atol}}},
              {"baseline_bytes", trace.baselineBytes},
              {"regular", stepJson(trace.regular)},
              {"checkpointed", stepJson(trace.checkpointed)}};
    if (!trace.mismatch.empty())
        root["mismatch"] = trace.mismatch;
    return root.dump(2) + "\n";
}

ProfileTrace parseTraceJson(const std::string& text, const std::string& file)
{
    return readingFile(file, [&] {
        const json root = parse(text);
        requireObject(root, "");
        if (auto schema = optionalString(root, "schema", ""); schema && *schema != kTraceSchema)
            throw GraphError("unknown schema \"" + *schema + "\" (expected \"" + kTraceSchema + "\")", "/schema");
        ProfileTrace trace;
        trace.model = optionalString(root, "model", "").value_or("");
        trace.device = requireString(root, "device", "");
        trace.inputShape = optionalIntArray(root, "input_shape", "").value_or(std::vector<std::int64_t>{});
        if (const json* iterations = optionalMember(root, "iterations"))
            trace.iterations = static_cast<int>(toInt64InRange(*iterations, 1, std::numeric_limits<int>::max(), "/iterations"));
        trace.vertices = stringArray(root, "vertices");
        trace.checkpoints = stringArray(root, "checkpoints");
        const auto match = optionalBool(root, "gradients_match", "");
        if (!match)
            throw GraphError("missing \"gradients_match\"", "/gradients_match");
        trace.gradientsMatch = *match;
        trace.mismatch = optionalString(root, "mismatch", "").value_or("");
        if (const json* tolerance = optionalMember(root, "gradient_tolerance")) {
            requireObject(*tolerance, "/gradient_tolerance");
            trace.rtol = optionalNumber(*tolerance, "rtol", "/gradient_tolerance").value_or(0);
            trace.atol = optionalNumber(*tolerance, "atol", "/gradient_tolerance").value_or(0);
        }
        trace.baselineBytes = requireByteCount(root, "baseline_bytes", "");
        trace.regular = stepFromJson(root, "regular");
        trace.checkpointed = stepFromJson(root, "checkpointed");
        return trace;
    });
}

}  // namespace ckpt
