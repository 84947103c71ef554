// ckptx import-snapshot: PyTorch memory snapshots (tests/data/snapshots) to TRACE.json, and the
// imported trace compared by `ckptx simulate --trace`.
#include "TestData.h"
#include "ToolRun.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

using namespace ckpt::test;

namespace {

QString fixture(const char* name)
{
    return sourcePath(QStringLiteral("tests/data/snapshots/") + name);
}

nlohmann::json readJson(const QString& path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return nlohmann::json::parse(file.readAll().toStdString());
}

}  // namespace

class ImportSnapshotTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void markedSnapshotOntoTheGraph()
    {
        QTemporaryDir dir;
        const QString trace = dir.filePath("trace.json");
        const ToolRun r = runCkptx({"import-snapshot", fixture("marked.pickle"), "--graph", fixture("chain.json"), "-o", trace});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains("2 marked steps"), r.out.constData());
        const auto j = readJson(trace);
        QCOMPARE(j["source"], "memory-snapshot");
        QCOMPARE(j["snapshot_device"], 0);
        QCOMPARE(j["checkpointed"]["phases"].size(), 8u);
        QCOMPARE(j["checkpointed"]["peak_bytes"].get<std::int64_t>(), 20752);
        QCOMPARE(j["baseline_bytes"].get<std::int64_t>(), 11024);
        QVERIFY(!j.contains("gradients_match"));

        // simulate --trace compares it (the chain checkpointing everything, as the fixture ran).
        const QString plan = dir.filePath("plan.json");
        QCOMPARE(runCkptx({"solve", fixture("chain.json"), "--solver", "checkpoint-all", "-o", plan}).exitCode, 0);
        const ToolRun sim = runCkptx({"simulate", fixture("chain.json"), "--plan", plan, "--model", "pytorch",
                                      "--trace", trace, "--json"});
        QCOMPARE(sim.exitCode, 0);
        const auto comparison = nlohmann::json::parse(sim.out.toStdString())["trace"];
        QCOMPARE(comparison["measured_peak_bytes"].get<std::int64_t>(), 20752 - 10000);
        QCOMPARE(comparison["phases"].size(), 6u);
    }

    void unmarkedSnapshotIsACurve()
    {
        QTemporaryDir dir;
        const QString trace = dir.filePath("trace.json");
        const ToolRun r = runCkptx({"import-snapshot", fixture("unmarked.pickle"), "-o", trace});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.contains("no ckptx:phase markers"));
        QVERIFY(r.out.contains("1 out-of-memory event"));
        const auto j = readJson(trace);
        QCOMPARE(j["timeline"]["axis"], "time_us");
        QCOMPARE(j["timeline"]["allocated_bytes"], nlohmann::json::array({10240, 11240, 14240, 12192, 11192, 11692}));
        QVERIFY(!j.contains("checkpointed"));
    }

    void deviceChoice()
    {
        QTemporaryDir dir;
        const QString trace = dir.filePath("trace.json");
        const ToolRun several = runCkptx({"import-snapshot", fixture("two-devices.pickle"), "-o", trace});
        QCOMPARE(several.exitCode, 1);
        QVERIFY(several.err.contains("two-devices.pickle: devices 0, 1 have a history: choose one with --device"));
        QVERIFY(!QFile::exists(trace));
        QCOMPARE(runCkptx({"import-snapshot", fixture("two-devices.pickle"), "--device", "1", "-o", trace}).exitCode, 0);
        QCOMPARE(readJson(trace)["snapshot_device"], 1);
        QCOMPARE(runCkptx({"import-snapshot", fixture("two-devices.pickle"), "--device", "x", "-o", trace}).exitCode, 2);
    }

    void badInputIsOneLine_data()
    {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<QString>("message");
        QTest::newRow("not a pickle") << QByteArray("{\"json\": true}") << "byte 0: unknown opcode 0x7b";
        QTest::newRow("hostile") << QByteArray("\x80\x02" "cos\nsystem\nX\x02\x00\x00\x00lsR.", 22)
                                 << "byte 2: refuses global os.system";
        QTest::newRow("truncated") << QByteArray("\x80\x04\x95", 3) << "byte 2: truncated";
    }

    void badInputIsOneLine()
    {
        QFETCH(QByteArray, content);
        QFETCH(QString, message);
        QTemporaryDir dir;
        const QString path = dir.filePath("bad.pickle");
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(content);
        file.close();
        const ToolRun r = runCkptx({"import-snapshot", path, "-o", dir.filePath("t.json")});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains((path + ": " + message).toUtf8()), r.err.constData());
        QCOMPARE(r.err.count('\n'), 1);
        QVERIFY(!QFile::exists(dir.filePath("t.json")));
        QCOMPARE(runCkptx({"import-snapshot", dir.path(), "-o", dir.filePath("t.json")}).exitCode, 1);
    }
};

QTEST_GUILESS_MAIN(ImportSnapshotTest)
#include "tst_importsnapshot.moc"
