#include "TestData.h"
#include "TransformerGraph.h"
#include "io/GraphJson.h"
#include "io/TextFile.h"
#include "layout/GraphLayout.h"

#include <QtTest>

#include <QDir>

#include <chrono>
#include <cmath>

using namespace ckpt;
using namespace ckpt::layout;

namespace {

Graph example(const QString& name)
{
    const std::string path = test::sourcePath("resources/examples/" + name).toStdString();
    return parseGraphJson(readTextFile(path), path);
}

LayoutRequest requestFor(const Graph& g, Direction direction = Direction::LeftToRight)
{
    LayoutRequest r;
    r.direction = direction;
    for (VertexIndex v = 0; v < g.vertexCount(); ++v)
        r.nodeSizes.push_back({60.0 + 5 * (v % 4), 30.0 + (v % 3)});
    return r;
}

bool near(const Point& p, const NodeBox& box, double slack)
{
    return std::abs(p.x - box.centre.x) <= box.size.width / 2 + slack && std::abs(p.y - box.centre.y) <= box.size.height / 2 + slack;
}

// Every box has its requested size and lies inside the bounds; boxes do not overlap; each edge
// starts at its tail and ends (arrow tip included) at its head.
void checkLayout(const Graph& g, const LayoutRequest& r, const Layout& l)
{
    QCOMPARE(int(l.nodes.size()), g.vertexCount());
    QCOMPARE(int(l.edges.size()), g.edgeCount());
    for (VertexIndex v = 0; v < g.vertexCount(); ++v) {
        const NodeBox& b = l.nodes[v];
        QVERIFY(std::abs(b.size.width - r.nodeSizes[v].width) < 1);
        QVERIFY(std::abs(b.size.height - r.nodeSizes[v].height) < 1);
        QVERIFY(b.centre.x - b.size.width / 2 >= -1 && b.centre.x + b.size.width / 2 <= l.bounds.width + 1);
        QVERIFY(b.centre.y - b.size.height / 2 >= -1 && b.centre.y + b.size.height / 2 <= l.bounds.height + 1);
        for (VertexIndex w = v + 1; w < g.vertexCount(); ++w) {
            const NodeBox& c = l.nodes[w];
            const bool apart = std::abs(b.centre.x - c.centre.x) >= (b.size.width + c.size.width) / 2 - 0.5 ||
                               std::abs(b.centre.y - c.centre.y) >= (b.size.height + c.size.height) / 2 - 0.5;
            QVERIFY2(apart, qPrintable(QString("boxes %1 and %2 overlap").arg(v).arg(w)));
        }
    }
    for (const EdgeCurve& c : l.edges) {
        QVERIFY(c.bezier.size() >= 4 && (c.bezier.size() - 1) % 3 == 0);
        const Edge& e = g.edge(c.edge);
        QVERIFY(near(c.bezier.front(), l.nodes[e.from], 3));
        QVERIFY(near(c.arrowTip ? *c.arrowTip : c.bezier.back(), l.nodes[e.to], 3));
    }
}

// Reads in one direction: every edge's head lies below its tail (the arrow tip too).
void checkPointsDown(const Graph& g, const Layout& l)
{
    for (const EdgeCurve& c : l.edges) {
        const Edge& e = g.edge(c.edge);
        QVERIFY2(l.nodes[e.to].centre.y > l.nodes[e.from].centre.y, qPrintable(QString("edge %1 points up").arg(c.edge)));
        QVERIFY(c.bezier.back().y >= c.bezier.front().y);
    }
}

// No two boxes overlap, checked by a sweep over boxes sorted by their top (n log n + overlaps).
void checkNoOverlap(const Layout& l)
{
    std::vector<std::size_t> byTop(l.nodes.size());
    for (std::size_t i = 0; i < byTop.size(); ++i)
        byTop[i] = i;
    auto top = [&](std::size_t i) { return l.nodes[i].centre.y - l.nodes[i].size.height / 2; };
    std::sort(byTop.begin(), byTop.end(), [&](std::size_t a, std::size_t b) { return top(a) < top(b); });
    for (std::size_t i = 0; i < byTop.size(); ++i) {
        const NodeBox& a = l.nodes[byTop[i]];
        for (std::size_t j = i + 1; j < byTop.size() && top(byTop[j]) < a.centre.y + a.size.height / 2 - 0.5; ++j) {
            const NodeBox& b = l.nodes[byTop[j]];
            QVERIFY2(std::abs(a.centre.x - b.centre.x) >= (a.size.width + b.size.width) / 2 - 0.5,
                     qPrintable(QString("boxes %1 and %2 overlap").arg(byTop[i]).arg(byTop[j])));
        }
    }
}

}  // namespace

class LayoutTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void dotLaysOutTheExamples_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<bool>("leftToRight");
        for (const char* f : {"residual.json", "dense-block.json", "inception.json", "fig3.json", "fig4-complicate.json"}) {
            QTest::newRow(QByteArray(f) + " LR") << QString(f) << true;
            QTest::newRow(QByteArray(f) + " TB") << QString(f) << false;
        }
    }
    void dotLaysOutTheExamples()
    {
        QFETCH(QString, file);
        QFETCH(bool, leftToRight);
        const Graph g = example(file);
        const LayoutRequest r = requestFor(g, leftToRight ? Direction::LeftToRight : Direction::TopToBottom);
        const Layout l = layoutGraph(g, r);
        QCOMPARE(l.engine, std::string("dot"));
        QVERIFY(l.notice.empty());
        checkLayout(g, r, l);
        // Ranks follow the edges: every head lies further along the rank axis than its tail.
        for (const Edge& e : g.edges()) {
            const double tail = leftToRight ? l.nodes[e.from].centre.x : l.nodes[e.from].centre.y;
            const double head = leftToRight ? l.nodes[e.to].centre.x : l.nodes[e.to].centre.y;
            QVERIFY(head > tail);
        }
    }

    void layeredFallbackIsAValidDrawing_data()
    {
        QTest::addColumn<QString>("file");
        for (const char* f : {"residual.json", "dense-block.json", "inception.json", "supp-fig2-chain.json"})
            QTest::newRow(f) << QString(f);
    }
    void layeredFallbackIsAValidDrawing()
    {
        QFETCH(QString, file);
        const Graph g = example(file);
        for (Direction d : {Direction::LeftToRight, Direction::TopToBottom}) {
            const LayoutRequest r = requestFor(g, d);
            const Layout l = layeredLayout(g, r);
            QCOMPARE(l.engine, std::string("layered"));
            checkLayout(g, r, l);
        }
    }

    // The published graphs (when ../shared is there) and a 10,000-vertex operator graph: top-down,
    // no overlaps, and fast enough for the view's 2 s (generously: the machine may be shared).
    void layeredLayoutReadsTopDownAtScale_data()
    {
        QTest::addColumn<QString>("file");
        QTest::newRow("transformer, 182 layers") << QString();
        const QDir published(QStringLiteral(CKPT_SHARED_DIR "/data/checkmate-graphs"));
        for (const QString& f : published.entryList({"*.json"}, QDir::Files, QDir::Name))
            QTest::newRow(qPrintable(f)) << published.filePath(f);
    }
    void layeredLayoutReadsTopDownAtScale()
    {
        QFETCH(QString, file);
        const Graph g = file.isEmpty() ? test::makeTransformerOpGraph(182)
                                       : parseGraphJson(readTextFile(file.toStdString()), file.toStdString());
        const LayoutRequest r = requestFor(g, Direction::TopToBottom);
        const auto start = std::chrono::steady_clock::now();
        const Layout l = layeredLayout(g, r);
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        QVERIFY2(seconds < 5, qPrintable(QString("%1 s").arg(seconds)));
        QCOMPARE(int(l.nodes.size()), g.vertexCount());
        checkPointsDown(g, l);
        checkNoOverlap(l);
        for (const NodeBox& b : l.nodes)
            QVERIFY(b.centre.x - b.size.width / 2 >= -1 && b.centre.x + b.size.width / 2 <= l.bounds.width + 1);
    }

    // Collapsing a group that is not convex makes a cycle; the layout still draws every edge, and
    // edges that follow the order point down.
    void layeredLayoutDrawsCycles()
    {
        LayoutGraph g;
        g.nodeCount = 3;
        g.edges = {{0, 1}, {1, 2}, {2, 0}};
        g.order = {0, 1, 2};
        LayoutRequest r;
        r.direction = Direction::TopToBottom;
        r.nodeSizes.assign(3, {50, 20});
        const Layout l = layeredLayout(g, r);
        QVERIFY(l.nodes[1].centre.y > l.nodes[0].centre.y && l.nodes[2].centre.y > l.nodes[1].centre.y);
        QVERIFY(near(l.edges[2].bezier.front(), l.nodes[2], 3));
        QVERIFY(near(l.edges[2].bezier.back(), l.nodes[0], 3));
    }

    void tooBigForDotFallsBackWithANotice()
    {
        const Graph g = test::makeResidualNetwork(20);
        LayoutRequest r = requestFor(g);
        r.maxDotVertices = 10;
        const Layout l = layoutGraph(g, r);
        QCOMPARE(l.engine, std::string("layered"));
        QVERIFY2(QString::fromStdString(l.notice).contains("61 vertices"), l.notice.c_str());
        checkLayout(g, r, l);
    }

    void dotPastItsTimeLimitFallsBack()
    {
        // Big enough to outlast dot's first 10 ms poll, small enough that the abandoned run (it keeps
        // Graphviz's lock until it finishes) does not hold up the next test on a busy machine.
        const Graph g = test::makeResidualNetwork(150);
        LayoutRequest r = requestFor(g);
        r.timeLimit = std::chrono::milliseconds(1);
        const Layout l = layoutGraph(g, r);
        QCOMPARE(l.engine, std::string("layered"));
        QVERIFY2(QString::fromStdString(l.notice).contains("longer than 1 ms"), l.notice.c_str());
        QCOMPARE(int(l.nodes.size()), g.vertexCount());
    }

    void cancelStopsTheLayout()
    {
        const Graph g = test::makeResidualNetwork(400);
        std::atomic<bool> cancel{true};
        LayoutRequest r = requestFor(g);
        r.cancel = &cancel;
        QVERIFY_THROWS_EXCEPTION(LayoutCancelled, layoutGraph(g, r));
        QVERIFY_THROWS_EXCEPTION(LayoutCancelled, layeredLayout(g, r));
    }

    void progressIsReported()
    {
        const Graph g = test::makeResidualNetwork(60);  // dot well within its limit on a busy machine
        LayoutRequest r = requestFor(g);
        double last = -1;
        int calls = 0;
        r.progress = [&](double f) {
            last = f;
            ++calls;
        };
        const Layout l = layoutGraph(g, r);
        QCOMPARE(l.engine, std::string("dot"));
        QVERIFY(calls > 0);
        QCOMPARE(last, 1.0);
    }

    void wrongSizeCountIsRejected()
    {
        const Graph g = example("fig3.json");
        LayoutRequest r;
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, dotLayout(g, r));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, layeredLayout(g, r));
    }
};

QTEST_GUILESS_MAIN(LayoutTest)
#include "tst_layout.moc"
