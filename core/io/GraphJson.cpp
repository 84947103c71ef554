#include "io/GraphJson.h"

#include "graph/GraphBuilder.h"
#include "io/JsonAccess.h"
#include "io/NetworkxJson.h"
#include "io/TextFile.h"

#include <algorithm>
#include <stdexcept>

namespace ckpt {

using namespace json_access;

namespace {

// saved_by may only name the vertex itself or its successors (the backwards that can keep it).
void checkSavedBy(const Graph& graph)
{
    int index = 0;
    for (const Vertex& v : graph.vertices()) {
        if (v.isVirtual)
            continue;
        const std::string at = "/vertices/" + std::to_string(index++) + "/saved_by";
        if (!v.savedBy)
            continue;
        const VertexIndex self = *graph.find(v.id);
        const auto successors = graph.successors(self);
        for (std::size_t i = 0; i < v.savedBy->size(); ++i) {
            const auto saver = graph.find((*v.savedBy)[i]);
            if (!saver || (*saver != self && std::find(successors.begin(), successors.end(), *saver) == successors.end()))
                throw GraphError("\"" + (*v.savedBy)[i] + "\" is neither the vertex nor one of its successors",
                                 at + "/" + std::to_string(i));
        }
    }
}

Graph graphFromOurJson(const json& root)
{
    if (auto schema = optionalString(root, "schema", ""); schema && *schema != kGraphSchema)
        throw GraphError("unknown schema \"" + *schema + "\" (expected \"" + kGraphSchema + "\")", "/schema");
    if (auto version = optionalInt64(root, "version", ""); version && *version != kGraphSchemaVersion)
        throw GraphError("unsupported version " + std::to_string(*version) + " (this build reads version " +
                             std::to_string(kGraphSchemaVersion) + ")",
                         "/version");
    GraphBuilder builder;
    if (auto name = optionalString(root, "name", ""))
        builder.setName(*name);
    if (const json* metadata = optionalMember(root, "metadata")) {
        requireObject(*metadata, "/metadata");
        for (const auto& [key, value] : metadata->items())
            builder.setMetadata(key, value.dump());
    }
    const json& vertices = requireArray(root, "vertices", "");
    for (std::size_t i = 0; i < vertices.size(); ++i) {
        const std::string at = "/vertices/" + std::to_string(i);
        const json& item = requireObject(vertices[i], at);
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
        v.parameterBytes = optionalBytes("parameter_bytes");
        v.savedBytes = optionalBytes("saved_bytes");
        v.savedBy = optionalStringArray(item, "saved_by", at);
        v.forwardWorkspaceBytes = optionalBytes("forward_workspace_bytes");
        v.backwardWorkspaceBytes = optionalBytes("backward_workspace_bytes");
        v.batchScaled = optionalBool(item, "batch_scaled", at).value_or(true);
        v.backward = optionalBool(item, "backward", at).value_or(false);
        builder.addVertex(std::move(v));
    }
    if (optionalMember(root, "edges")) {
        const json& edges = requireArray(root, "edges", "");
        for (std::size_t i = 0; i < edges.size(); ++i) {
            const std::string at = "/edges/" + std::to_string(i);
            const json& item = requireObject(edges[i], at);
            builder.addEdge(requireString(item, "from", at), requireString(item, "to", at),
                            optionalString(item, "op", at).value_or(""));
        }
    }
    Graph graph = builder.build();
    checkSavedBy(graph);
    return graph;
}

}  // namespace

Graph parseGraphJson(const std::string& text, const std::string& file)
{
    return readingFile(file, [&] {
        json root = parse(text);
        requireObject(root, "");
        if (looksLikeNetworkx(root))
            return graphFromNetworkx(root);
        return graphFromOurJson(root);
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
        if (v.parameterBytes > 0)
            item["parameter_bytes"] = v.parameterBytes;
        if (v.savedBytes > 0)
            item["saved_bytes"] = v.savedBytes;
        if (v.savedBy)
            item["saved_by"] = *v.savedBy;
        if (v.forwardWorkspaceBytes > 0)
            item["forward_workspace_bytes"] = v.forwardWorkspaceBytes;
        if (v.backwardWorkspaceBytes > 0)
            item["backward_workspace_bytes"] = v.backwardWorkspaceBytes;
        if (!v.batchScaled)
            item["batch_scaled"] = false;
        if (v.backward)
            item["backward"] = true;
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
