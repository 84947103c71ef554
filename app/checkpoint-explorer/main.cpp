// checkpoint-explorer [GRAPH]: the desktop application.
#include "DagPanel.h"
#include "DivisionTreeView.h"
#include "ExplainPanel.h"
#include "Export.h"
#include "GraphDocument.h"
#include "MainWindow.h"
#include "ParetoPanel.h"
#include "SnapshotOpener.h"
#include "SolversPanel.h"
#include "graph/Graph.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QIcon>
#include <QTimer>

#include <algorithm>
#include <cstdio>
#include <optional>

namespace {

// The first plan with a C sweep, else the best; -1 when none.
int rowToShow(const ckpt::ui::SolversPanel& panel)
{
    for (int row = 0; row < panel.model()->rowCount(); ++row)
        if (const auto& plan = panel.model()->run(row).plan; plan && plan->sweep)
            return row;
    return panel.bestRow();
}

// The first Branch or Complicate IS of the tree (the most telling to highlight), else the root.
int nodeToShow(const ckpt::ui::TreeDisplay& tree)
{
    for (std::size_t i = 0; i < tree.nodes.size(); ++i)
        if (tree.nodes[i].kind == ckpt::ui::TreeDisplay::Kind::Branch || tree.nodes[i].kind == ckpt::ui::TreeDisplay::Kind::Complicate)
            return int(i);
    return tree.nodes.empty() ? -1 : 0;
}

// The budget sweep a screenshot draws: checkmate-milp only on small graphs and briefly (its model
// grows with the square of the training graph: gigabytes at 1000 vertices), so that a screenshot
// takes well under a minute and bounded memory.
ckpt::BudgetSweepSettings screenshotSweep(const ckpt::Graph& graph, ckpt::BudgetSweepSettings settings)
{
    constexpr int kMilpVertices = 100;
    if (graph.vertexCount() > kMilpVertices)
        std::erase(settings.solvers, "checkmate-milp");
    settings.points = std::min(settings.points, 4);
    settings.timeLimit = std::min(settings.timeLimit, 5.0);
    return settings;
}

// WxH, e.g. 1366x768; nullopt when malformed.
std::optional<QSize> parseSize(const QString& text)
{
    const QStringList parts = text.split(QLatin1Char('x'));
    bool okWidth = false, okHeight = false;
    const int width = parts.size() == 2 ? parts[0].toInt(&okWidth) : 0;
    const int height = parts.size() == 2 ? parts[1].toInt(&okHeight) : 0;
    if (!okWidth || !okHeight || width < 200 || height < 200)
        return std::nullopt;
    return QSize(width, height);
}

// --screenshot: lay the graph out, run the solvers, show a plan (one with a sweep when there is
// one) and the budget sweep, render each view; then select an IS in the tree and render the highlighted DAG.
int takeScreenshots(ckpt::ui::MainWindow& window, const QString& dir, const QStringList& solvers,
                    const ckpt::ui::ProfileRequest& profile, const QString& snapshot, const QString& trace)
{
    window.dagPanel()->waitForLayout();
    if (window.document()->graph()) {
        if (!solvers.isEmpty())
            window.solversPanel()->setSelectedSolvers(solvers);
        window.solversPanel()->run();
        window.solversPanel()->waitForFinished();
        window.paretoPanel()->setSettings(screenshotSweep(*window.document()->graph(), window.paretoPanel()->settings()));
        window.paretoPanel()->compute();
        window.paretoPanel()->waitForFinished();
    }
    if (const int row = rowToShow(*window.solversPanel()); row >= 0)
        window.solversPanel()->selectRow(row);
    if (!profile.model.isEmpty() && window.startProfile(profile))  // the measured overlay too
        window.profiler()->waitForFinished();
    if (!snapshot.isEmpty()) {
        window.openMemorySnapshot(snapshot);
        window.snapshotOpener()->waitForFinished();
    }
    if (!trace.isEmpty() && !window.openProfileTrace(trace))
        return 1;
    QApplication::processEvents();
    QString error;
    bool ok = window.saveScreenshots(dir, &error);
    const int node = nodeToShow(window.treeView()->tree());
    if (ok && node >= 0) {
        window.treeView()->selectNode(node);
        QApplication::processEvents();
        const QDir out(dir);
        ok = ckpt::ui::writeFileAtomically(out.filePath(QStringLiteral("dag-highlight.png")),
                                           ckpt::ui::widgetPng(window.dagPanel()), &error) &&
             ckpt::ui::writeFileAtomically(out.filePath(QStringLiteral("tree-highlight.png")),
                                           ckpt::ui::widgetPng(window.treeView()), &error) &&
             ckpt::ui::writeFileAtomically(out.filePath(QStringLiteral("explain-highlight.png")),
                                           ckpt::ui::widgetPng(window.explainPanel()), &error);
    }
    if (!ok) {
        std::fprintf(stderr, "checkpoint-explorer: %s\n", qPrintable(error));
        return 1;
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv)
{
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("CheckpointExplorer"));
    QApplication::setApplicationName(QStringLiteral("checkpoint-explorer"));
    QApplication::setApplicationDisplayName(QStringLiteral("Checkpoint Explorer"));
    QApplication::setApplicationVersion(QStringLiteral(CKPT_VERSION));
    // Desktop shells match the window to its desktop entry (and icon) by this name.
    QGuiApplication::setDesktopFileName(QStringLiteral(CKPT_APP_ID));
    QApplication::setWindowIcon(QIcon::fromTheme(QStringLiteral(CKPT_APP_ID), QIcon(QStringLiteral(":/icons/checkpoint-explorer.svg"))));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Find and prove optimal gradient checkpoints."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("graph"), QStringLiteral("A graph file to open (our JSON or networkx JSON)."));
    QCommandLineOption screenshot(QStringLiteral("screenshot"),
                                  QStringLiteral("Lay out GRAPH, run the solvers, render every view to DIR/<view>.png "
                                                 "(window, dag, solvers, sweep, tree, memory, explain) and exit."),
                                  QStringLiteral("DIR"));
    QCommandLineOption solvers(QStringLiteral("solvers"),
                               QStringLiteral("Comma-separated solvers to run for --screenshot (default: all)."),
                               QStringLiteral("NAMES"));
    QCommandLineOption profile(QStringLiteral("profile"),
                               QStringLiteral("With --screenshot: profile the shown plan on this model and overlay "
                                              "the measurement: the TorchScript file GRAPH was imported from, or "
                                              "FILE.py:FACTORY for a graph the Python package exported."),
                               QStringLiteral("MODEL"));
    QCommandLineOption python(QStringLiteral("python"),
                              QStringLiteral("The Python interpreter that profiles a FILE.py:FACTORY model (python3)."),
                              QStringLiteral("PATH"), QStringLiteral("python3"));
    QCommandLineOption input(QStringLiteral("input"), QStringLiteral("The --profile model's input shape (1x3x224x224)."),
                             QStringLiteral("SHAPE"));
    QCommandLineOption memorySnapshot(QStringLiteral("memory-snapshot"),
                                      QStringLiteral("With --screenshot: open this PyTorch memory snapshot "
                                                     "(File ▸ Open memory snapshot…) before rendering."),
                                      QStringLiteral("SNAPSHOT.pickle"));
    QCommandLineOption profileTrace(QStringLiteral("trace"),
                                    QStringLiteral("With --screenshot: open this profile trace "
                                                   "(File ▸ Open profile trace…) before rendering."),
                                    QStringLiteral("TRACE.json"));
    QCommandLineOption size(QStringLiteral("size"), QStringLiteral("With --screenshot: the window's size (e.g. 1366x768)."),
                            QStringLiteral("WxH"));
    parser.addOption(screenshot);
    parser.addOption(memorySnapshot);
    parser.addOption(profileTrace);
    parser.addOption(size);
    parser.addOption(solvers);
    parser.addOption(profile);
    parser.addOption(input);
    parser.addOption(python);
    parser.process(app);

    std::optional<QSize> windowSize;
    if (parser.isSet(size) && !(windowSize = parseSize(parser.value(size)))) {
        std::fprintf(stderr, "checkpoint-explorer: --size %s: expected WIDTHxHEIGHT, each at least 200 (e.g. 1366x768)\n",
                     qPrintable(parser.value(size)));
        return 1;
    }

    ckpt::ui::MainWindow window;
    if (windowSize)
        window.resize(*windowSize);
    else if (!parser.isSet(screenshot))  // screenshots show the default layout
        window.restoreSavedLayout();
    window.show();
    QString openError;
    if (!parser.positionalArguments().isEmpty() && !window.openFile(parser.positionalArguments().constFirst(), &openError) &&
        parser.isSet(screenshot)) {
        // Nothing to draw: say why on the command line instead of writing screenshots of an empty window.
        std::fprintf(stderr, "checkpoint-explorer: %s\n", qPrintable(openError));
        return 1;
    }
    if (parser.isSet(screenshot)) {
        const QString dir = parser.value(screenshot);
        const QStringList names = parser.value(solvers).split(QLatin1Char(','), Qt::SkipEmptyParts);
        // Let the window lay itself out before grabbing it.
        ckpt::ui::ProfileRequest request{parser.value(profile), parser.value(input)};
        request.python = parser.value(python);
        const QString snapshot = parser.value(memorySnapshot), trace = parser.value(profileTrace);
        QTimer::singleShot(200, &window, [&window, dir, names, request, snapshot, trace] {
            QApplication::exit(takeScreenshots(window, dir, names, request, snapshot, trace));
        });
    }
    return app.exec();
}
