// checkpoint-explorer [GRAPH]: the desktop application.
#include "DagPanel.h"
#include "GraphDocument.h"
#include "MainWindow.h"
#include "SolversPanel.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QTimer>

#include <cstdio>

namespace {

// --screenshot: lay the graph out, run the solvers, select the best plan, render each view.
int takeScreenshots(ckpt::ui::MainWindow& window, const QString& dir, const QStringList& solvers)
{
    window.dagPanel()->waitForLayout();
    if (window.document()->graph()) {
        if (!solvers.isEmpty())
            window.solversPanel()->setSelectedSolvers(solvers);
        window.solversPanel()->run();
        window.solversPanel()->waitForFinished();
    }
    QApplication::processEvents();
    QString error;
    if (!window.saveScreenshots(dir, &error)) {
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
    parser.addOption(screenshot);
    parser.addOption(solvers);
    parser.process(app);

    ckpt::ui::MainWindow window;
    window.show();
    if (!parser.positionalArguments().isEmpty())
        window.openFile(parser.positionalArguments().constFirst());
    if (parser.isSet(screenshot)) {
        const QString dir = parser.value(screenshot);
        const QStringList names = parser.value(solvers).split(QLatin1Char(','), Qt::SkipEmptyParts);
        // Let the window lay itself out before grabbing it.
        QTimer::singleShot(200, &window, [&window, dir, names] { QApplication::exit(takeScreenshots(window, dir, names)); });
    }
    return app.exec();
}
