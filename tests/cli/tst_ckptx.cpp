// The ckptx command line: exit codes (0 ok, 1 invalid input, 2 usage) and the --json contract.
#include "TestData.h"
#include "ToolRun.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

using namespace ckpt;
using namespace ckpt::test;

namespace {

QString example(const char* name) { return test::sourcePath(QString("resources/examples/") + name); }

}  // namespace

class CkptxTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void infoJson()
    {
        ToolRun r = runCkptx({"info", example("supp-fig2-chain.json"), "--json"});
        QCOMPARE(r.exitCode, 0);
        QJsonParseError error;
        QJsonObject o = QJsonDocument::fromJson(r.out, &error).object();
        QCOMPARE(error.error, QJsonParseError::NoError);
        QCOMPARE(o["vertices"].toInt(), 6);
        QCOMPARE(o["edges"].toInt(), 5);
        QCOMPARE(o["total_bytes"].toInteger(), 50);
        QCOMPARE(o["source"].toString(), QString("v0"));
        QCOMPARE(o["sink"].toString(), QString("v5"));
        QCOMPARE(o["is_chain"].toBool(), true);
    }

    void infoText()
    {
        ToolRun r = runCkptx({"info", example("residual.json")});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.contains("chain:       no"));
    }

    void validate()
    {
        ToolRun ok = runCkptx({"validate", example("dense-block.json"), "--json"});
        QCOMPARE(ok.exitCode, 0);
        QCOMPARE(QJsonDocument::fromJson(ok.out).object()["valid"].toBool(), true);

        QTemporaryDir dir;
        const QString bad = dir.filePath("cyclic.json");
        QFile f(bad);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("{\"vertices\": [{\"id\": \"a\", \"bytes\": 1}, {\"id\": \"b\", \"bytes\": 1}],"
                " \"edges\": [{\"from\": \"a\", \"to\": \"b\"}, {\"from\": \"b\", \"to\": \"a\"}]}");
        f.close();
        ToolRun r = runCkptx({"validate", bad, "--json"});
        QCOMPARE(r.exitCode, 1);
        QJsonObject o = QJsonDocument::fromJson(r.out).object();
        QCOMPARE(o["valid"].toBool(), false);
        QVERIFY(o["error"].toString().contains("cycle: a -> b -> a"));
        QVERIFY(r.err.contains(bad.toUtf8()));
    }

    void convertRoundTrips()
    {
        if (!test::haveSharedData())
            QSKIP("../shared/data/checkmate-graphs is absent");
        QTemporaryDir dir;
        const QString out = dir.filePath("vgg.json");
        ToolRun r = runCkptx({"convert", test::sharedPath("data/checkmate-graphs/VGG16_256_224x224x3_test_nx.json"), out, "--json"});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(QJsonDocument::fromJson(r.out).object()["vertices"].toInt(), 22);
        ToolRun info = runCkptx({"info", out, "--json"});
        QCOMPARE(info.exitCode, 0);
        QCOMPARE(QJsonDocument::fromJson(info.out).object()["edges"].toInt(), 21);
    }

    void exitCodes_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<int>("code");
        QTest::newRow("no command") << QStringList{} << 2;
        QTest::newRow("unknown command") << QStringList{"frobnicate"} << 2;
        QTest::newRow("missing argument") << QStringList{"info"} << 2;
        QTest::newRow("unknown option") << QStringList{"info", example("fig3.json"), "--nope"} << 2;
        QTest::newRow("missing file") << QStringList{"info", "/nonexistent.json"} << 1;
        QTest::newRow("not json") << QStringList{"info", test::binPath("ckptx")} << 1;
        QTest::newRow("help") << QStringList{"help"} << 0;
    }

    void exitCodes()
    {
        QFETCH(QStringList, args);
        QFETCH(int, code);
        ToolRun r = runCkptx(args);
        QCOMPARE(r.exitCode, code);
        if (code != 0)
            QVERIFY(r.err.startsWith("ckptx: ") || r.err.startsWith("usage:"));
    }
};

QTEST_GUILESS_MAIN(CkptxTest)
#include "tst_ckptx.moc"
