#include "io/MemorySnapshot.h"

#include "graph/GraphError.h"
#include "io/PickleReader.h"
#include "io/TextFile.h"

#include <algorithm>
#include <filesystem>
#include <optional>

namespace ckpt {

namespace {

using Kind = PickleValue::Kind;

class SnapshotReader {
public:
    // Every value is visited about once in a real snapshot; memo references let a hostile one
    // repeat a big list or dict cheaply, so visits are budgeted by the pickle's size.
    explicit SnapshotReader(const PickleDocument& doc) : m_doc(doc), m_visits(2 * doc.valueCount() + 1024) {}

    MemorySnapshot read()
    {
        const PickleValue& root = m_doc.root();
        if (root.kind == Kind::List)
            fail(root, "", "a list of segments (torch.cuda.memory_snapshot()) has no allocation history: "
                           "save the run with torch.cuda.memory._dump_snapshot()");
        expect(root, Kind::Dict, "");
        const PickleValue* traces = m_doc.member(root, "device_traces");
        if (!traces)
            fail(root, "", "no \"device_traces\": record with torch.cuda.memory._record_memory_history() "
                           "before the run");
        expect(*traces, Kind::List, "device_traces");
        MemorySnapshot snapshot;
        for (std::size_t d = 0; d < traces->items.size(); ++d) {
            const std::string path = "device_traces/" + std::to_string(d);
            const PickleValue& list = expect(item(*traces, d, "device_traces"), Kind::List, path);
            DeviceHistory history;
            history.device = static_cast<int>(d);
            for (std::size_t i = 0; i < list.items.size(); ++i)
                if (auto event = traceEntry(item(list, i, path), path + "/" + std::to_string(i)))
                    history.events.push_back(std::move(*event));
            snapshot.devices.push_back(std::move(history));
        }
        if (const PickleValue* segments = m_doc.member(root, "segments"))
            addSegments(*segments, snapshot);
        if (const PickleValue* annotations = m_doc.member(root, "external_annotations"))
            addAnnotations(*annotations, snapshot);
        return snapshot;
    }

private:
    [[noreturn]] void fail(const PickleValue& at, const std::string& path, const std::string& problem) const
    {
        std::string where = "byte " + std::to_string(at.offset);
        if (!path.empty())
            where += " (" + path + ")";
        throw GraphError(problem, where);
    }

    const PickleValue& expect(const PickleValue& v, Kind kind, const std::string& path) const
    {
        if (v.kind != kind)
            fail(v, path, std::string("expected a ") + pickleKindName(kind) + ", got " + pickleKindName(v.kind));
        return v;
    }

    // The i-th item of a list being walked.
    const PickleValue& item(const PickleValue& list, std::size_t i, const std::string& path)
    {
        if (m_visits-- == 0)
            fail(list, path, "the pickle repeats the same data too often to be a snapshot");
        return m_doc.at(list.items[i]);
    }

    const PickleValue& member(const PickleValue& dict, const char* key, Kind kind, const std::string& path) const
    {
        if (dict.items.size() > 2 * kMaxKeys)
            fail(dict, path, "a dict of " + std::to_string(dict.items.size() / 2) + " keys where a snapshot has a few");
        const PickleValue* v = m_doc.member(dict, key);
        if (!v)
            fail(dict, path, std::string("missing \"") + key + "\"");
        return expect(*v, kind, path + "/" + key);
    }

    std::int64_t size(const PickleValue& dict, const char* key, const std::string& path) const
    {
        const PickleValue& v = member(dict, key, Kind::Int, path);
        if (v.integer < 0)
            fail(v, path + "/" + key, "negative size " + std::to_string(v.integer));
        return v.integer;
    }

    std::int64_t time(const PickleValue& dict, const std::string& path) const
    {
        return m_doc.member(dict, "time_us") ? member(dict, "time_us", Kind::Int, path).integer : -1;
    }

    std::optional<SnapshotEvent> traceEntry(const PickleValue& entry, const std::string& path)
    {
        expect(entry, Kind::Dict, path);
        const std::string& action = member(entry, "action", Kind::String, path).text;
        SnapshotEvent event;
        event.offset = entry.offset;
        if (action == "alloc" || action == "free_requested") {
            event.action = action == "alloc" ? SnapshotEvent::Action::Alloc : SnapshotEvent::Action::Free;
            event.size = size(entry, "size", path);
            if (m_doc.member(entry, "addr"))
                event.address = member(entry, "addr", Kind::Int, path).integer;
        } else if (action == "oom") {
            event.action = SnapshotEvent::Action::Oom;
            event.size = size(entry, "size", path);
        } else if (action == "user_defined") {
            // torch 2.4: a record_function START/END, its name in the first frame's filename.
            const PickleValue& frames = member(entry, "frames", Kind::List, path);
            if (frames.items.empty())
                fail(frames, path + "/frames", "a user_defined entry without a frame");
            const PickleValue& frame = expect(m_doc.at(frames.items[0]), Kind::Dict, path + "/frames/0");
            event.action = stage(member(frame, "name", Kind::String, path + "/frames/0"), path + "/frames/0/name");
            event.name = member(frame, "filename", Kind::String, path + "/frames/0").text;
        } else {
            return std::nullopt;  // free_completed, segment_*, snapshot: not allocated bytes
        }
        event.timeUs = time(entry, path);
        return event;
    }

    SnapshotEvent::Action stage(const PickleValue& v, const std::string& path) const
    {
        if (v.text == "START")
            return SnapshotEvent::Action::AnnotationStart;
        if (v.text == "END")
            return SnapshotEvent::Action::AnnotationEnd;
        fail(v, path, "an annotation stage is START or END, got \"" + v.text + "\"");
    }

