#include "memory/SnapshotTrace.h"

#include "graph/GraphError.h"

#include <algorithm>
#include <charconv>

namespace ckpt {

namespace {

using Action = SnapshotEvent::Action;

[[noreturn]] void failAt(const SnapshotEvent& event, const std::string& problem)
{
    throw GraphError(problem, "byte " + std::to_string(event.offset));
}

// The phase p of "ckptx:phase:<p>", or nullopt for any other name.
std::optional<int> markedPhase(const std::string& name)
{
    const std::string_view prefix = kPhaseMarkerPrefix;
    if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0)
        return std::nullopt;
    int phase = 0;
    const char* first = name.data() + prefix.size();
    const char* last = name.data() + name.size();
    const auto [end, ec] = std::from_chars(first, last, phase);
    if (ec != std::errc() || end != last || phase < 0)
        return std::nullopt;
    return phase;
}

const DeviceHistory& chooseDevice(const MemorySnapshot& snapshot, std::optional<int> device)
{
    std::vector<int> withHistory;
    for (const auto& d : snapshot.devices)
        if (!d.events.empty())
            withHistory.push_back(d.device);
    std::string list;
    for (int d : withHistory)
        list += (list.empty() ? "" : ", ") + std::to_string(d);
    if (device) {
        if (std::find(withHistory.begin(), withHistory.end(), *device) == withHistory.end())
            throw GraphError("device " + std::to_string(*device) + " has no allocation history" +
                             (list.empty() ? std::string() : " (devices with one: " + list + ")"));
        return snapshot.devices[static_cast<std::size_t>(*device)];
    }
    if (withHistory.empty())
        throw GraphError("no allocation history on any device: record with "
                         "torch.cuda.memory._record_memory_history() before the run");
    if (withHistory.size() > 1)
        throw GraphError("devices " + list + " have a history: choose one with --device");
    return snapshot.devices[static_cast<std::size_t>(withHistory.front())];
}

std::int64_t checkedAdd(std::int64_t a, std::int64_t b, const SnapshotEvent& at)
{
    std::int64_t sum = 0;
    if (__builtin_add_overflow(a, b, &sum))
        failAt(at, "allocated bytes overflow 64 bits");
    return sum;
}

// The allocated bytes after each event: history[i] is after events[i]; `start` before the first.
struct AllocatedBytes {
    std::int64_t start = 0;
    std::vector<std::int64_t> after;
};

AllocatedBytes allocatedBytes(const DeviceHistory& device)
{
    AllocatedBytes bytes;
    bytes.start = device.allocatedAtDump;
    for (const auto& e : device.events) {
        if (e.action == Action::Alloc)
            bytes.start = checkedAdd(bytes.start, -e.size, e);
        else if (e.action == Action::Free)
            bytes.start = checkedAdd(bytes.start, e.size, e);
    }
    std::int64_t live = bytes.start;
    bytes.after.reserve(device.events.size());
    for (const auto& e : device.events) {
        if (e.action == Action::Alloc)
            live = checkedAdd(live, e.size, e);
        else if (e.action == Action::Free)
            live = checkedAdd(live, -e.size, e);
        if (live < 0 || bytes.start < 0)
            failAt(e, "allocated bytes go negative: the history does not match the snapshot's segments");
        bytes.after.push_back(live);
    }
    return bytes;
}

// A marked step on the trace's phase index.
struct MarkedStep {
    bool checkpointed = true;
    bool labelled = false;           // inside a ckptx:step range
    std::int64_t baselineBytes = 0;  // allocated at the START of phase 0
    std::int64_t startUs = -1, endUs = -1;
    std::vector<MeasuredPhase> phases;  // the marked ones, in increasing order
};

// Cuts the history into steps by its phase markers (the header's rules); `last` = 2V + 1.
class StepCutter {
public:
    StepCutter(const DeviceHistory& device, const AllocatedBytes& bytes, int last)
        : m_device(device), m_bytes(bytes), m_last(last)
    {
    }

    std::vector<MarkedStep> run()
    {
        for (std::size_t i = 0; i < m_device.events.size(); ++i) {
            const SnapshotEvent& e = m_device.events[i];
            const std::int64_t before = i == 0 ? m_bytes.start : m_bytes.after[i - 1];
            m_now = m_bytes.after[i];
            if (e.action == Action::AnnotationStart || e.action == Action::AnnotationEnd)
                annotation(e, before);
            else if (m_open)
                m_peak = std::max(m_peak, m_now);
        }
        if (atLastPhase())
            closeStep(m_now, m_device.events.empty() ? -1 : m_device.events.back().timeUs);
        return std::move(m_complete);
    }

private:
    bool atLastPhase() const { return m_open && m_openPhase == m_last; }

