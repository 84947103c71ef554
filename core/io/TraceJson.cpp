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
    json out = {{"peak_bytes", step.peakBytes}, {"step_ms", step.stepMs}, {"phases", phases}};
    if (step.forwardMs > 0)
        out["forward_ms"] = step.forwardMs;
    if (step.optimizerStep)
        out["optimizer_step"] = {{"end_bytes", step.optimizerStep->endBytes}, {"peak_bytes", step.optimizerStep->peakBytes}};
    return out;
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
    step.forwardMs = optionalNumber(object, "forward_ms", at).value_or(0);
    if (step.stepMs < 0 || step.forwardMs < 0 || step.forwardMs > step.stepMs)
        throw GraphError("step_ms and forward_ms must satisfy 0 <= forward_ms <= step_ms", at);
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
    if (const json* optimizer = optionalMember(object, "optimizer_step")) {
        const std::string where = at + "/optimizer_step";
        const json& item = requireObject(*optimizer, where);
        MeasuredPhase phase;
        phase.index = step.phases.empty() ? 0 : step.phases.back().index + 1;
        phase.endBytes = requireByteCount(item, "end_bytes", where);
        phase.peakBytes = requireByteCount(item, "peak_bytes", where);
        if (phase.peakBytes < phase.endBytes)
            throw GraphError("peak_bytes must be at least end_bytes", where);
        step.optimizerStep = phase;
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

json timelineJson(const ProfileTrace& trace)
{
    json x = json::array(), bytes = json::array();
    for (const auto& sample : trace.timeline) {
        x.push_back(sample.x);
        bytes.push_back(sample.allocatedBytes);
    }
    return {{"axis", trace.timelineAxis == TimelineAxis::TimeUs ? "time_us" : "event"},
            {"x", x},
            {"allocated_bytes", bytes}};
}

std::vector<TimelineSample> timelineFromJson(const json& root, TimelineAxis& axis)
{
    const std::string at = "/timeline";
    const json* member = optionalMember(root, "timeline");
    if (!member)
        return {};
    const json& object = requireObject(*member, at);
    const std::string axisName = requireString(object, "axis", at);
    if (axisName != "time_us" && axisName != "event")
        throw GraphError("expected \"time_us\" or \"event\", got \"" + axisName + "\"", at + "/axis");
    axis = axisName == "time_us" ? TimelineAxis::TimeUs : TimelineAxis::Event;
    const auto x = optionalIntArray(object, "x", at);
    const auto bytes = optionalIntArray(object, "allocated_bytes", at);
    if (!x || !bytes)
        throw GraphError("needs \"x\" and \"allocated_bytes\"", at);
    if (x->size() != bytes->size())
        throw GraphError("\"x\" has " + std::to_string(x->size()) + " values, \"allocated_bytes\" " +
                             std::to_string(bytes->size()),
                         at);
    std::vector<TimelineSample> samples;
    for (std::size_t i = 0; i < x->size(); ++i)
        samples.push_back({(*x)[i], (*bytes)[i]});
    return samples;
}

}  // namespace

std::string toTraceJson(const ProfileTrace& trace)
{
    json root{{"schema", kTraceSchema},
              {"version", kTraceSchemaVersion},
              {"source", trace.source},
              {"model", trace.model},
              {"device", trace.device},
              {"input_shape", trace.inputShape},
              {"iterations", trace.iterations},
              {"vertices", trace.vertices},
              {"checkpoints", trace.checkpoints},
              {"baseline_bytes", trace.baselineBytes}};
    if (!trace.fromSnapshot()) {
        root["gradients_match"] = trace.gradientsMatch;
        root["gradient_tolerance"] = {{"rtol", trace.rtol}, {"atol", trace.atol}};
    }
    if (!trace.fromSnapshot() || !trace.regular.phases.empty())
        root["regular"] = stepJson(trace.regular);
    if (!trace.fromSnapshot() || !trace.checkpointed.phases.empty())
        root["checkpointed"] = stepJson(trace.checkpointed);
    if (!trace.mismatch.empty())
        root["mismatch"] = trace.mismatch;
    if (trace.fromSnapshot()) {
        root["snapshot_device"] = trace.snapshotDevice;
        root["timeline"] = timelineJson(trace);
    }
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
        trace.source = optionalString(root, "source", "").value_or(kProfileSource);
        if (trace.source != kProfileSource && trace.source != kSnapshotSource)
            throw GraphError("unknown source \"" + trace.source + "\"", "/source");
        trace.model = optionalString(root, "model", "").value_or("");
        trace.device = requireString(root, "device", "");
        trace.inputShape = optionalIntArray(root, "input_shape", "").value_or(std::vector<std::int64_t>{});
        if (const json* iterations = optionalMember(root, "iterations"))
            trace.iterations = static_cast<int>(toInt64InRange(*iterations, 1, std::numeric_limits<int>::max(), "/iterations"));
        trace.vertices = stringArray(root, "vertices");
        trace.checkpoints = stringArray(root, "checkpoints");
        const auto match = optionalBool(root, "gradients_match", "");
        if (!match && !trace.fromSnapshot())
            throw GraphError("missing \"gradients_match\"", "/gradients_match");
        trace.gradientsMatch = match.value_or(false);
        trace.mismatch = optionalString(root, "mismatch", "").value_or("");
        if (const json* tolerance = optionalMember(root, "gradient_tolerance")) {
            requireObject(*tolerance, "/gradient_tolerance");
            trace.rtol = optionalNumber(*tolerance, "rtol", "/gradient_tolerance").value_or(0);
            trace.atol = optionalNumber(*tolerance, "atol", "/gradient_tolerance").value_or(0);
        }
        trace.baselineBytes = requireByteCount(root, "baseline_bytes", "");
        // A snapshot without phase markers measured no step.
        if (!trace.fromSnapshot() || optionalMember(root, "regular"))
            trace.regular = stepFromJson(root, "regular");
        if (!trace.fromSnapshot() || optionalMember(root, "checkpointed"))
            trace.checkpointed = stepFromJson(root, "checkpointed");
        trace.snapshotDevice = static_cast<int>(optionalInt64(root, "snapshot_device", "").value_or(-1));
        trace.timeline = timelineFromJson(root, trace.timelineAxis);
        return trace;
    });
}

}  // namespace ckpt