    DeviceHistory& device(MemorySnapshot& snapshot, const PickleValue& v, const std::string& path) const
    {
        expect(v, Kind::Int, path);
        if (v.integer < 0 || v.integer >= static_cast<std::int64_t>(snapshot.devices.size()))
            fail(v, path, "device " + std::to_string(v.integer) + ", but device_traces has " +
                              std::to_string(snapshot.devices.size()) + " devices");
        return snapshot.devices[static_cast<std::size_t>(v.integer)];
    }

    void addSegments(const PickleValue& segments, MemorySnapshot& snapshot)
    {
        expect(segments, Kind::List, "segments");
        for (std::size_t s = 0; s < segments.items.size(); ++s) {
            const std::string path = "segments/" + std::to_string(s);
            const PickleValue& segment = expect(item(segments, s, "segments"), Kind::Dict, path);
            DeviceHistory& history = device(snapshot, member(segment, "device", Kind::Int, path), path + "/device");
            const PickleValue& blocks = member(segment, "blocks", Kind::List, path);
            SnapshotSegment layout;
            const PickleValue* type = m_doc.member(segment, "segment_type");
            layout.large = type && type->kind == Kind::String && type->text == "large";
            bool addressed = true;
            for (std::size_t b = 0; b < blocks.items.size(); ++b) {
                const std::string at = path + "/blocks/" + std::to_string(b);
                const PickleValue& block = expect(item(blocks, b, path), Kind::Dict, at);
                const bool allocated = member(block, "state", Kind::String, at).text == "active_allocated";
                // The history's entries carry requested sizes (torch/csrc/cuda/CUDACachingAllocator.cpp
                // records orig_size); a block's "size" also holds its rounding and any unsplit rest.
                const char* key = m_doc.member(block, "requested_size") ? "requested_size" : "size";
                const std::int64_t requested = size(block, key, at);
                addressed = addressed && m_doc.member(block, "address");
                if (addressed)
                    layout.blocks.push_back({member(block, "address", Kind::Int, at).integer, size(block, "size", at),
                                             requested, allocated});
                if (allocated && __builtin_add_overflow(history.allocatedAtDump, requested, &history.allocatedAtDump))
                    fail(block, at, "allocated bytes overflow 64 bits");
            }
            if (addressed && !layout.blocks.empty())
                history.segments.push_back(std::move(layout));
        }
    }

    // torch ≥ 2.5 keeps record_function annotations apart; they join their device's events by time.
    void addAnnotations(const PickleValue& annotations, MemorySnapshot& snapshot)
    {
        expect(annotations, Kind::List, "external_annotations");
        std::vector<std::vector<SnapshotEvent>> perDevice(snapshot.devices.size());
        for (std::size_t i = 0; i < annotations.items.size(); ++i) {
            const std::string path = "external_annotations/" + std::to_string(i);
            const PickleValue& entry = expect(item(annotations, i, "external_annotations"), Kind::Dict, path);
            const DeviceHistory& history = device(snapshot, member(entry, "device", Kind::Int, path), path + "/device");
            SnapshotEvent event;
            event.offset = entry.offset;
            event.action = stage(member(entry, "stage", Kind::String, path), path + "/stage");
            event.name = member(entry, "name", Kind::String, path).text;
            event.timeUs = member(entry, "time_us", Kind::Int, path).integer;
            perDevice[static_cast<std::size_t>(history.device)].push_back(std::move(event));
        }
        for (std::size_t d = 0; d < perDevice.size(); ++d)
            merge(snapshot.devices[d].events, std::move(perDevice[d]));
    }

    // An annotation goes before the events of its microsecond: a phase's marker is recorded
    // before the phase allocates.
    static void merge(std::vector<SnapshotEvent>& events, std::vector<SnapshotEvent> annotations)
    {
        if (annotations.empty())
            return;
        auto byTime = [](const SnapshotEvent& a, const SnapshotEvent& b) { return a.timeUs < b.timeUs; };
        std::stable_sort(annotations.begin(), annotations.end(), byTime);
        std::vector<SnapshotEvent> merged;
        merged.reserve(events.size() + annotations.size());
        auto e = events.begin();
        for (auto& a : annotations) {
            for (; e != events.end() && e->timeUs < a.timeUs; ++e)
                merged.push_back(std::move(*e));
            merged.push_back(std::move(a));
        }
        std::move(e, events.end(), std::back_inserter(merged));
        events = std::move(merged);
    }

    static constexpr std::size_t kMaxKeys = 64;
    const PickleDocument& m_doc;
    std::size_t m_visits;
};

}  // namespace

MemorySnapshot parseMemorySnapshot(std::string_view bytes, const std::string& file)
{
    try {
        return SnapshotReader(parsePickle(bytes)).read();
    } catch (const GraphError& e) {
        throw e.inFile(file);
    }
}

MemorySnapshot readMemorySnapshotFile(const std::string& path)
{
    std::error_code ec;
    const auto status = std::filesystem::status(path, ec);
    if (ec)
        throw GraphError("cannot open: " + ec.message(), {}, path);
    if (!std::filesystem::is_regular_file(status))
        throw GraphError("not a regular file", {}, path);
    const auto bytes = std::filesystem::file_size(path, ec);
    if (!ec && bytes > kMaxSnapshotBytes)
        throw GraphError("larger than " + std::to_string(kMaxSnapshotBytes >> 20) + " MiB (" + std::to_string(bytes) +
                             " bytes)",
                         {}, path);
    return parseMemorySnapshot(readInputFile(path), path);
}

}  // namespace ckpt
