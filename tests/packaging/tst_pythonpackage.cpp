// `pip install ./app/python` into a user's own virtual environment: it installs the package without
// touching torch (the user's own; here Debian's, seen through --system-site-packages), offline.
#include "TestData.h"
#include "ToolRun.h"

#include <QDir>
#include <QTemporaryDir>
#include <QtTest>

using namespace ckpt::test;

namespace {

QString report(const ToolRun& run) { return QString::fromUtf8(run.out + run.err); }

// pip builds in the source tree (build/, *.egg-info); a copy keeps the checkout clean.
bool copyTree(const QString& from, const QString& to)
{
    const QDir source(from);
    if (!QDir().mkpath(to))
        return false;
    for (const QFileInfo& entry : source.entryInfoList(QDir::Files | QDir::Dirs | QDir::NoDotAndDotDot)) {
        const QString target = QDir(to).filePath(entry.fileName());
        if (entry.fileName() == QLatin1String("__pycache__") || entry.fileName() == QLatin1String("build") ||
            entry.fileName().endsWith(QLatin1String(".egg-info")))
            continue;
        if (entry.isDir() ? !copyTree(entry.filePath(), target) : !QFile::copy(entry.filePath(), target))
            return false;
    }
    return true;
}

}  // namespace

class PythonPackageTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void pipInstallsIntoAVirtualEnvironment()
    {
        QTemporaryDir scratch;
        QVERIFY(scratch.isValid());
        const QString source = scratch.filePath(QStringLiteral("src"));
        QVERIFY(copyTree(sourcePath(QStringLiteral("app/python")), source));
        const QString venv = scratch.filePath(QStringLiteral("venv"));
        const ToolRun create = runProgram(QStringLiteral("/usr/bin/python3"),
                                          {QStringLiteral("-m"), QStringLiteral("venv"), QStringLiteral("--system-site-packages"), venv});
        QVERIFY2(create.exitCode == 0, qPrintable(report(create)));
        const QString python = venv + QStringLiteral("/bin/python");
        const ToolRun install = runProgram(python, {QStringLiteral("-m"), QStringLiteral("pip"), QStringLiteral("install"), QStringLiteral("--no-build-isolation"),
                                                    QStringLiteral("--no-index"), QStringLiteral("--disable-pip-version-check"), source});
        QVERIFY2(install.exitCode == 0, qPrintable(report(install)));

        // The venv's copy is imported, it carries the project's version, and torch is only an extra.
        const ToolRun check = runProgram(
            python, {QStringLiteral("-c"), QStringLiteral("import checkpoint_explorer, importlib.metadata as m\n"
                                                          "print(checkpoint_explorer.__file__)\n"
                                                          "print(m.version('checkpoint-explorer'))\n"
                                                          "print('|'.join(m.requires('checkpoint-explorer') or []))")});
        QVERIFY2(check.exitCode == 0, qPrintable(report(check)));
        const QStringList lines = QString::fromUtf8(check.out).split(QLatin1Char('\n'));
        QVERIFY2(lines.size() >= 3, check.out.constData());
        QVERIFY2(lines[0].startsWith(venv + QStringLiteral("/lib/")), qPrintable(lines[0]));
        QCOMPARE(lines[1], QStringLiteral(CKPT_VERSION));
        for (const QString& requirement : lines[2].split(QLatin1Char('|'), Qt::SkipEmptyParts))
            QVERIFY2(requirement.contains(QLatin1String("extra ==")), qPrintable(requirement + " is installed unconditionally"));
    }
};

QTEST_GUILESS_MAIN(PythonPackageTest)
#include "tst_pythonpackage.moc"
