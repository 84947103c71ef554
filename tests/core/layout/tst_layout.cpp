#include "TestData.h"
#include "io/GraphJson.h"
#include "io/TextFile.h"
#include "layout/GraphLayout.h"

#include <QtTest>

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
        const Graph g = test::makeResidualNetwork(400);
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
        const Graph g = test::makeResidualNetwork(300);
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
