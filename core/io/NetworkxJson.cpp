#include "io/NetworkxJson.h"

#include "graph/GraphBuilder.h"
#include "io/JsonAccess.h"

namespace ckpt {

using namespace json_access;

namespace {

// networkx ids are ints or strings; ours are strings.
std::string idText(const json& value, const std::string& where)
{
    if (value.is_string())
        return value.get<std::string>();
    if (value.is_number_integer() || value.is_number_unsigned())
        return value.dump();
    throw GraphError("expected a node id (integer or string), got " + typeName(value), where);
}

// Links name their ends "source"/"target"; some exports use the keys "0"/"1".
const json& linkEnd(const json& link, const char* key, const char* altKey, const std::string& where)
{
    if (const json* v = optionalMember(link, key))
        return *v;
    if (const json* v = optionalMember(link, altKey))
        return *v;
    throw GraphError(std::string("missing required field \"") + key + "\"", pointerOf(where, key));
}

}  // namespace

bool looksLikeNetworkx(const json& root)
{
    return root.is_object() && root.contains("nodes") && root.contains("links");
}

Graph graphFromNetworkx(const json& root)
{
    GraphBuilder builder;
    if (const json* graphAttrs = optionalMember(root, "graph"); graphAttrs && graphAttrs->is_object())
        if (auto name = optionalString(*graphAttrs, "name", "/graph"))
            builder.setName(*name);

    const json& nodes = requireArray(root, "nodes", "");
    std::int64_t parameterBytes = 0;
    bool hasParameters = false;
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        const std::string at = "/nodes/" + std::to_string(i);
        const json& node = requireObject(nodes[i], at);
        Vertex v;
        const json* id = optionalMember(node, "id");
        if (!id)
            id = optionalMember(node, "name");
        if (!id)
            throw GraphError("missing required field \"id\"", at + "/id");
        v.id = idText(*id, at + "/id");
        if (const json* name = optionalMember(node, "name"); name && name->is_string())
            v.name = name->get<std::string>();
        const char* bytesKey = node.contains("cost_ram") ? "cost_ram" : "out_cost";
        v.bytes = requireInt64(node, bytesKey, at);
        v.compute = optionalNumber(node, node.contains("cost_cpu") ? "cost_cpu" : "duration", at);
        v.backward = optionalBool(node, "backward", at).value_or(false);
        if (auto params = optionalInt64(node, "param_cost", at)) {
            if (*params < 0)
                throw GraphError("param_cost must be >= 0, got " + std::to_string(*params), at + "/param_cost");
            if (*params > kMaxGraphBytes - parameterBytes)
                throw GraphError("the param_cost values add up to more than 2^53 bytes (8 PiB)", at + "/param_cost");
            parameterBytes += *params;
            hasParameters = true;
        }
        builder.addVertex(std::move(v));
    }
    if (hasParameters)
        builder.setMetadata("parameter_bytes", std::to_string(parameterBytes));

    const json& links = requireArray(root, "links", "");
    for (std::size_t i = 0; i < links.size(); ++i) {
        const std::string at = "/links/" + std::to_string(i);
        const json& link = requireObject(links[i], at);
        builder.addEdge(idText(linkEnd(link, "source", "0", at), at + "/source"),
                        idText(linkEnd(link, "target", "1", at), at + "/target"));
    }
    try {
        return std::move(builder).build();
    } catch (const GraphError& e) {
        // The builder speaks of /vertices and /edges; in this format they are /nodes and /links.
        std::string where = e.where();
        if (where.rfind("/vertices", 0) == 0)
            where.replace(0, 9, "/nodes");
        else if (where.rfind("/edges", 0) == 0)
            where.replace(0, 6, "/links");
        auto fix = [](std::string s) {
            for (auto [from, to] : {std::pair{"/from", "/source"}, std::pair{"/to", "/target"}})
                if (s.size() >= std::string(from).size() && s.ends_with(from))
                    s.replace(s.size() - std::string(from).size(), std::string::npos, to);
            return s;
        };
        throw GraphError(e.problem(), fix(where));
    }
}

}  // namespace ckpt
