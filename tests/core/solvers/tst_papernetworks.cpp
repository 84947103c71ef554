// The networks of Feng & Huang Table 2 at layer granularity (supp. Table 1 sizes): the
// solvers run, and the division trees hold Linear and Branch IS only.
#include "PaperNetworks.h"
#include "solvers/SolverRegistry.h"
#include "theory/DivisionTree.h"
#include "theory/PlanEvaluation.h"

#include <QtTest>

using namespace ckpt;

Q_DECLARE_METATYPE(std::function<ckpt::Graph()>)

class PaperNetworksTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void networks_data()
    {
        QTest::addColumn<std::function<Graph()>>("build");
        QTest::addColumn<int>("vertices");  // supp. Table 1
        QTest::newRow("alexnet") << std::function<Graph()>([] { return test::alexnet(); }) << 12;
        QTest::newRow("vgg11") << std::function<Graph()>([] { return test::vgg(11); }) << 17;
        QTest::newRow("vgg13") << std::function<Graph()>([] { return test::vgg(13); }) << 19;
        QTest::newRow("vgg16") << std::function<Graph()>([] { return test::vgg(16); }) << 22;
        QTest::newRow("vgg19") << std::function<Graph()>([] { return test::vgg(19); }) << 25;
        QTest::newRow("resnet18") << std::function<Graph()>([] { return test::resnet(18); }) << 51;
        QTest::newRow("resnet34") << std::function<Graph()>([] { return test::resnet(34); }) << 91;
        QTest::newRow("resnet50") << std::function<Graph()>([] { return test::resnet(50); }) << 125;
        QTest::newRow("resnet101") << std::function<Graph()>([] { return test::resnet(101); }) << 244;
        QTest::newRow("resnet152") << std::function<Graph()>([] { return test::resnet(152); }) << 363;
        QTest::newRow("densenet121") << std::function<Graph()>([] { return test::densenet(121); }) << 306;
        QTest::newRow("densenet161") << std::function<Graph()>([] { return test::densenet(161); }) << 406;
        QTest::newRow("densenet169") << std::function<Graph()>([] { return test::densenet(169); }) << 426;
        QTest::newRow("densenet201") << std::function<Graph()>([] { return test::densenet(201); }) << 506;
        QTest::newRow("inception-like") << std::function<Graph()>([] { return test::inceptionLike(11); }) << -1;
    }
    void networks()
    {
        QFETCH(std::function<Graph()>, build);
        QFETCH(int, vertices);
        const Graph g = build();
        if (vertices > 0)
            QCOMPARE(g.vertexCount(), vertices);
        const DivisionTree tree = DivisionTree::build(g);
        for (const DivisionNode& n : tree.nodes())
            QVERIFY(n.type != SegmentType::Complicate);
        QCOMPARE(tree.node(0).type, SegmentType::Linear);

        const Plan acg = runSolver("feng-acg", g);
        QVERIFY(acg.evaluation.isISPlan);
        QCOMPARE(acg.objective(), evaluate(g, acg.checkpoints()).objective);
        // Checkpointing helps: the optimum is below keeping every tensor.
        QVERIFY(acg.objective() < g.totalBytes());
        QCOMPARE(runSolver("feng-acg", g, everySweep()).objective(), acg.objective());
        if (g.isChain())
            QCOMPARE(runSolver("feng-lcg", g).objective(), acg.objective());
        if (g.vertexCount() <= 24)
            QCOMPARE(runSolver("exhaustive", g).objective(), acg.objective());
    }

private:
    static SolverOptions everySweep()
    {
        SolverOptions o;
        o.values["sweep"] = "every";
        return o;
    }
};

QTEST_GUILESS_MAIN(PaperNetworksTest)
#include "tst_papernetworks.moc"
