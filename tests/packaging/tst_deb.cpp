// The .deb, packed by CPack from the built tree (as `packaging/dev.sh deb` does) and unpacked into a
// scratch root: it holds the whole installation, its executables run from there, and Debian's own
// validators (desktop-file-validate, appstreamcli, lintian) accept it.
#include "TestData.h"
#include "ToolRun.h"

#include <QDir>
#include <QFile>
#include <QImage>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QXmlStreamReader>
#include <QtTest>

using namespace ckpt::test;

namespace {

const QString appId = QStringLiteral(CKPT_APP_ID);
const QString examplesDir = QStringLiteral("usr/share/checkpoint-explorer/examples");

QByteArray readAll(const QString& path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

QString report(const ToolRun& run) { return QString::fromUtf8(run.out + run.err); }

// The version of the newest <release> of AppStream metadata (they are listed newest first).
QString newestRelease(const QByteArray& metainfo)
{
    QXmlStreamReader xml(metainfo);
    while (!xml.atEnd())
        if (xml.readNext() == QXmlStreamReader::StartElement && xml.name() == QLatin1String("release"))
            return xml.attributes().value(QLatin1String("version")).toString();
    return {};
}

}  // namespace

class DebTest : public QObject {
    Q_OBJECT

    QTemporaryDir m_scratch;
    QString m_deb;
    QString m_root;

