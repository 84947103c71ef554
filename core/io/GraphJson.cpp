#include "io/GraphJson.h"

#include "graph/GraphBuilder.h"
#include "graph/GradientFlow.h"
#include "io/JsonAccess.h"
#include "io/NetworkxJson.h"
#include "io/TextFile.h"
#include "memory/OptimizerStep.h"

#include <algorithm>
#include <span>
#include <exception>
#include <stdexcept>

namespace ckpt {

using namespace json_access;

namespace {

// A list of vertex ids a vertex holds (`key`) may only name vertices `allowed(self, named)` admits;
// otherwise the error says `rule`.
template <class Names, class Allowed>
void checkNamedVertices(const Graph& graph, const std::string& key, Names names, Allowed allowed,
                        const std::string& rule)
{
    int index = 0;
    for (const Vertex& v : graph.vertices()) {
        if (v.isVirtual)
            continue;
        const std::string at = "/vertices/" + std::to_string(index++) + "/" + key;
        const VertexIndex self = *graph.find(v.id);
        const std::vector<std::string>& named = names(v);
        for (std::size_t i = 0; i < named.size(); ++i) {
            const auto w = graph.find(named[i]);
            if (!w || !allowed(self, *w))
                throw GraphError("\"" + named[i] + "\" " + rule, at + "/" + std::to_string(i));
        }
    }
}

bool contains(std::span<const VertexIndex> vertices, VertexIndex w)
{
    return std::find(vertices.begin(), vertices.end(), w) != vertices.end();
}

// The most entries any vertex has in one of its lists (static_values, tensors).
template <typename List>
std::size_t mostEntries(const Graph& graph, List list)
{
    std::size_t most = 0;
    for (const Vertex& v : graph.vertices())
        most = std::max(most, list(*v.autograd).size());
    return most;
}

// P44: `static_values`, or the one entry of older files' static_value_bytes and static_value_readers.
std::vector<StaticValue> readStaticValues(const json& item, const std::string& at)
{
    const bool older = item.contains("static_value_bytes") || item.contains("static_value_readers");
    if (!item.contains("static_values")) {
        StaticValue value;
        value.bytes = optionalInt64(item, "static_value_bytes", at).value_or(0);
        value.readers = optionalStringArray(item, "static_value_readers", at).value_or(std::vector<std::string>{});
        if (value.bytes < 0)
            throw GraphError("static_value_bytes must be >= 0", at + "/static_value_bytes");
        return older ? std::vector<StaticValue>{value} : std::vector<StaticValue>{};
    }
    if (older)
        throw GraphError("give static_values or the older static_value_bytes and static_value_readers, not both",
                         at + "/static_values");
    std::vector<StaticValue> values;
    const json& list = requireArray(item, "static_values", at);
    for (std::size_t k = 0; k < list.size(); ++k) {
        const std::string where = at + "/static_values/" + std::to_string(k);
        const json& entry = requireObject(list[k], where);
        StaticValue value;
        value.bytes = requireByteCount(entry, "bytes", where);
        value.savedBytes = optionalInt64(entry, "saved_bytes", where).value_or(0);  // GraphBuilder checks it
        value.remadeSavedBytes = optionalInt64(entry, "remade_saved_bytes", where).value_or(0);
        value.readers = optionalStringArray(entry, "readers", where).value_or(std::vector<std::string>{});
        values.push_back(std::move(value));
    }
    return values;
}

// P52: `tensors`, each with its bytes, readers and savers.
std::vector<OutputTensor> readOutputTensors(const json& item, const std::string& at)
{
    std::vector<OutputTensor> tensors;
    if (!item.contains("tensors"))
        return tensors;
    const json& list = requireArray(item, "tensors", at);
    for (std::size_t k = 0; k < list.size(); ++k) {
        const std::string where = at + "/tensors/" + std::to_string(k);
        const json& entry = requireObject(list[k], where);
        OutputTensor tensor;
        tensor.bytes = requireByteCount(entry, "bytes", where);
        tensor.readBy = optionalStringArray(entry, "read_by", where).value_or(std::vector<std::string>{});
        tensor.savedBy = optionalStringArray(entry, "saved_by", where).value_or(std::vector<std::string>{});
        tensors.push_back(std::move(tensor));
    }
    return tensors;
}

// P53: each group names at least two inputs, and an input is in one group at most.
void checkGradientGroups(const Vertex& v, const std::string& at)
{
    std::vector<std::string> seen;
    const auto& groups = v.autograd->formsOneGradientFor;
    for (std::size_t k = 0; k < groups.size(); ++k) {
        if (groups[k].size() < 2)
            throw GraphError("a group of inputs that share one gradient names at least two", at + "/" + std::to_string(k));
        for (std::size_t i = 0; i < groups[k].size(); ++i) {
            if (std::find(seen.begin(), seen.end(), groups[k][i]) != seen.end())
                throw GraphError("\"" + groups[k][i] + "\" is named twice", at + "/" + std::to_string(k) + "/" + std::to_string(i));
            seen.push_back(groups[k][i]);
        }
    }
}

// saved_by may only name the vertex itself or its successors (the backwards that can keep it),
// passes_gradient_to, slices_gradient_to, forms_one_gradient_for and reads_without_gradient only its inputs,
// passes_gradient_view_to only those in passes_gradient_to, static_values' readers only vertices after
// it, static_gradient_until any vertex, tied_parameter_until one before the vertex.
void checkNamedVertices(const Graph& graph)
{
    static const std::vector<std::string> none;
    checkNamedVertices(
        graph, "saved_by",
        [](const Vertex& v) -> const auto& { return v.autograd->savedBy ? *v.autograd->savedBy : none; },
        [&graph](VertexIndex self, VertexIndex w) { return w == self || contains(graph.successors(self), w); },
        "is neither the vertex nor one of its successors");
    checkNamedVertices(
        graph, "passes_gradient_to", [](const Vertex& v) -> const auto& { return v.autograd->passesGradientTo; },
        [&graph](VertexIndex self, VertexIndex w) { return contains(graph.predecessors(self), w); },
        "is not an input of the vertex");
    checkNamedVertices(
        graph, "passes_gradient_view_to",
        [](const Vertex& v) -> const auto& { return v.autograd->passesGradientViewTo; },
        [&graph](VertexIndex self, VertexIndex w) { return passesOwnGradient(graph, self, w); },
        "is not in the vertex's passes_gradient_to");
    checkNamedVertices(
        graph, "slices_gradient_to", [](const Vertex& v) -> const auto& { return v.autograd->slicesGradientTo; },
        [&graph](VertexIndex self, VertexIndex w) { return contains(graph.predecessors(self), w); },
        "is not an input of the vertex");
    checkNamedVertices(
        graph, "backward_workspace_held_inputs",
        [](const Vertex& v) -> const auto& { return v.autograd->backwardWorkspaceHeldInputs; },
        [&graph](VertexIndex self, VertexIndex w) { return contains(graph.predecessors(self), w); },
        "is not an input of the vertex");
    checkNamedVertices(
        graph, "reads_without_gradient",
        [](const Vertex& v) -> const auto& { return v.autograd->readsWithoutGradient; },
        [&graph](VertexIndex self, VertexIndex w) { return contains(graph.predecessors(self), w); },
        "is not an input of the vertex");
    const std::size_t tensorLists = mostEntries(graph, [](const AutogradFacts& f) -> const auto& { return f.tensors; });
    for (std::size_t k = 0; k < tensorLists; ++k) {
        checkNamedVertices(
            graph, "tensors/" + std::to_string(k) + "/read_by",
            [k](const Vertex& v) -> const auto& { return k < v.autograd->tensors.size() ? v.autograd->tensors[k].readBy : none; },
            [&graph](VertexIndex self, VertexIndex w) { return contains(graph.successors(self), w); },
            "is not a successor of the vertex");
        checkNamedVertices(
            graph, "tensors/" + std::to_string(k) + "/saved_by",
            [k](const Vertex& v) -> const auto& { return k < v.autograd->tensors.size() ? v.autograd->tensors[k].savedBy : none; },
            [&graph](VertexIndex self, VertexIndex w) {
                const auto& savers = graph.vertex(self).autograd->savedBy;
                return savers && std::find(savers->begin(), savers->end(), graph.vertex(w).id) != savers->end();
            },
            "is not in the vertex's saved_by");
    }
    const std::size_t gradientGroups =
        mostEntries(graph, [](const AutogradFacts& f) -> const auto& { return f.formsOneGradientFor; });
    for (std::size_t k = 0; k < gradientGroups; ++k)
        checkNamedVertices(
            graph, "forms_one_gradient_for/" + std::to_string(k),
            [k](const Vertex& v) -> const auto& {
                return k < v.autograd->formsOneGradientFor.size() ? v.autograd->formsOneGradientFor[k] : none;
            },
            [&graph](VertexIndex self, VertexIndex w) { return contains(graph.predecessors(self), w); },
            "is not an input of the vertex");
    const std::size_t staticValueLists =
        mostEntries(graph, [](const AutogradFacts& f) -> const auto& { return f.staticValues; });
    for (std::size_t k = 0; k < staticValueLists; ++k)
        checkNamedVertices(
            graph, "static_values/" + std::to_string(k) + "/readers",
            [k](const Vertex& v) -> const auto& {
                return k < v.autograd->staticValues.size() ? v.autograd->staticValues[k].readers : none;
            },
            [&graph](VertexIndex self, VertexIndex w) {
                return graph.topologicalPosition(w) > graph.topologicalPosition(self);
            },
            "is not a vertex after the vertex");
    int index = 0;
    for (const Vertex& v : graph.vertices()) {
        if (v.isVirtual)
            continue;
        checkGradientGroups(v, "/vertices/" + std::to_string(index) + "/forms_one_gradient_for");
        if (!v.autograd->staticGradientUntil.empty() && !graph.find(v.autograd->staticGradientUntil))
            throw GraphError("\"" + v.autograd->staticGradientUntil + "\" is not a vertex",
                             "/vertices/" + std::to_string(index) + "/static_gradient_until");
        if (const std::string& owner = v.autograd->addsWeightGradientTo; !owner.empty()) {
            const auto w = graph.find(owner);
            if (!w || graph.topologicalPosition(*w) <= graph.topologicalPosition(*graph.find(v.id)))
                throw GraphError("\"" + owner + "\" is not a vertex after \"" + v.id + "\"",
                                 "/vertices/" + std::to_string(index) + "/adds_weight_gradient_to");
        }
        if (const std::string& until = v.autograd->tiedParameterUntil; !until.empty()) {
            const auto w = graph.find(until);
            const VertexIndex self = *graph.find(v.id);
            if (!w || graph.topologicalPosition(*w) >= graph.topologicalPosition(self))
                throw GraphError("\"" + until + "\" is not a vertex before \"" + v.id + "\"",
                                 "/vertices/" + std::to_string(index) + "/tied_parameter_until");
        }
        ++index;
    }
}

Vertex vertexFromJson(const json& value, const std::string& at)
{
    const json& item = requireObject(value, at);
    Vertex v;
    v.id = requireString(item, "id", at);
    v.bytes = requireInt64(item, "bytes", at);
    if (v.bytes < 0)
        throw GraphError("bytes must be >= 0, got " + std::to_string(v.bytes), at + "/bytes");
    v.name = optionalString(item, "name", at).value_or("");
    v.op = optionalString(item, "op", at).value_or("");
    v.shape = optionalIntArray(item, "shape", at);
    v.dtype = optionalString(item, "dtype", at).value_or("");
    v.compute = optionalNumber(item, "compute", at);
    if (v.compute && *v.compute < 0)
        throw GraphError("compute must be >= 0", at + "/compute");
    v.module = optionalString(item, "module", at).value_or("");
    // Optional byte counts of the pytorch memory model: absent = 0, never negative.
    auto optionalBytes = [&](const char* key) {
        const std::int64_t bytes = optionalInt64(item, key, at).value_or(0);
        if (bytes < 0)
            throw GraphError(std::string(key) + " must be >= 0", at + "/" + key);
        return bytes;
    };
    // Stored only when the file gives any: a published graph's vertices need no room for them.
    AutogradFacts facts;
    facts.parameterBytes = optionalBytes("parameter_bytes");
    facts.staticGradientBytes = optionalBytes("static_gradient_bytes");
    facts.staticGradientUntil = optionalString(item, "static_gradient_until", at).value_or("");
    facts.slicesGradientToStatics = optionalBool(item, "slices_gradient_to_statics", at).value_or(false);
    facts.staticValues = readStaticValues(item, at);
    facts.tensors = readOutputTensors(item, at);
    facts.tiedParameterBytes = optionalBytes("tied_parameter_bytes");
    if (facts.tiedParameterBytes > facts.parameterBytes)
        throw GraphError("tied_parameter_bytes (" + std::to_string(facts.tiedParameterBytes) +
                             ") must be at most parameter_bytes (" + std::to_string(facts.parameterBytes) + ")",
                         at + "/tied_parameter_bytes");
    facts.tiedParameterUntil = optionalString(item, "tied_parameter_until", at).value_or("");
    facts.addsWeightGradientTo = optionalString(item, "adds_weight_gradient_to", at).value_or("");
    facts.sharedWeightGradientBytes = optionalBytes("shared_weight_gradient_bytes");
    facts.sharedWeightSumBytes = optionalBytes("shared_weight_sum_bytes");
    if (facts.addsWeightGradientTo.empty() && (facts.sharedWeightGradientBytes || facts.sharedWeightSumBytes))
        throw GraphError("shared_weight_gradient_bytes and shared_weight_sum_bytes need adds_weight_gradient_to",
                         at + "/adds_weight_gradient_to");
    if (optionalMember(item, "gradient_bytes"))
        facts.gradientBytes = optionalBytes("gradient_bytes");
    facts.savedBytes = optionalBytes("saved_bytes");
    facts.savedBy = optionalStringArray(item, "saved_by", at);
    facts.forwardWorkspaceBytes = optionalBytes("forward_workspace_bytes");
    facts.backwardWorkspaceBytes = optionalBytes("backward_workspace_bytes");
    if (optionalMember(item, "checkpointed_forward_workspace_bytes"))
        facts.checkpointedForwardWorkspaceBytes = optionalBytes("checkpointed_forward_workspace_bytes");
    if (optionalMember(item, "copied_statics_forward_workspace_bytes"))
        facts.copiedStaticsForwardWorkspaceBytes = optionalBytes("copied_statics_forward_workspace_bytes");
    if (optionalMember(item, "backward_workspace_released_bytes"))
        facts.backwardWorkspaceReleasedBytes = optionalBytes("backward_workspace_released_bytes");
    if (optionalMember(item, "backward_released_rise_bytes"))
        facts.backwardReleasedRiseBytes = optionalBytes("backward_released_rise_bytes");
    if (optionalMember(item, "first_backward_node_bytes"))
        facts.firstBackwardNodeBytes = optionalBytes("first_backward_node_bytes");
    const bool partlyReleased = optionalMember(item, "backward_workspace_partly_released_bytes") != nullptr;
    if (const bool heldInputs = optionalMember(item, "backward_workspace_held_inputs") != nullptr; partlyReleased != heldInputs)
        throw GraphError("give backward_workspace_partly_released_bytes and backward_workspace_held_inputs together",
                         at + (heldInputs ? "/backward_workspace_held_inputs" : "/backward_workspace_partly_released_bytes"));
    if (partlyReleased) {
        facts.backwardWorkspacePartlyReleasedBytes = optionalBytes("backward_workspace_partly_released_bytes");
        facts.backwardWorkspaceHeldInputs =
            optionalStringArray(item, "backward_workspace_held_inputs", at).value_or(std::vector<std::string>{});
    }
    if (optionalMember(item, "leaf_inputs_backward_workspace_bytes"))
        facts.leafInputsBackwardWorkspaceBytes = optionalBytes("leaf_inputs_backward_workspace_bytes");
    if (optionalMember(item, "leaf_inputs_backward_rise_bytes"))
        facts.leafInputsBackwardRiseBytes = optionalBytes("leaf_inputs_backward_rise_bytes");
    if (optionalMember(item, "engine_backward_workspace_bytes"))
        facts.engineBackwardWorkspaceBytes = optionalBytes("engine_backward_workspace_bytes");
    if (optionalMember(item, "engine_backward_workspace_released_bytes"))
        facts.engineBackwardWorkspaceReleasedBytes = optionalBytes("engine_backward_workspace_released_bytes");
    if (optionalMember(item, "engine_backward_released_rise_bytes"))
        facts.engineBackwardReleasedRiseBytes = optionalBytes("engine_backward_released_rise_bytes");
    if (optionalMember(item, "engine_first_node_bytes"))
        facts.engineFirstNodeBytes = optionalBytes("engine_first_node_bytes");
    facts.savesOther = optionalBool(item, "saves_other", at).value_or(false);
    v.batchScaled = optionalBool(item, "batch_scaled", at).value_or(true);
    v.requiresGrad = optionalBool(item, "requires_grad", at).value_or(true);
    v.drawsRandom = optionalBool(item, "draws_random", at).value_or(false);
    v.output = optionalBool(item, "output", at).value_or(false);
    v.backward = optionalBool(item, "backward", at).value_or(false);
    facts.passesGradientTo = optionalStringArray(item, "passes_gradient_to", at).value_or(std::vector<std::string>{});
    facts.passesGradientViewTo =
        optionalStringArray(item, "passes_gradient_view_to", at).value_or(std::vector<std::string>{});
    facts.slicesGradientTo = optionalStringArray(item, "slices_gradient_to", at).value_or(std::vector<std::string>{});
    facts.formsOneGradientFor =
        optionalStringArrays(item, "forms_one_gradient_for", at).value_or(std::vector<std::vector<std::string>>{});
    facts.readsWithoutGradient =
        optionalStringArray(item, "reads_without_gradient", at).value_or(std::vector<std::string>{});
    v.autograd = std::move(facts);
    return v;
}

// Our schema's vertices and edges, read while the file is parsed (StreamedArrays). The first
// error of each array is kept until the document's own fields are checked, so that a file
// reports what it did before streaming: schema, version, metadata, then vertices, then edges.
class StreamedGraphItems {
public:
    StreamedArrays arrays()
    {
        return {{"vertices", "edges"}, [this](const std::string& key, std::size_t index, StreamedItem& item) {
                    read(key == "edges", index, item);
                }};
    }

