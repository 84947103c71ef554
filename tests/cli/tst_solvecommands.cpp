// ckptx solve / sweep / tree: the JSON contract and the exit codes.
#include "TestData.h"

#include "ToolRun.h"

#include <QtTest>

#include <nlohmann/json.hpp>

namespace {

QString example(const char* name)
{
    return ckpt::test::sourcePath(QStringLiteral("resources/examples/%1.json").arg(name));
}

nlohmann::json parse(const ckpt::test::ToolRun& r) { return nlohmann::json::parse(r.out.toStdString()); }

}  // namespace

class SolveCommandsTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void solveJson()
    {
        const ckpt::test::ToolRun r = ckpt::test::runCkptx({"solve", example("supp-fig2-chain"), "--solver", "feng-acg", "--json"});
        QCOMPARE(r.exitCode, 0);
        const auto j = parse(r);
        QCOMPARE(j["solver"].get<std::string>(), std::string("feng-acg"));
        QCOMPARE(j["checkpoints"], nlohmann::json({"v0", "v2", "v5"}));
        QCOMPARE(j["objective"].get<std::int64_t>(), 42);
        QVERIFY(j["is_plan"].get<bool>());
        QVERIFY(j["time_ms"].is_number());
        QCOMPARE(j["segments"].size(), 2u);
        QCOMPARE(j["segments"][1]["vertices"], nlohmann::json({"v3", "v4"}));
        QCOMPARE(j["segments"][1]["entries"], nlohmann::json({"v2"}));
        QCOMPARE(j["segments"][1]["exits"], nlohmann::json({"v5"}));
        QCOMPARE(j["segments"][1]["cost"].get<std::int64_t>(), 13);
    }

    void solveWithOption()
    {
        const ckpt::test::ToolRun r = ckpt::test::runCkptx({"solve", example("residual"), "--solver", "feng-acg", "--option", "sweep=every", "--json"});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(parse(r)["options"]["sweep"].get<std::string>(), std::string("every"));
        const ckpt::test::ToolRun general = ckpt::test::runCkptx({"solve", example("residual"), "--solver", "exhaustive-general", "--json"});
        QCOMPARE(general.exitCode, 0);
        QVERIFY(!parse(general)["is_plan"].get<bool>());
        QVERIFY(parse(general)["objective"].get<std::int64_t>() < parse(r)["objective"].get<std::int64_t>());
    }

    void sweepJson()
    {
        // sweep=every lists all 11 max terms; the default parametric search a subset of them.
        const ckpt::test::ToolRun every =
            ckpt::test::runCkptx({"sweep", example("supp-fig2-chain"), "--option", "sweep=every", "--json"});
        const ckpt::test::ToolRun steps = ckpt::test::runCkptx({"sweep", example("supp-fig2-chain"), "--json"});
        QCOMPARE(every.exitCode, 0);
        QCOMPARE(steps.exitCode, 0);
        QCOMPARE(parse(every)["entries"].size(), 11u);
        QVERIFY(parse(steps)["entries"].size() <= 11u);
        for (const auto& j : {parse(every), parse(steps)}) {
            const auto& winner = j["entries"][j["winner"].get<int>()];
            QCOMPARE(winner["c"].get<std::int64_t>(), 13);
            QCOMPARE(winner["objective"].get<std::int64_t>(), 42);
            QCOMPARE(j["winner_c"].get<std::int64_t>(), 13);
            for (const auto& e : j["entries"])
                QVERIFY(e.contains("c") && e.contains("objective") && e.contains("checkpoints"));
        }
    }

    void treeJson()
    {
        const ckpt::test::ToolRun r = ckpt::test::runCkptx({"tree", example("fig4-complicate"), "--json"});
        QCOMPARE(r.exitCode, 0);
        const auto tree = parse(r);
        const auto& nodes = tree["nodes"];
        const auto& root = nodes[tree["root"].get<std::size_t>()];
        QCOMPARE(root["type"].get<std::string>(), std::string("complicate"));
        QCOMPARE(root["source"].get<std::string>(), std::string("i"));
        QCOMPARE(root["target"].get<std::string>(), std::string("j"));
        QCOMPARE(root["cost"].get<std::int64_t>(), 42);
        QCOMPARE(root["parent"].get<int>(), -1);
        QCOMPARE(root["children"].size(), 5u);
        const auto& first = nodes[root["children"][0].get<std::size_t>()];
        QCOMPARE(first["parent"], tree["root"]);
        QCOMPARE(nodes[first["children"][0].get<std::size_t>()]["type"].get<std::string>(), std::string("leaf"));
    }

    void badInput_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("message");
        QTest::newRow("lcg on a branchy graph") << QStringList{"solve", example("residual"), "--solver", "feng-lcg"} << 1
                                                << "linear computation graph";
        QTest::newRow("unknown solver") << QStringList{"solve", example("residual"), "--solver", "nope"} << 1
                                        << "unknown solver";
        QTest::newRow("bad option") << QStringList{"solve", example("residual"), "--solver", "feng-acg", "--option", "sweep=x"}
                                    << 1 << "option sweep";
        QTest::newRow("option without =") << QStringList{"solve", example("residual"), "--solver", "feng-acg", "--option", "x"}
                                          << 2 << "KEY=VALUE";
        QTest::newRow("missing solver") << QStringList{"solve", example("residual")} << 2 << "--solver";
        QTest::newRow("missing file") << QStringList{"tree", "/nonexistent/graph.json"} << 1 << "graph.json";
        QTest::newRow("sweep of a non-sweeping solver")
            << QStringList{"sweep", example("residual"), "--solver", "exhaustive"} << 2 << "does not sweep";
    }
    void badInput()
    {
        QFETCH(QStringList, args);
        QFETCH(int, exitCode);
        QFETCH(QString, message);
        const ckpt::test::ToolRun r = ckpt::test::runCkptx(args);
        QCOMPARE(r.exitCode, exitCode);
        QVERIFY2(r.err.contains(message.toUtf8()), r.err.constData());
        QVERIFY(r.out.isEmpty());
    }

    void exhaustiveOnALargeGraphIsRefused()
    {
        QTemporaryDir dir;
        QString json = "{\"schema\": \"checkpoint-explorer/graph\", \"version\": 1, \"vertices\": [";
        QString edges;
        for (int v = 0; v < 30; ++v) {
            json += QStringLiteral("%1{\"id\": \"v%2\", \"bytes\": %3}").arg(v ? ", " : "").arg(v).arg(v + 1);
            if (v)
                edges += QStringLiteral("%1{\"from\": \"v%2\", \"to\": \"v%3\"}").arg(v > 1 ? ", " : "").arg(v - 1).arg(v);
        }
        json += "], \"edges\": [" + edges + "]}";
        const QString path = dir.filePath("chain30.json");
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(json.toUtf8());
        f.close();
        const ckpt::test::ToolRun r = ckpt::test::runCkptx({"solve", path, "--solver", "exhaustive", "--json"});
        QCOMPARE(r.exitCode, 1);
        QVERIFY(r.err.contains("limited to 24 vertices"));
        QCOMPARE(ckpt::test::runCkptx({"solve", path, "--solver", "feng-lcg", "--json"}).exitCode, 0);
    }
};

QTEST_GUILESS_MAIN(SolveCommandsTest)
#include "tst_solvecommands.moc"
