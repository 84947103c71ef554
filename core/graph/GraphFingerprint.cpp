#include "graph/GraphFingerprint.h"

#include <cstdint>
#include <cstdio>

namespace ckpt {

namespace {

struct Fnv1a {
    std::uint64_t h = 14695981039346656037ull;
    void add(const void* data, std::size_t size)
    {
        const auto* p = static_cast<const unsigned char*>(data);
        for (std::size_t i = 0; i < size; ++i) {
            h ^= p[i];
            h *= 1099511628211ull;
        }
    }
    void add(const std::string& s)
    {
        add(s.data(), s.size());
        add("\0", 1);  // separator, so ("ab","c") differs from ("a","bc")
    }
    void add(std::int64_t x) { add(&x, sizeof x); }
};

}  // namespace

std::string graphFingerprint(const Graph& graph)
{
    Fnv1a f;
    for (const Vertex& v : graph.vertices()) {
        f.add(v.id);
        f.add(v.bytes);
    }
    for (const Edge& e : graph.edges()) {
        f.add(static_cast<std::int64_t>(e.from));
        f.add(static_cast<std::int64_t>(e.to));
    }
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(f.h));
    return std::string("fnv1a64:") + hex;
}

}  // namespace ckpt