    GraphBuilder& builder() { return m_builder; }
    void throwVertexError() const { rethrow(m_vertexError); }
    void throwEdgeError() const { rethrow(m_edgeError); }

private:
    void read(bool isEdge, std::size_t index, StreamedItem& item)
    {
        std::exception_ptr& error = isEdge ? m_edgeError : m_vertexError;
        if (error)
            return;
        // The common edge, an object of string members with both ends, goes straight to the builder;
        // anything else is read as json, which names what is wrong with it.
        if (const StringRecord* record = item.stringRecord(); isEdge && record) {
            const std::string* from = record->find("from");
            const std::string* to = record->find("to");
            if (from && to) {
                const std::string* op = record->find("op");
                m_builder.addEdge(*from, *to, op ? *op : std::string_view{});
                return;
            }
        }
        const json value = std::move(item).value();
        const std::string at = (isEdge ? "/edges/" : "/vertices/") + std::to_string(index);
        try {
            if (isEdge) {
                requireObject(value, at);
                m_builder.addEdge(requireString(value, "from", at), requireString(value, "to", at),
                                  optionalString(value, "op", at).value_or(""));
            } else {
                m_builder.addVertex(vertexFromJson(value, at));
            }
        } catch (const GraphError&) {
            error = std::current_exception();
        }
    }
    static void rethrow(const std::exception_ptr& error)
    {
        if (error)
            std::rethrow_exception(error);
    }

