// checkpoint-explorer [GRAPH]: the desktop application.
#include "MainWindow.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QTimer>

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
                                  QStringLiteral("Render the window to DIR/window.png and exit (no interaction)."),
                                  QStringLiteral("DIR"));
    parser.addOption(screenshot);
    parser.process(app);

    ckpt::ui::MainWindow window;
    window.show();
    if (!parser.positionalArguments().isEmpty())
        window.openFile(parser.positionalArguments().constFirst());
    if (parser.isSet(screenshot)) {
        const QDir dir(parser.value(screenshot));
        if (!dir.mkpath(QStringLiteral(".")))
            return 1;
        // Let the window lay itself out before grabbing it.
        QTimer::singleShot(200, &window, [&window, dir] {
            const bool ok = window.grab().save(dir.filePath(QStringLiteral("window.png")));
            QApplication::exit(ok ? 0 : 1);
        });
    }
    return app.exec();
}
