#include "MainWindow.h"

#include "GraphDocument.h"
#include "RecentFiles.h"
#include "VertexTableModel.h"
#include "util/Units.h"

#include <QApplication>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QStatusBar>
#include <QTableView>

static void initExampleResources()
{
    Q_INIT_RESOURCE(examples);
}

namespace ckpt::ui {

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent),
      m_document(new GraphDocument(this)),
      m_vertexModel(new VertexTableModel(this)),
      m_vertexTable(new QTableView(this)),
      m_status(new QLabel(this))
{
    initExampleResources();
    setWindowTitle(tr("Checkpoint Explorer"));
    m_vertexTable->setModel(m_vertexModel);
    m_vertexTable->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_vertexTable->setAlternatingRowColors(true);
    m_vertexTable->horizontalHeader()->setStretchLastSection(true);
    m_vertexTable->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
    setCentralWidget(m_vertexTable);
    statusBar()->addPermanentWidget(m_status, 1);
    m_status->setText(tr("No graph loaded — File ▸ Open or File ▸ Examples"));
    createMenus();
    connect(m_document, &GraphDocument::graphChanged, this, &MainWindow::onGraphChanged);
    resize(1100, 720);
}

void MainWindow::createMenus()
{
    QMenu* file = menuBar()->addMenu(tr("&File"));
    QAction* open = file->addAction(tr("&Open…"), this, [this] {
        const QString path = QFileDialog::getOpenFileName(
            this, tr("Open graph"), QString(),
            tr("Graphs (*.json);;Checkpoint Explorer JSON (*.json);;networkx node-link JSON (*.json);;All files (*)"));
        if (!path.isEmpty())
            openFile(path);
    });
    open->setShortcut(QKeySequence::Open);
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    QMenu* examples = file->addMenu(tr("&Examples"));
    const QDir exampleDir(QStringLiteral(":/examples"));
    for (const QString& name : exampleDir.entryList({QStringLiteral("*.json")}, QDir::Files, QDir::Name)) {
        const QString path = exampleDir.filePath(name);
        examples->addAction(QFileInfo(name).completeBaseName(), this, [this, path] { openFile(path); });
    }
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), qApp, &QApplication::closeAllWindows);
    quit->setShortcut(QKeySequence::Quit);
    rebuildRecentMenu();

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About"), this, [this] {
        QMessageBox::about(this, tr("About Checkpoint Explorer"),
                           tr("<b>Checkpoint Explorer</b> %1<br>Shows a network's computation graph, finds its "
                              "optimal gradient checkpoints and predicts training memory.")
                               .arg(QApplication::applicationVersion()));
    });
}

void MainWindow::rebuildRecentMenu()
{
    m_recentMenu->clear();
    const QStringList files = RecentFiles::list();
    for (const QString& path : files)
        m_recentMenu->addAction(path, this, [this, path] { openFile(path); });
    m_recentMenu->setEnabled(!files.isEmpty());
}

bool MainWindow::openFile(const QString& path)
{
    QString error;
    if (!m_document->load(path, &error)) {
        showError(tr("Cannot open graph"), error);
        if (!QFileInfo::exists(path) && !path.startsWith(QLatin1Char(':'))) {
            RecentFiles::remove(QFileInfo(path).absoluteFilePath());
            rebuildRecentMenu();
        }
        return false;
    }
    RecentFiles::add(path);
    rebuildRecentMenu();
    return true;
}

void MainWindow::onGraphChanged()
{
    m_vertexModel->setGraph(m_document->graph());
    m_vertexTable->resizeColumnsToContents();
    setWindowTitle(tr("%1 — Checkpoint Explorer").arg(m_document->displayName()));
    const Graph& g = *m_document->graph();
    m_status->setText(tr("%1 vertices · %2 edges · %3 total · source %4 → sink %5%6")
                          .arg(g.vertexCount())
                          .arg(g.edgeCount())
                          .arg(QString::fromStdString(formatBytes(g.totalBytes())),
                               QString::fromStdString(g.vertex(g.source()).id),
                               QString::fromStdString(g.vertex(g.sink()).id),
                               g.isChain() ? tr(" · chain") : QString()));
}

QString MainWindow::statusText() const
{
    return m_status->text();
}

void MainWindow::showError(const QString& title, const QString& message)
{
    // Window-modal and non-blocking, so a failed open never stalls the event loop (or a test).
    auto* box = new QMessageBox(QMessageBox::Critical, title, message, QMessageBox::Ok, this);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setObjectName(QStringLiteral("errorDialog"));
    box->open();
}

}  // namespace ckpt::ui
