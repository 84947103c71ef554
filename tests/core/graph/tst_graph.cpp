#include "TestData.h"
#include "graph/GraphBuilder.h"
#include "graph/GraphError.h"

#include <QtTest>

using namespace ckpt;

class GraphTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void topologyOfADiamond()
    {
        // v0 -> v1, v0 -> v2, v1 -> v3, v2 -> v3, and a parallel v0 -> v1.
        Graph g = test::makeGraph({1, 2, 3, 4}, {{0, 1}, {0, 2}, {1, 3}, {2, 3}, {0, 1}});
        QCOMPARE(g.vertexCount(), 4);
        QCOMPARE(g.edgeCount(), 5);
        QCOMPARE(g.source(), 0);
        QCOMPARE(g.sink(), 3);
        QCOMPARE(g.successors(0).size(), 2u);  // parallel edges collapse
        QCOMPARE(g.outEdges(0).size(), 3u);    // ...but are kept as edges
        QCOMPARE(g.totalBytes(), 10);
        QVERIFY(!g.isChain());
        QVERIFY(!g.hasVirtualVertices());
        auto fromV1 = g.reachableFrom(1);
        QVERIFY(fromV1[3] && !fromV1[2] && !fromV1[0]);
        auto toV2 = g.reaching(2);
        QVERIFY(toV2[0] && !toV2[1]);
    }

    void topologicalOrderIsStableAndValid()
    {
        Graph g = test::makeGraph({1, 1, 1, 1, 1}, {{0, 3}, {0, 2}, {2, 1}, {3, 1}, {1, 4}});
        std::vector<VertexIndex> expected{0, 2, 3, 1, 4};
        QCOMPARE(g.topologicalOrder(), expected);
        for (const Edge& e : g.edges())
            QVERIFY(g.topologicalPosition(e.from) < g.topologicalPosition(e.to));
    }

    void chainIsChain()
    {
        QVERIFY(test::makeChain({10, 8, 9, 6, 7, 10}).isChain());
        QVERIFY(test::makeChain({5}).isChain());
    }

    void severalSourcesAndSinksGetVirtualVertices()
    {
        // Two inputs feed v2, which feeds two outputs.
        Graph g = test::makeGraph({1, 1, 5, 1, 1}, {{0, 2}, {1, 2}, {2, 3}, {2, 4}});
        QCOMPARE(g.vertexCount(), 7);
        QVERIFY(g.vertex(g.source()).isVirtual);
        QVERIFY(g.vertex(g.sink()).isVirtual);
        QCOMPARE(g.vertex(g.source()).bytes, 0);
        QCOMPARE(g.topologicalOrder().front(), g.source());
        QCOMPARE(g.topologicalOrder().back(), g.sink());
        QCOMPARE(g.successors(g.source()).size(), 2u);
        QCOMPARE(g.predecessors(g.sink()).size(), 2u);
    }

    void rejected_data()
    {
        QTest::addColumn<QString>("problem");
        QTest::addColumn<QString>("where");
        QTest::newRow("cycle") << "cycle: v1 -> v2 -> v3 -> v1" << "";
        QTest::newRow("self-loop") << "self-loop" << "/edges/1";
        QTest::newRow("duplicate id") << "duplicate vertex id" << "/vertices/2/id";
        QTest::newRow("unknown to") << "unknown vertex \"nope\"" << "/edges/0/to";
        QTest::newRow("unknown from") << "unknown vertex \"nope\"" << "/edges/0/from";
        QTest::newRow("negative bytes") << "bytes must be >= 0" << "/vertices/1/bytes";
        QTest::newRow("overflow") << "add up to more than 2^53 bytes" << "/vertices/1/bytes";
        QTest::newRow("disconnected") << "disconnected" << "/vertices/2";
        QTest::newRow("empty") << "no vertices" << "/vertices";
    }

    void rejected()
    {
        QFETCH(QString, problem);
        QFETCH(QString, where);
        const QString row = QTest::currentDataTag();
        GraphBuilder b;
        auto vertex = [&b](const std::string& id, std::int64_t bytes) {
            Vertex v;
            v.id = id;
            v.bytes = bytes;
            b.addVertex(v);
        };
        if (row == "cycle") {
            for (int i = 0; i < 5; ++i)
                vertex("v" + std::to_string(i), 1);
            b.addEdge("v0", "v1");
            b.addEdge("v1", "v2");
            b.addEdge("v2", "v3");
            b.addEdge("v3", "v1");
            b.addEdge("v3", "v4");
        } else if (row == "self-loop") {
            vertex("a", 1);
            vertex("b", 1);
            b.addEdge("a", "b");
            b.addEdge("b", "b");
        } else if (row == "duplicate id") {
            vertex("a", 1);
            vertex("b", 1);
            vertex("a", 1);
        } else if (row == "unknown to") {
            vertex("a", 1);
            b.addEdge("a", "nope");
        } else if (row == "unknown from") {
            vertex("a", 1);
            b.addEdge("nope", "a");
        } else if (row == "negative bytes") {
            vertex("a", 1);
            vertex("b", -4);
        } else if (row == "overflow") {
            vertex("a", kMaxGraphBytes - 1);
            vertex("b", 2);
            b.addEdge("a", "b");
        } else if (row == "disconnected") {
            vertex("a", 1);
            vertex("b", 1);
            vertex("c", 1);
            vertex("d", 1);
            b.addEdge("a", "b");
            b.addEdge("c", "d");
        }
        try {
            b.build();
            QFAIL("expected a GraphError");
        } catch (const GraphError& e) {
            QVERIFY2(QString::fromStdString(e.problem()).contains(problem), e.what());
            QCOMPARE(QString::fromStdString(e.where()), where);
        }
    }
};

QTEST_GUILESS_MAIN(GraphTest)
#include "tst_graph.moc"
