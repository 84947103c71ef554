#include "TestData.h"
#include "TransformerGraph.h"
#include "graph/GraphBuilder.h"
#include "layout/GroupTree.h"

#include <QtTest>

#include <set>

using namespace ckpt;
using namespace ckpt::layout;

namespace {

Graph withModules(const std::vector<std::pair<std::string, std::string>>& idAndModule)
{
    GraphBuilder b;
    for (const auto& [id, module] : idAndModule) {
        Vertex v;
        v.id = id;
        v.module = module;
        v.bytes = 1;
        b.addVertex(v);
    }
    for (std::size_t i = 1; i < idAndModule.size(); ++i)
        b.addEdge(idAndModule[i - 1].first, idAndModule[i].first);
    return b.build();
}

int groupNamed(const GroupTree& t, const std::string& path)
{
    for (std::size_t g = 0; g < t.groups().size(); ++g)
        if (t.groups()[g].path == path)
            return int(g);
    return -1;
}

}  // namespace

class GroupTreeTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void modulePathsMakeNestedGroups()
    {
        const Graph g = withModules({{"in", ""},
                                     {"a", "model.layer1.0.conv1"},
                                     {"b", "model.layer1.0.conv1"},
                                     {"c", "model.layer1.0.bn1"},
                                     {"d", "model.layer1.1.conv1"},
                                     {"e", "model.layer1.1.conv1"},
                                     {"f", "model.fc"}});
        const GroupTree t = GroupTree::forGraph(g, 300);
        // "model" holds only "model.layer1" and "model.fc"... it has two children, so it stays;
        // a one-vertex module (bn1, fc) is no group: its vertex sits in the parent.
        const int model = groupNamed(t, "model");
        const int layer1 = groupNamed(t, "model.layer1");
        const int block0 = groupNamed(t, "model.layer1.0");
        const int conv = groupNamed(t, "model.layer1.0.conv1");
        QVERIFY(model >= 0 && layer1 >= 0 && block0 >= 0 && conv >= 0);
        QCOMPARE(groupNamed(t, "model.layer1.0.bn1"), -1);
        QCOMPARE(groupNamed(t, "model.fc"), -1);
        QCOMPARE(t.groups()[std::size_t(conv)].label, std::string("conv1"));
        QCOMPARE(t.groups()[std::size_t(model)].size, 6);
        QCOMPARE(t.groups()[std::size_t(block0)].size, 3);
        QCOMPARE(t.groupOf(*g.find("c")), block0);
        QCOMPARE(t.groupOf(*g.find("f")), model);
        QCOMPARE(t.groupOf(*g.find("in")), -1);
        QCOMPARE(t.ancestorsOf(*g.find("a")), (std::vector<int>{model, layer1, block0, conv}));
        QCOMPARE(t.members(block0), (std::vector<VertexIndex>{*g.find("a"), *g.find("b"), *g.find("c")}));
    }

    void aSingleChildChainIsOneGroup()
    {
        const Graph g = withModules({{"a", "transformer.h.0"}, {"b", "transformer.h.0"}, {"c", "transformer.h.1"}, {"d", "transformer.h.1"}});
        const GroupTree t = GroupTree::byModule(g);
        QVERIFY(groupNamed(t, "transformer") < 0);
        const int h = groupNamed(t, "transformer.h");
        QVERIFY(h >= 0);
        QCOMPARE(t.groups()[std::size_t(h)].label, std::string("transformer.h"));
        QCOMPARE(t.groups()[std::size_t(groupNamed(t, "transformer.h.1"))].label, std::string("1"));
    }

    void graphsWithoutModulesAreCutIntoRuns()
    {
        const Graph small = test::makeResidualNetwork(20);  // 61 vertices, no modules
        QVERIFY(GroupTree::forGraph(small, 300).empty());
        const Graph big = test::makeResidualNetwork(400);  // 1201 vertices
        const GroupTree t = GroupTree::forGraph(big, 300);
        QVERIFY(!t.empty());
        std::set<VertexIndex> seen;
        int roots = 0;
        for (std::size_t g = 0; g < t.groups().size(); ++g) {
            roots += t.groups()[g].parent < 0;
            // A run is consecutive along the topological order.
            const auto members = t.members(int(g));
            for (std::size_t i = 1; i < members.size(); ++i)
                QCOMPARE(big.topologicalPosition(members[i]), big.topologicalPosition(members[i - 1]) + 1);
            seen.insert(t.groups()[g].vertices.begin(), t.groups()[g].vertices.end());
        }
        QCOMPARE(int(seen.size()), big.vertexCount());
        QVERIFY(roots <= 24);
    }

    void defaultExpansionKeepsTheViewSmall()
    {
        const Graph g = test::makeTransformerOpGraph(182);
        QVERIFY(g.vertexCount() >= 10000);
        const GroupTree t = GroupTree::forGraph(g, 300);
        const std::vector<bool> expanded = t.expansionWithin(300);
        const VisibleGraph visible = VisibleGraph::of(g, t, expanded);
        QVERIFY2(visible.nodes.size() <= 300 && visible.nodes.size() >= 100, qPrintable(QString::number(visible.nodes.size())));
        QCOMPARE(visible.drawing.nodeCount, int(visible.nodes.size()));
        // Every vertex is drawn in exactly the node that shows it.
        for (VertexIndex v = 0; v < g.vertexCount(); ++v) {
            const auto& node = visible.nodes[std::size_t(visible.nodeOfVertex[std::size_t(v)])];
            if (node.vertex >= 0)
                QCOMPARE(node.vertex, v);
            else {
                const auto chain = t.ancestorsOf(v);
                QVERIFY(std::find(chain.begin(), chain.end(), node.group) != chain.end());
                QVERIFY(!expanded[std::size_t(node.group)]);
            }
        }
        // Edges join distinct nodes, once each, and (groups are convex here) follow the order.
        std::set<std::pair<int, int>> edges(visible.drawing.edges.begin(), visible.drawing.edges.end());
        QCOMPARE(edges.size(), visible.drawing.edges.size());
        for (const auto& [a, b] : visible.drawing.edges)
            QVERIFY(a < b);
        // Everything expanded: the graph itself.
        const VisibleGraph all = VisibleGraph::of(g, t, std::vector<bool>(t.groups().size(), true));
        QCOMPARE(all.drawing.nodeCount, g.vertexCount());
        QCOMPARE(int(all.drawing.edges.size()), g.edgeCount());
    }
};

QTEST_GUILESS_MAIN(GroupTreeTest)
#include "tst_grouptree.moc"
