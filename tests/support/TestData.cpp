#include "TestData.h"

#include "graph/GraphBuilder.h"

#include <QDir>
#include <QFileInfo>

namespace ckpt::test {

QString sourcePath(const QString& relative) { return QStringLiteral(CKPT_SOURCE_DIR "/") + relative; }
QString sharedPath(const QString& relative) { return QStringLiteral(CKPT_SHARED_DIR "/") + relative; }
QString binPath(const QString& executable) { return QStringLiteral(CKPT_BIN_DIR "/") + executable; }
bool haveSharedData() { return QFileInfo(sharedPath("data/checkmate-graphs")).isDir(); }

Graph makeGraph(const std::vector<std::int64_t>& bytes, const std::vector<std::pair<int, int>>& edges)
{
    GraphBuilder b;
    for (std::size_t i = 0; i < bytes.size(); ++i) {
        Vertex v;
        v.id = "v" + std::to_string(i);
        v.bytes = bytes[i];
        b.addVertex(v);
    }
    for (auto [from, to] : edges)
        b.addEdge("v" + std::to_string(from), "v" + std::to_string(to));
    return b.build();
}

Graph makeChain(const std::vector<std::int64_t>& bytes)
{
    std::vector<std::pair<int, int>> edges;
    for (int i = 0; i + 1 < static_cast<int>(bytes.size()); ++i)
        edges.emplace_back(i, i + 1);
    return makeGraph(bytes, edges);
}

}  // namespace ckpt::test