    QString installed(const QString& path) const { return m_root + QLatin1Char('/') + path; }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_scratch.isValid());
        const ToolRun arch = runProgram(QStringLiteral("dpkg"), {QStringLiteral("--print-architecture")});
        QCOMPARE(arch.exitCode, 0);
        const ToolRun pack = runProgram(QStringLiteral("cpack"), {QStringLiteral("-G"), QStringLiteral("DEB"), QStringLiteral("--config"),
                                                                  QStringLiteral(CKPT_BUILD_DIR "/CPackConfig.cmake"),
                                                                  QStringLiteral("-B"), m_scratch.path()});
        QVERIFY2(pack.exitCode == 0, qPrintable(report(pack)));
        m_deb = m_scratch.filePath(QStringLiteral("checkpoint-explorer_%1_%2.deb").arg(QStringLiteral(CKPT_VERSION), QString::fromUtf8(arch.out.trimmed())));
        QVERIFY2(QFileInfo::exists(m_deb), qPrintable(m_deb + " not written:\n" + report(pack)));
        m_root = m_scratch.filePath(QStringLiteral("root"));
        const ToolRun unpack = runProgram(QStringLiteral("dpkg-deb"), {QStringLiteral("-x"), m_deb, m_root});
        QVERIFY2(unpack.exitCode == 0, qPrintable(report(unpack)));
    }

    void holdsTheInstallation()
    {
        QStringList expected{QStringLiteral("usr/bin/ckptx"),
                             QStringLiteral("usr/bin/checkpoint-explorer"),
                             QStringLiteral("usr/share/applications/%1.desktop").arg(appId),
                             QStringLiteral("usr/share/metainfo/%1.metainfo.xml").arg(appId),
                             QStringLiteral("usr/share/icons/hicolor/scalable/apps/%1.svg").arg(appId),
                             QStringLiteral("usr/share/icons/hicolor/256x256/apps/%1.png").arg(appId),
                             QStringLiteral("usr/share/man/man1/ckptx.1.gz"),
                             QStringLiteral("usr/share/man/man1/checkpoint-explorer.1.gz"),
                             QStringLiteral("usr/share/doc/checkpoint-explorer/copyright"),
                             QStringLiteral("usr/share/doc/checkpoint-explorer/changelog.gz")};
        if (CKPT_HAVE_TORCH)
            expected << QStringLiteral("usr/bin/ckptx-torch") << QStringLiteral("usr/share/man/man1/ckptx-torch.1.gz");
        const QDir examples(sourcePath(QStringLiteral("resources/examples")));
        for (const QString& name : examples.entryList({QStringLiteral("*.json")}, QDir::Files))
            expected << examplesDir + QLatin1Char('/') + name;
        const QDir python(sourcePath(QStringLiteral("app/python/checkpoint_explorer")));
        QVERIFY(python.exists(QStringLiteral("__init__.py")));
        for (const QString& name : python.entryList({QStringLiteral("*.py")}, QDir::Files))
            expected << QStringLiteral("usr/lib/python3/dist-packages/checkpoint_explorer/") + name;
        for (const QString& path : expected)
            QVERIFY2(QFileInfo(installed(path)).isFile(), qPrintable(path + " is not in the package"));
        QVERIFY(!QFileInfo::exists(installed(QStringLiteral("usr/lib/python3/dist-packages/checkpoint_explorer/__pycache__"))));
    }

    void iconPngIsRenderedAt256Pixels()
    {
        const QImage icon(installed(QStringLiteral("usr/share/icons/hicolor/256x256/apps/%1.png").arg(appId)));
        QCOMPARE(icon.size(), QSize(256, 256));
        // Drawn, not blank: the checkpoint vertex in the middle is the app's checkpoint orange.
        QCOMPARE(icon.pixelColor(128, 128), QColor(0xe6, 0x9f, 0x00));
    }

    void controlFieldsComeFromTheBuild()
    {
        const auto field = [this](const char* name) {
            const ToolRun run = runProgram(QStringLiteral("dpkg-deb"), {QStringLiteral("-f"), m_deb, QString::fromLatin1(name)});
            return QString::fromUtf8(run.out.trimmed());
        };
        QCOMPARE(field("Package"), QStringLiteral("checkpoint-explorer"));
        QCOMPARE(field("Version"), QStringLiteral(CKPT_VERSION));
        QCOMPARE(field("Recommends"), QStringLiteral("python3-torch"));
        // dpkg-shlibdeps found the libraries the executables link.
        const QString depends = field("Depends");
        for (const char* package : {"libc6", "libqt6widgets6", "libgvc6"})
            QVERIFY2(depends.contains(QLatin1String(package)), qPrintable(QStringLiteral("Depends lacks %1: %2").arg(package, depends)));
        if (CKPT_HAVE_TORCH)
            QVERIFY2(depends.contains(QLatin1String("libtorch")), qPrintable(depends));
    }

    void unpackedCkptxRuns()
    {
        const ToolRun info = runProgram(installed(QStringLiteral("usr/bin/ckptx")),
                                        {QStringLiteral("info"), installed(examplesDir + QStringLiteral("/supp-fig2-chain.json")), QStringLiteral("--json")});
        QVERIFY2(info.exitCode == 0, qPrintable(report(info)));
        const QJsonObject o = QJsonDocument::fromJson(info.out).object();
        QCOMPARE(o[QStringLiteral("vertices")].toInt(), 6);
        QCOMPARE(o[QStringLiteral("edges")].toInt(), 5);
    }

    void unpackedCkptxTorchFindsItsLibraries()
    {
        if (!CKPT_HAVE_TORCH)
            QSKIP("built without LibTorch (CKPT_BUILD_TORCH=OFF): no ckptx-torch");
        const ToolRun help = runProgram(installed(QStringLiteral("usr/bin/ckptx-torch")), {QStringLiteral("help")});
        QVERIFY2(help.exitCode == 0, qPrintable(report(help)));
        QVERIFY(help.out.contains("profile MODEL.pt"));
    }

    void unpackedAppTakesScreenshots()
    {
        const QString shots = m_scratch.filePath(QStringLiteral("screenshots"));
        const ToolRun app = runProgram(installed(QStringLiteral("usr/bin/checkpoint-explorer")),
                                       {installed(examplesDir + QStringLiteral("/residual.json")), QStringLiteral("--screenshot"), shots,
                                        QStringLiteral("--solvers"), QStringLiteral("feng-acg,checkpoint-all")});
        QVERIFY2(app.exitCode == 0, qPrintable(report(app)));
        for (const char* view : {"window.png", "dag.png", "memory.png"}) {
            const QImage image(QDir(shots).filePath(QLatin1String(view)));
            QVERIFY2(image.width() > 100 && image.height() > 100, view);
        }
    }

    void unpackedPythonPackageImports()
    {
        const QString sitePackages = installed(QStringLiteral("usr/lib/python3/dist-packages"));
        const ToolRun python = runProgram(
            QStringLiteral("/usr/bin/python3"),
            {QStringLiteral("-c"), QStringLiteral("import sys; sys.path.insert(0, sys.argv[1]); import checkpoint_explorer; print(checkpoint_explorer.__file__)"),
             sitePackages});
        QVERIFY2(python.exitCode == 0, qPrintable(report(python)));
        QCOMPARE(QString::fromUtf8(python.out.trimmed()), sitePackages + QStringLiteral("/checkpoint_explorer/__init__.py"));
    }

    void desktopEntryIsValid()
    {
        const QString path = installed(QStringLiteral("usr/share/applications/%1.desktop").arg(appId));
        const ToolRun validate = runProgram(QStringLiteral("desktop-file-validate"), {path});
        QVERIFY2(validate.exitCode == 0 && !validate.out.contains("error:"), qPrintable(report(validate)));
        const QString entry = QString::fromUtf8(readAll(path));
        QVERIFY(entry.contains(QLatin1String("\nExec=checkpoint-explorer %f\n")));
        QVERIFY(entry.contains(QStringLiteral("\nIcon=%1\n").arg(appId)));
        QVERIFY(entry.contains(QLatin1String("\nMimeType=application/json;\n")));
        for (const char* category : {"Graphics;", "Development;", "Science;"})
            QVERIFY2(entry.section(QLatin1String("\nCategories="), 1).section(QLatin1Char('\n'), 0, 0).contains(QLatin1String(category)), category);
    }

    void appStreamMetadataIsValid()
    {
        // validate-tree also checks the metainfo against the desktop entry and icons it names.
        const ToolRun validate = runProgram(QStringLiteral("appstreamcli"), {QStringLiteral("validate-tree"), QStringLiteral("--no-net"), m_root});
        QVERIFY2(validate.exitCode == 0, qPrintable(report(validate)));
    }

    void lintianReportsNoErrors()
    {
        // Every warning kept is listed, with the reason, in docs/PACKAGING.md.
        const ToolRun lintian = runProgram(QStringLiteral("lintian"), {QStringLiteral("--tag-display-limit"), QStringLiteral("0"), m_deb});
        const QString documented = QString::fromUtf8(readAll(sourcePath(QStringLiteral("docs/PACKAGING.md"))));
        static const QRegularExpression tagLine(QStringLiteral("^([EWIPX]): \\S+: (\\S+)"), QRegularExpression::MultilineOption);
        QStringList errors, undocumented;
        for (const auto& match : tagLine.globalMatch(QString::fromUtf8(lintian.out))) {
            if (match.captured(1) == QLatin1String("E"))
                errors << match.captured(0);
            else if (match.captured(1) == QLatin1String("W") && !documented.contains(QStringLiteral("`%1`").arg(match.captured(2))))
                undocumented << match.captured(0);
        }
        QVERIFY2(errors.isEmpty(), qPrintable(errors.join('\n')));
        QVERIFY2(undocumented.isEmpty(), qPrintable("warnings not in docs/PACKAGING.md:\n" + undocumented.join('\n')));
        QVERIFY2(lintian.exitCode == 0, qPrintable(report(lintian)));
    }

    void metadataVersionsFollowTheProject()
    {
        QCOMPARE(newestRelease(readAll(sourcePath(QStringLiteral("packaging/linux/%1.metainfo.xml").arg(appId)))), QStringLiteral(CKPT_VERSION));
        const QString changelog = QString::fromUtf8(readAll(sourcePath(QStringLiteral("packaging/debian/changelog"))));
        QCOMPARE(changelog.section(QLatin1Char('('), 1).section(QLatin1Char(')'), 0, 0), QStringLiteral(CKPT_VERSION));
        static const QRegularExpression pythonVersion(QStringLiteral("^version = \"([^\"]+)\""), QRegularExpression::MultilineOption);
        QCOMPARE(pythonVersion.match(QString::fromUtf8(readAll(sourcePath(QStringLiteral("app/python/pyproject.toml"))))).captured(1),
                 QStringLiteral(CKPT_VERSION));
    }
};

QTEST_GUILESS_MAIN(DebTest)
#include "tst_deb.moc"
