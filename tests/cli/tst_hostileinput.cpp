// ckptx refuses hostile input with exit 1 and one line naming the file, the JSON pointer and the
// problem (issue 17): never a signal, a raw library message or a silently ignored option.
#include "TestData.h"

#include "ToolRun.h"

#include <QTemporaryDir>
#include <QtTest>

namespace {

QString chain() { return ckpt::test::sourcePath(QStringLiteral("resources/examples/supp-fig2-chain.json")); }

// One line on stderr, exit 1.
void verifyRefused(const ckpt::test::ToolRun& r, const QString& expected)
{
    QCOMPARE(r.exitCode, 1);
    const QString err = QString::fromUtf8(r.err).trimmed();
    QVERIFY2(!err.contains('\n'), qPrintable(err));
    QVERIFY2(err.contains(expected), qPrintable(err));
}

}  // namespace

class HostileInputCliTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void deeplyNestedMetadata()
    {
        QTemporaryDir dir;
        const QByteArray deep = QByteArray(100000, '[') + QByteArray(100000, ']');
        const QString path = ckpt::test::writeFile(dir.path(), "deep.json", "{\"metadata\": {\"x\": " + deep +
                                                             "}, \"vertices\": [{\"id\": \"a\", \"bytes\": 1}]}");
        verifyRefused(ckpt::test::runCkptx({"convert", path, dir.filePath("out.json")}),
                      "deep.json: /metadata/x/0/0");
    }

    void numberOverflow()
    {
        QTemporaryDir dir;
        const QString path =
            ckpt::test::writeFile(dir.path(), "big.json", R"({"vertices": [{"id": "a", "bytes": 1, "compute": 1e400}]})");
        verifyRefused(ckpt::test::runCkptx({"info", path}), "big.json: /vertices/0/compute: number overflow parsing '1e400'");
    }

    void devZero() { verifyRefused(ckpt::test::runCkptx({"info", "/dev/zero"}), "/dev/zero: is not a regular file"); }

    void badTimeLimit_data()
    {
        QTest::addColumn<QString>("value");
        QTest::newRow("nan") << "nan";
        QTest::newRow("inf") << "inf";
        QTest::newRow("negative") << "-5";
        QTest::newRow("zero") << "0";
    }

    void badTimeLimit()
    {
        QFETCH(QString, value);
        verifyRefused(ckpt::test::runCkptx({"solve", chain(), "--solver", "optimal", "--option", "time-limit=" + value}),
                      "option time-limit must be a");
    }

    void unknownOptionNamesTheKnownOnes()
    {
        verifyRefused(ckpt::test::runCkptx({"solve", chain(), "--solver", "optimal", "--option", "time-limt=5"}),
                      "unknown option \"time-limt\" for solver optimal (known: time-limit");
        verifyRefused(ckpt::test::runCkptx({"solve", chain(), "--solver", "checkpoint-all", "--option", "x=1"}),
                      "(it takes no options)");
    }
};

QTEST_GUILESS_MAIN(HostileInputCliTest)
#include "tst_hostileinput.moc"