    void annotation(const SnapshotEvent& e, std::int64_t now)
    {
        const bool start = e.action == Action::AnnotationStart;
        if (e.name == kRegularStepMarker || e.name == kCheckpointedStepMarker) {
            m_labelled = start;
            m_checkpointed = e.name == kCheckpointedStepMarker;
            // `profile` marks phase 0 just before it opens the step's range.
            if (start && m_open && m_openPhase == 0) {
                m_step.checkpointed = m_checkpointed;
                m_step.labelled = true;
            }
            if (!start && atLastPhase() && m_step.labelled)
                closeStep(now, e.timeUs);
            return;
        }
        const auto phase = markedPhase(e.name);
        if (!phase)
            return;
        if (*phase > m_last)
            failAt(e, "marker \"" + e.name + "\" is beyond the graph's last phase " + std::to_string(m_last) +
                          " (a marked run of another graph?)");
        if (!start) {
            // A labelled step's last phase ends with the step's range: `profile`'s phase ranges are empty.
            if (*phase == m_last && atLastPhase() && !m_step.labelled)
                closeStep(now, e.timeUs);
            return;
        }
        if (*phase == 0) {
            if (atLastPhase())
                closeStep(now, e.timeUs);
            m_step = MarkedStep{};
            m_step.checkpointed = !m_labelled || m_checkpointed;
            m_step.labelled = m_labelled;
            m_step.baselineBytes = now;
            m_step.startUs = e.timeUs;
            openPhase(0, now);
        } else if (m_open && *phase > m_openPhase) {
            m_step.phases.push_back({m_openPhase, now, m_peak});
            openPhase(*phase, now);
        } else {
            m_open = false;  // out of order: this step does not count
        }
    }

    void openPhase(int phase, std::int64_t now)
    {
        m_open = true;
        m_openPhase = phase;
        m_peak = now;
    }

    void closeStep(std::int64_t now, std::int64_t timeUs)
    {
        m_step.phases.push_back({m_openPhase, now, m_peak});
        m_step.endUs = timeUs;
        m_complete.push_back(std::move(m_step));
        m_open = false;
    }

    const DeviceHistory& m_device;
    const AllocatedBytes& m_bytes;
    const int m_last;
    bool m_labelled = false, m_checkpointed = false;
    bool m_open = false;
    int m_openPhase = 0;
    std::int64_t m_peak = 0, m_now = 0;
    MarkedStep m_step;
    std::vector<MarkedStep> m_complete;
};

// A step with every phase of the trace's index: an unmarked phase (the input's, a vertex whose
// output needs no gradient) holds the previous phase's end, as `profile` lists it.
StepMemory traceStep(const MarkedStep& step, int last)
{
    StepMemory out;
    auto marked = step.phases.begin();
    for (int i = 0; i <= last; ++i) {
        MeasuredPhase p{i, 0, 0};
        if (marked != step.phases.end() && marked->index == i) {
            p = *marked++;
        } else {
            p.endBytes = p.peakBytes = out.phases.back().endBytes;
        }
        out.phases.push_back(p);
        out.peakBytes = std::max(out.peakBytes, p.peakBytes);
    }
    if (step.startUs >= 0 && step.endUs >= step.startUs)
        out.stepMs = static_cast<double>(step.endUs - step.startUs) / 1000.0;
    return out;
}

std::vector<TimelineSample> timeline(const DeviceHistory& device, const AllocatedBytes& bytes, TimelineAxis axis)
{
    std::vector<TimelineSample> samples;
    auto x = [&](std::size_t i) {
        return axis == TimelineAxis::TimeUs ? device.events[i].timeUs : static_cast<std::int64_t>(i);
    };
    samples.push_back({x(0), bytes.start});
    for (std::size_t i = 0; i < device.events.size(); ++i) {
        const Action a = device.events[i].action;
        if (a == Action::Alloc || a == Action::Free)
            samples.push_back({x(i), bytes.after[i]});
    }
    return samples;
}

}  // namespace

SnapshotImport traceFromSnapshot(const MemorySnapshot& snapshot, const SnapshotImportOptions& options)
{
    const DeviceHistory& device = chooseDevice(snapshot, options.device);
    const AllocatedBytes bytes = allocatedBytes(device);

    SnapshotImport result;
    ProfileTrace& trace = result.trace;
    trace.source = kSnapshotSource;
    trace.model = options.model;
    trace.device = "cuda";
    trace.snapshotDevice = device.device;
    const bool timed = std::all_of(device.events.begin(), device.events.end(),
                                   [](const SnapshotEvent& e) { return e.timeUs >= 0; });
    trace.timelineAxis = timed ? TimelineAxis::TimeUs : TimelineAxis::Event;
    trace.timeline = timeline(device, bytes, trace.timelineAxis);
    trace.baselineBytes = bytes.start;
    for (const auto& e : device.events) {
        result.oomEvents += e.action == Action::Oom;
        result.phaseMarkers = result.phaseMarkers || (e.action == Action::AnnotationStart && markedPhase(e.name));
    }
    if (!options.graph || !result.phaseMarkers)
        return result;

    const Graph& graph = *options.graph;
    const int last = 2 * graph.vertexCount() + 1;
    const auto steps = StepCutter(device, bytes, last).run();
    result.completeSteps = static_cast<int>(steps.size());
    if (steps.empty())
        throw GraphError("the history has ckptx:phase markers, but no step marks phases 0 to " + std::to_string(last) +
                         " of the graph in increasing order (another graph, or a cut history?)");
    for (VertexIndex v : graph.topologicalOrder())
        trace.vertices.push_back(graph.vertex(v).id);
    const MarkedStep* lastRegular = nullptr;
    const MarkedStep* lastCheckpointed = nullptr;
    for (const auto& step : steps)
        (step.checkpointed ? lastCheckpointed : lastRegular) = &step;
    if (lastRegular)
        trace.regular = traceStep(*lastRegular, last);
    if (lastCheckpointed)
        trace.checkpointed = traceStep(*lastCheckpointed, last);
    trace.baselineBytes = (lastCheckpointed ? lastCheckpointed : lastRegular)->baselineBytes;
    return result;
}

}  // namespace ckpt