    GraphBuilder m_builder;
    std::exception_ptr m_vertexError, m_edgeError;
};

Graph graphFromOurJson(const json& root, StreamedGraphItems& items)
{
    if (auto schema = optionalString(root, "schema", ""); schema && *schema != kGraphSchema)
        throw GraphError("unknown schema \"" + *schema + "\" (expected \"" + kGraphSchema + "\")", "/schema");
    if (auto version = optionalInt64(root, "version", ""); version && *version != kGraphSchemaVersion)
        throw GraphError("unsupported version " + std::to_string(*version) + " (this build reads version " +
                             std::to_string(kGraphSchemaVersion) + ")",
                         "/version");
    GraphBuilder& builder = items.builder();
    if (auto name = optionalString(root, "name", ""))
        builder.setName(*name);
    if (const json* metadata = optionalMember(root, "metadata")) {
        requireObject(*metadata, "/metadata");
        for (const auto& [key, value] : metadata->items())
            builder.setMetadata(key, value.dump());
    }
    requireArray(root, "vertices", "");
    items.throwVertexError();
    if (optionalMember(root, "edges"))
        requireArray(root, "edges", "");
    items.throwEdgeError();
    Graph graph = std::move(builder).build();
    checkNamedVertices(graph);
    measuredOptimizer(graph);  // every plan's costs read these: a bad one is the file's error (P35)
    return graph;
}

}  // namespace

Graph parseGraphJson(const std::string& text, const std::string& file)
{
    return readingFile(file, [&] {
        StreamedGraphItems items;
        json root = parse(text, items.arrays());
        requireObject(root, "");
        if (looksLikeNetworkx(root))
            return graphFromNetworkx(root);
        return graphFromOurJson(root, items);
    });
}

Graph readGraphFile(const std::string& path)
{
    return parseGraphJson(readInputFile(path), path);
}

std::string toGraphJson(const Graph& graph)
{
    json root;
    root["schema"] = kGraphSchema;
    root["version"] = kGraphSchemaVersion;
    if (!graph.name().empty())
        root["name"] = graph.name();
    if (!graph.metadata().empty()) {
        json metadata = json::object();
        for (const auto& [key, value] : graph.metadata())
            metadata[key] = json::parse(value);
        root["metadata"] = metadata;
    }
    json vertices = json::array();
    for (const Vertex& v : graph.vertices()) {
        if (v.isVirtual)
            continue;
        json item;
        item["id"] = v.id;
        if (!v.name.empty())
            item["name"] = v.name;
        if (!v.op.empty())
            item["op"] = v.op;
        item["bytes"] = v.bytes;
        if (v.shape)
            item["shape"] = *v.shape;
        if (!v.dtype.empty())
            item["dtype"] = v.dtype;
        if (v.compute)
            item["compute"] = *v.compute;
        if (!v.module.empty())
            item["module"] = v.module;
        const AutogradFacts& f = *v.autograd;
        if (f.parameterBytes > 0)
            item["parameter_bytes"] = f.parameterBytes;
        if (f.staticGradientBytes > 0)
            item["static_gradient_bytes"] = f.staticGradientBytes;
        if (!f.staticGradientUntil.empty())
            item["static_gradient_until"] = f.staticGradientUntil;
        if (f.slicesGradientToStatics)
            item["slices_gradient_to_statics"] = true;
        if (!f.staticValues.empty()) {
            json values = json::array();
            for (const StaticValue& value : f.staticValues) {
                json entry = {{"bytes", value.bytes}, {"readers", value.readers}};
                if (value.savedBytes > 0)
                    entry["saved_bytes"] = value.savedBytes;
                if (value.remadeSavedBytes > 0)
                    entry["remade_saved_bytes"] = value.remadeSavedBytes;
                values.push_back(std::move(entry));
            }
            item["static_values"] = std::move(values);
        }
        if (f.tiedParameterBytes > 0)
            item["tied_parameter_bytes"] = f.tiedParameterBytes;
        if (!f.tiedParameterUntil.empty())
            item["tied_parameter_until"] = f.tiedParameterUntil;
        if (!f.addsWeightGradientTo.empty()) {
            item["adds_weight_gradient_to"] = f.addsWeightGradientTo;
            item["shared_weight_gradient_bytes"] = f.sharedWeightGradientBytes;
            item["shared_weight_sum_bytes"] = f.sharedWeightSumBytes;
        }
        if (f.gradientBytes)
            item["gradient_bytes"] = *f.gradientBytes;
        if (!f.tensors.empty()) {
            json tensors = json::array();
            for (const OutputTensor& tensor : f.tensors)
                tensors.push_back({{"bytes", tensor.bytes}, {"read_by", tensor.readBy}, {"saved_by", tensor.savedBy}});
            item["tensors"] = std::move(tensors);
        }
        if (f.savedBytes > 0)
            item["saved_bytes"] = f.savedBytes;
        if (f.savedBy)
            item["saved_by"] = *f.savedBy;
        if (f.forwardWorkspaceBytes > 0)
            item["forward_workspace_bytes"] = f.forwardWorkspaceBytes;
        if (f.backwardWorkspaceBytes > 0)
            item["backward_workspace_bytes"] = f.backwardWorkspaceBytes;
        if (f.checkpointedForwardWorkspaceBytes)
            item["checkpointed_forward_workspace_bytes"] = *f.checkpointedForwardWorkspaceBytes;
        if (f.copiedStaticsForwardWorkspaceBytes)
            item["copied_statics_forward_workspace_bytes"] = *f.copiedStaticsForwardWorkspaceBytes;
        if (f.backwardWorkspaceReleasedBytes)
            item["backward_workspace_released_bytes"] = *f.backwardWorkspaceReleasedBytes;
        if (f.backwardReleasedRiseBytes)
            item["backward_released_rise_bytes"] = *f.backwardReleasedRiseBytes;
        if (f.firstBackwardNodeBytes)
            item["first_backward_node_bytes"] = *f.firstBackwardNodeBytes;
        if (f.backwardWorkspacePartlyReleasedBytes) {
            item["backward_workspace_partly_released_bytes"] = *f.backwardWorkspacePartlyReleasedBytes;
            item["backward_workspace_held_inputs"] = f.backwardWorkspaceHeldInputs;
        }
        if (f.leafInputsBackwardWorkspaceBytes)
            item["leaf_inputs_backward_workspace_bytes"] = *f.leafInputsBackwardWorkspaceBytes;
        if (f.leafInputsBackwardRiseBytes)
            item["leaf_inputs_backward_rise_bytes"] = *f.leafInputsBackwardRiseBytes;
        if (f.engineBackwardWorkspaceBytes)
            item["engine_backward_workspace_bytes"] = *f.engineBackwardWorkspaceBytes;
        if (f.engineBackwardWorkspaceReleasedBytes)
            item["engine_backward_workspace_released_bytes"] = *f.engineBackwardWorkspaceReleasedBytes;
        if (f.engineBackwardReleasedRiseBytes)
            item["engine_backward_released_rise_bytes"] = *f.engineBackwardReleasedRiseBytes;
        if (f.engineFirstNodeBytes)
            item["engine_first_node_bytes"] = *f.engineFirstNodeBytes;
        if (f.savesOther)
            item["saves_other"] = true;
        if (!v.batchScaled)
            item["batch_scaled"] = false;
        if (!v.requiresGrad)
            item["requires_grad"] = false;
        if (v.drawsRandom)
            item["draws_random"] = true;
        if (v.output)
            item["output"] = true;
        if (v.backward)
            item["backward"] = true;
        if (!v.autograd->passesGradientTo.empty())
            item["passes_gradient_to"] = v.autograd->passesGradientTo;
        if (!v.autograd->passesGradientViewTo.empty())
            item["passes_gradient_view_to"] = v.autograd->passesGradientViewTo;
        if (!v.autograd->slicesGradientTo.empty())
            item["slices_gradient_to"] = v.autograd->slicesGradientTo;
        if (!v.autograd->formsOneGradientFor.empty())
            item["forms_one_gradient_for"] = v.autograd->formsOneGradientFor;
        if (!v.autograd->readsWithoutGradient.empty())
            item["reads_without_gradient"] = v.autograd->readsWithoutGradient;
        vertices.push_back(std::move(item));
    }
    root["vertices"] = std::move(vertices);
    json edges = json::array();
    for (const Edge& e : graph.edges()) {
        if (graph.vertex(e.from).isVirtual || graph.vertex(e.to).isVirtual)
            continue;
        json item;
        item["from"] = graph.vertex(e.from).id;
        item["to"] = graph.vertex(e.to).id;
        if (!e.op.empty())
            item["op"] = e.op;
        edges.push_back(std::move(item));
    }
    root["edges"] = std::move(edges);
    return root.dump(1) + "\n";
}

void writeGraphFile(const std::string& path, const Graph& graph)
{
    writeTextFileAtomically(path, toGraphJson(graph));
}

}  // namespace ckpt
