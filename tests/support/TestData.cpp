#include "TestData.h"

#include "graph/GraphBuilder.h"
#include "theory/PlanEvaluation.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

namespace ckpt::test {

QString sourcePath(const QString& relative) { return QStringLiteral(CKPT_SOURCE_DIR "/") + relative; }
QString sharedPath(const QString& relative) { return QStringLiteral(CKPT_SHARED_DIR "/") + relative; }
QString binPath(const QString& executable) { return QStringLiteral(CKPT_BIN_DIR "/") + executable; }
bool haveSharedData() { return QFileInfo(sharedPath("data/checkmate-graphs")).isDir(); }

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CKPT_TEST_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define CKPT_TEST_ASAN 1
#endif

double timingSlack()
{
#ifdef CKPT_TEST_ASAN
    return 3;
#else
    return 1;
#endif
}

QString writeFile(const QString& dir, const QString& name, const QByteArray& text)
{
    QFile file(QDir(dir).filePath(name));
    if (!file.open(QIODevice::WriteOnly) || file.write(text) != text.size())
        qFatal("cannot write %s", qPrintable(file.fileName()));
    return file.fileName();
}

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

Graph makeRainbow(int n)
{
    std::vector<std::int64_t> bytes;
    std::vector<std::pair<int, int>> edges;
    for (int v = 0; v < n; ++v)
        bytes.push_back(1 + (v * 7919) % 97);
    for (int v = 0; v + 1 < n; ++v)
        edges.emplace_back(v, v + 1);
    for (int v = 0; n - 1 - v > v + 1; ++v)
        edges.emplace_back(v, n - 1 - v);
    return makeGraph(bytes, edges);
}

Graph makeChain(const std::vector<std::int64_t>& bytes)
{
    std::vector<std::pair<int, int>> edges;
    for (int i = 0; i + 1 < static_cast<int>(bytes.size()); ++i)
        edges.emplace_back(i, i + 1);
    return makeGraph(bytes, edges);
}

Graph makeResidualNetwork(int blocks)
{
    GraphBuilder b;
    b.setName("Residual network, " + std::to_string(blocks) + " blocks");
    auto add = [&](const std::string& id, const std::string& op, std::int64_t bytes) {
        Vertex v;
        v.id = id;
        v.name = id;
        v.op = op;
        v.bytes = bytes;
        v.dtype = "float32";
        b.addVertex(v);
    };
    add("stem", "conv2d", 1 << 20);
    std::string previous = "stem";
    for (int i = 0; i < blocks; ++i) {
        const std::string block = "block" + std::to_string(i);
        const std::int64_t bytes = std::int64_t(1 << 20) >> (i * 3 / std::max(1, blocks));
        add(block + ".conv1", "conv2d+bn+relu", bytes);
        add(block + ".conv2", "conv2d+bn", bytes);
        add(block + ".add", "add+relu", bytes);
        b.addEdge(previous, block + ".conv1");
        b.addEdge(block + ".conv1", block + ".conv2");
        b.addEdge(block + ".conv2", block + ".add");
        b.addEdge(previous, block + ".add");
        previous = block + ".add";
    }
    return b.build();
}

Plan planOf(const Graph& g, const std::vector<VertexIndex>& checkpoints, const std::string& solver)
{
    Plan p;
    p.solver = solver;
    p.evaluation = evaluate(g, checkpoints);
    return p;
}

}  // namespace ckpt::test
