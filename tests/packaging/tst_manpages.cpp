// The man pages list exactly the commands and options that the executables' own help prints:
// each command's synopsis word for word, a description of each of its options, and the global ones.
#include "TestData.h"
#include "ToolRun.h"

#include <QFile>
#include <QMap>
#include <QRegularExpression>
#include <QSet>
#include <QtTest>

using namespace ckpt::test;

namespace {

// Commands (name -> synopsis) and options, from a help text or a man page.
struct CommandLine {
    QMap<QString, QString> synopsisOf;
    QMap<QString, QSet<QString>> optionsOf;  // the options a command's entry describes
    QSet<QString> globalOptions;
};

// Every option token (-o, --time-limit) in a piece of text, but not the "-acg" in "feng-acg".
QSet<QString> optionsIn(const QString& text)
{
    static const QRegularExpression option(QStringLiteral("(?<![\\w-])(--?[a-z][a-z-]*)"));
    QSet<QString> options;
    for (const auto& match : option.globalMatch(text))
        options.insert(match.captured(1));
    return options;
}

// `ckptx help`: "usage: ..." (the global options), then each command as a two-space indented synopsis.
CommandLine parseCommandHelp(const QString& help)
{
    CommandLine parsed;
    static const QRegularExpression synopsisLine(QStringLiteral("^  (\\S+)( .*)?$"));
    for (const QString& line : help.split(QLatin1Char('\n'))) {
        if (line.startsWith(QLatin1String("usage:")))
            parsed.globalOptions = optionsIn(line);
        else if (const auto match = synopsisLine.match(line); match.hasMatch())
            parsed.synopsisOf.insert(match.captured(1), line.trimmed());
    }
    for (auto it = parsed.synopsisOf.cbegin(); it != parsed.synopsisOf.cend(); ++it)
        parsed.optionsOf.insert(it.key(), optionsIn(it.value()) - parsed.globalOptions);
    return parsed;
}

// QCommandLineParser's --help: the lines after "Options:" start with the option names.
CommandLine parseQtHelp(const QString& help)
{
    CommandLine parsed;
    static const QRegularExpression optionLine(QStringLiteral("^  (-\\S.*?)(  |$)"));
    bool inOptions = false;
    for (const QString& line : help.split(QLatin1Char('\n'))) {
        if (line.startsWith(QLatin1String("Options:")) || line.isEmpty())
            inOptions = line.startsWith(QLatin1String("Options:"));
        else if (const auto match = optionLine.match(line); inOptions && match.hasMatch())
            parsed.globalOptions += optionsIn(match.captured(1));
    }
    return parsed;
}

// The roff text as a reader sees it: no font changes, plain hyphens and spaces.
QString plainRoff(QString line)
{
    static const QRegularExpression font(QStringLiteral("\\\\f[BIRP]"));
    return line.remove(font).replace(QLatin1String("\\-"), QLatin1String("-")).replace(QLatin1String("\\~"), QLatin1String(" "));
}

// A man page: .SS entries of the COMMANDS section are the commands (their heading is the synopsis);
// a .TP term names the options it describes, for the current command or, under OPTIONS, globally.
CommandLine parseManPage(const QString& path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        qFatal("cannot read %s", qPrintable(path));
    CommandLine parsed;
    QString section, command;
    bool termNext = false;
    for (const QString& raw : QString::fromUtf8(file.readAll()).split(QLatin1Char('\n'))) {
        const QString line = plainRoff(raw);
        if (line.startsWith(QLatin1String(".SH "))) {
            section = line.mid(4).trimmed();
            command.clear();
        } else if (line.startsWith(QLatin1String(".SS ")) && section == QLatin1String("COMMANDS")) {
            const QString synopsis = line.mid(4).trimmed();
            command = synopsis.section(QLatin1Char(' '), 0, 0);
            parsed.synopsisOf.insert(command, synopsis);
            parsed.optionsOf[command];
        } else if (termNext) {
            if (!command.isEmpty())
                parsed.optionsOf[command] += optionsIn(line);
            else if (section == QLatin1String("OPTIONS"))
                parsed.globalOptions += optionsIn(line);
        }
        termNext = line.startsWith(QLatin1String(".TP"));
    }
    return parsed;
}

QString sorted(const QSet<QString>& set)
{
    QStringList list(set.cbegin(), set.cend());
    list.sort();
    return list.join(QLatin1Char(' '));
}

void compare(const CommandLine& man, const CommandLine& help, const QString& page)
{
    QCOMPARE(QStringList(man.synopsisOf.keys()).join(' ') + " in " + page, QStringList(help.synopsisOf.keys()).join(' ') + " in " + page);
    for (auto it = help.synopsisOf.cbegin(); it != help.synopsisOf.cend(); ++it) {
        QCOMPARE(page + ": " + man.synopsisOf.value(it.key()), page + ": " + it.value());
        QCOMPARE(page + " " + it.key() + ": " + sorted(man.optionsOf.value(it.key())),
                 page + " " + it.key() + ": " + sorted(help.optionsOf.value(it.key())));
    }
    QCOMPARE(page + " OPTIONS: " + sorted(man.globalOptions), page + " OPTIONS: " + sorted(help.globalOptions));
}

void compareCommandTool(const QString& tool)
{
    const ToolRun help = runTool(tool, {QStringLiteral("help")});
    QCOMPARE(help.exitCode, 0);
    const CommandLine commands = parseCommandHelp(QString::fromUtf8(help.out));
    QVERIFY2(commands.synopsisOf.size() >= 2, help.out.constData());  // the parser found the commands
    QVERIFY(!commands.globalOptions.isEmpty());
    compare(parseManPage(sourcePath(QStringLiteral("packaging/man/%1.1").arg(tool))), commands, tool + ".1");
}

}  // namespace

class ManPagesTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void parsersSeeWhatIsWritten()
    {
        const CommandLine help = parseCommandHelp(QStringLiteral(
            "usage: t COMMAND [--json]\n\ncommands:\n  run GRAPH [--solver feng-acg|x] [-o F] [--json|--csv]\n      runs\n"));
        QCOMPARE(help.synopsisOf.keys(), QStringList{QStringLiteral("run")});
        QCOMPARE(sorted(help.optionsOf.value(QStringLiteral("run"))), QStringLiteral("--csv --solver -o"));
        QCOMPARE(sorted(help.globalOptions), QStringLiteral("--json"));

        const CommandLine qt = parseQtHelp(QStringLiteral(
            "Usage: app [options] graph\n\nOptions:\n  -h, --help          Displays help.\n"
            "  --screenshot <DIR>  Lay out GRAPH, --not-this.\n\nArguments:\n  graph  A file.\n"));
        QCOMPARE(sorted(qt.globalOptions), QStringLiteral("--help --screenshot -h"));
    }

    void ckptxManPageMatchesHelp() { compareCommandTool(QStringLiteral("ckptx")); }

    void ckptxTorchManPageMatchesHelp()
    {
        if (!CKPT_HAVE_TORCH)
            QSKIP("built without LibTorch (CKPT_BUILD_TORCH=OFF): no ckptx-torch");
        compareCommandTool(QStringLiteral("ckptx-torch"));
    }

    void appManPageMatchesHelp()
    {
        const ToolRun help = runTool(QStringLiteral("checkpoint-explorer"), {QStringLiteral("--help")});
        QCOMPARE(help.exitCode, 0);
        const CommandLine options = parseQtHelp(QString::fromUtf8(help.out));
        QVERIFY2(options.globalOptions.contains(QStringLiteral("--screenshot")), help.out.constData());
        compare(parseManPage(sourcePath(QStringLiteral("packaging/man/checkpoint-explorer.1"))), options,
                QStringLiteral("checkpoint-explorer.1"));
    }
};

QTEST_GUILESS_MAIN(ManPagesTest)
#include "tst_manpages.moc"
