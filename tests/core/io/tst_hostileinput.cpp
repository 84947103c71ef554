// Hostile input (issue 17): every case is refused with a GraphError naming the file, the JSON
// pointer and the problem; files are read only when regular and not too large; atomic writes keep
// the replaced file's mode, write through links and clean up temporaries a killed write left.
#include "TestData.h"
#include "graph/GraphError.h"
#include "graph/GraphFingerprint.h"
#include "io/GraphJson.h"
#include "io/PlanJson.h"
#include "io/TextFile.h"
#include "io/TraceJson.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <sys/stat.h>
#include <unistd.h>

using namespace ckpt;

namespace {

const std::string kTwoVertices = R"("vertices": [{"id": "a", "bytes": 1}, {"id": "b", "bytes": 2}], "edges": [{"from": "a", "to": "b"}])";

std::string nested(int levels) { return std::string(levels, '[') + std::string(levels, ']'); }

QString errorOf(const std::function<void()>& read)
{
    try {
        read();
    } catch (const GraphError& e) {
        return QString::fromStdString(e.what());
    }
    return QStringLiteral("(no error)");
}

// The reader fails, and its message contains `expected`.
void verifyRefused(const std::function<void()>& read, const QString& expected)
{
    const QString error = errorOf(read);
    QVERIFY2(error.contains(expected), qPrintable(error));
}

std::string traceWith(const std::string& baseline, const std::string& phase)
{
    const std::string step = "{\"peak_bytes\": 10, \"phases\": [" + phase + "]}";
    return "{\"device\": \"cpu\", \"gradients_match\": true, \"baseline_bytes\": " + baseline +
           R"(, "regular": )" + step + R"(, "checkpointed": )" + step + "}";
}

}  // namespace

class HostileInputTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void graphs_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("expected");
        const auto graph = [](const std::string& extra) { return QString::fromStdString("{" + extra + kTwoVertices + "}"); };
        QTest::newRow("deep metadata") << graph("\"metadata\": {\"x\": " + nested(60000) + "}, ")
                                       << "g.json: /metadata/x/0/0/0/0/0";
        QTest::newRow("deep metadata problem") << graph("\"metadata\": {\"x\": " + nested(60000) + "}, ")
                                               << "nested deeper than 100 levels";
        QTest::newRow("1e400") << graph(R"("metadata": {"x": 1e400}, )")
                               << "g.json: /metadata/x: number overflow parsing '1e400'";
        QTest::newRow("duplicate key") << graph(R"("name": "a", "name": "b", )") << "g.json: /name: duplicate key \"name\"";
        QTest::newRow("NUL byte") << graph("") + QChar(0) + "{}" << "g.json: contains a NUL byte at offset";
        QTest::newRow("total past 2^53")
            << R"({"vertices": [{"id": "a", "bytes": 9007199254740992}, {"id": "b", "bytes": 1}], "edges": [{"from": "a", "to": "b"}]})"
            << "g.json: /vertices/1/bytes: the graph's byte counts add up to more than 2^53 bytes";
        QTest::newRow("int64 max total (pytorch model overflow)")
            << R"({"vertices": [{"id": "a", "bytes": 1, "saved_bytes": 9223372036854775806}, {"id": "b", "bytes": 0}], "edges": [{"from": "a", "to": "b"}]})"
            << "g.json: /vertices/0/saved_bytes: the graph's byte counts add up to more than 2^53";
        QTest::newRow("networkx negative param_cost")
            << R"({"nodes": [{"id": 0, "cost_ram": 1, "param_cost": -1}], "links": []})"
            << "g.json: /nodes/0/param_cost: param_cost must be >= 0, got -1";
        QTest::newRow("networkx param_cost past int64")
            << R"({"nodes": [{"id": 0, "cost_ram": 1, "param_cost": 9000000000000000000}, {"id": 1, "cost_ram": 1, "param_cost": 9000000000000000000}], "links": [{"source": 0, "target": 1}]})"
            << "g.json: /nodes/0/param_cost: the param_cost values add up to more than 2^53 bytes";
    }

    void graphs()
    {
        QFETCH(QString, text);
        QFETCH(QString, expected);
        verifyRefused([&] { parseGraphJson(text.toStdString(), "g.json"); }, expected);
    }

    void plans_data()
    {
        QTest::addColumn<QString>("body");
        QTest::addColumn<QString>("expected");
        QTest::newRow("deep options") << QString::fromStdString("\"options\": {\"x\": " + nested(60000) + "}, ")
                                      << "p.json: /options/x/0/0";
        QTest::newRow("step past int") << R"("schedule": {"slots": 1, "actions": [["forward", 4294967297]]}, )"
                                       << "p.json: /schedule/actions/0/1: value 4294967297 is outside 0..2147483647";
        QTest::newRow("slots past int") << R"("schedule": {"slots": 4294967297, "actions": []}, )"
                                        << "p.json: /schedule/slots: value 4294967297 is outside 0..2147483647";
        QTest::newRow("1e400 in options") << R"("options": {"t": 1e400}, )" << "p.json: /options/t: number overflow";
    }

    void plans()
    {
        QFETCH(QString, body);
        QFETCH(QString, expected);
        const Graph chain = test::makeChain({10, 8, 9});
        const std::string text = "{\"schema\": \"checkpoint-explorer/plan\", \"version\": 1, \"graph\": {\"fingerprint\": \"" +
                                 graphFingerprint(chain) + "\"}, \"solver\": \"x\", " + body.toStdString() +
                                 "\"checkpoints\": []}";
        verifyRefused([&] { parsePlanJson(chain, text, "p.json"); }, expected);
    }

    void traces_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("expected");
        const std::string phase = R"({"index": 0, "end_bytes": 1, "peak_bytes": 1})";
        QTest::newRow("negative baseline") << QString::fromStdString(traceWith("-5", phase))
                                           << "t.json: /baseline_bytes: value -5 is outside 0..";
        QTest::newRow("int64 min end bytes")
            << QString::fromStdString(traceWith("0", R"({"index": 0, "end_bytes": -9223372036854775808, "peak_bytes": 1})"))
            << "t.json: /regular/phases/0/end_bytes: value -9223372036854775808 is outside 0..";
        QTest::newRow("index past int")
            << QString::fromStdString(traceWith("0", R"({"index": 4294967297, "end_bytes": 1, "peak_bytes": 1})"))
            << "t.json: /regular/phases/0/index: value 4294967297 is outside";
    }

    void traces()
    {
        QFETCH(QString, text);
        QFETCH(QString, expected);
        verifyRefused([&] { parseTraceJson(text.toStdString(), "t.json"); }, expected);
    }

    void onlyRegularFilesAreRead()
    {
        QCOMPARE(errorOf([] { readGraphFile("/dev/zero"); }), QStringLiteral("/dev/zero: is not a regular file"));
    }

    void oversizedFilesAreRefusedUnread()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath("big.json").toStdString();
        QFile file(QString::fromStdString(path));
        QVERIFY(file.open(QIODevice::WriteOnly));
        QVERIFY(file.resize(static_cast<qint64>(kMaxInputFileBytes) + 1));  // sparse: no disk, no read
        file.close();
        QVERIFY(errorOf([&] { readGraphFile(path); }).endsWith("big.json: is larger than 1024 MiB"));
    }

    void replacingKeepsTheMode()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath("out.json").toStdString();
        writeTextFileAtomically(path, "old");
        QCOMPARE(::chmod(path.c_str(), 0600), 0);
        writeTextFileAtomically(path, "new");
        struct stat st {};
        QCOMPARE(::stat(path.c_str(), &st), 0);
        QCOMPARE(st.st_mode & 07777, 0600u);
        QCOMPARE(readTextFile(path), std::string("new"));
    }

    void writesThroughSymbolicLinks()
    {
        QTemporaryDir dir;
        const std::string target = dir.filePath("real.json").toStdString();
        const std::string link = dir.filePath("link.json").toStdString();
        writeTextFileAtomically(target, "old");
        std::filesystem::create_symlink("real.json", link);
        writeTextFileAtomically(link, "new");
        QVERIFY(std::filesystem::is_symlink(link));
        QCOMPARE(readTextFile(target), std::string("new"));
    }

    void staleTemporariesAreRemoved()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath("out.json").toStdString();
        // A write killed mid-way left this: its process (pid 0x7ffffffe is never used) is gone.
        const std::string stale = path + ".tmp-2147483646-123";
        writeTextFileAtomically(stale, "half");
        writeTextFileAtomically(path, "whole");
        QVERIFY(!std::filesystem::exists(stale));
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files), QStringList{"out.json"});
    }
};

QTEST_GUILESS_MAIN(HostileInputTest)
#include "tst_hostileinput.moc"
