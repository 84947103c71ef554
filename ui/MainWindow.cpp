#include "MainWindow.h"

#include "AboutText.h"
#include "BackgroundTask.h"
#include "DagPanel.h"
#include "DagView.h"
#include "ExplainPanel.h"
#include "Export.h"
#include "GraphDocument.h"
#include "ImportDialog.h"
#include "MemoryChart.h"
#include "MemoryPrediction.h"
#include "ParetoPanel.h"
#include "ProfileDialog.h"
#include "RecentFiles.h"
#include "SnapshotOpener.h"
#include "SnapshotTimelineChart.h"
#include "SolversPanel.h"
#include "SweepPanel.h"
#include "TreeDisplayBuilder.h"
#include "VertexTableModel.h"
#include "graph/GraphError.h"
#include "io/PlanJson.h"
#include "io/TextFile.h"
#include "io/TraceJson.h"
#include "theory/DivisionTree.h"
#include "theory/PlanEvaluation.h"
#include "util/Units.h"

#include <QApplication>
#include <QCloseEvent>
#include <QShowEvent>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMenuBar>
#include <QLineEdit>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QScreen>
#include <QSettings>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>

static void initExampleResources()
{
    Q_INIT_RESOURCE(examples);
}

namespace ckpt::ui {

namespace {

// Most of the screen's free area, never more than the layout needs.
QSize defaultWindowSize(const QScreen* screen)
{
    const QSize wanted(1500, 1000);
    if (!screen)
        return wanted;
    const QSize available = screen->availableGeometry().size();
    return wanted.boundedTo(QSize(available.width() * 95 / 100, available.height() * 92 / 100));
}

}  // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent),
      m_document(new GraphDocument(this)),
      m_vertexModel(new VertexTableModel(this)),
      m_vertexTable(new QTableView(this)),
      m_dagPanel(new DagPanel(this)),
      m_solvers(new SolversPanel(this)),
      m_sweep(new SweepPanel(this)),
      m_tree(new DivisionTreeView(this)),
      m_memory(new MemoryChart(this)),
      m_memoryModel(new QComboBox(this)),
      m_prediction(new MemoryPrediction(this)),
      m_predicting(new QWidget(this)),
      m_explain(new ExplainPanel(this)),
      m_pareto(new ParetoPanel(this)),
      m_status(new QLabel(this)),
      m_profiler(new ProfileRunner(this)),
      m_profileProgress(new QProgressBar(this)),
      m_profileCancel(new QPushButton(tr("Cancel"), this)),
      m_profileResult(new QLabel(this))
{
    initExampleResources();
    setWindowTitle(tr("Checkpoint Explorer"));
    setDockOptions(AnimatedDocks | AllowTabbedDocks);
    m_vertexTable->setModel(m_vertexModel);
    m_vertexTable->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_vertexTable->setAlternatingRowColors(true);
    m_vertexTable->horizontalHeader()->setStretchLastSection(true);
    m_vertexTable->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
    setCentralWidget(m_dagPanel);
    createDocks();
    statusBar()->addPermanentWidget(m_status, 1);
    m_profileProgress->setRange(0, 0);  // the tool reports no fraction: busy
    m_profileProgress->setMaximumWidth(160);
    m_profileCancel->setObjectName(QStringLiteral("profileCancel"));
    statusBar()->addPermanentWidget(m_profileProgress);
    statusBar()->addPermanentWidget(m_profileCancel);
    m_profileProgress->hide();
    m_profileCancel->hide();
    connect(m_profileCancel, &QPushButton::clicked, m_profiler, &ProfileRunner::cancel);
    connect(m_profiler, &ProfileRunner::message, this, [this](const QString& line) { statusBar()->showMessage(line, 5000); });
    connect(m_profiler, &ProfileRunner::finished, this, &MainWindow::onProfileFinished);
    m_snapshotOpener = new SnapshotOpener(this);
    connect(m_snapshotOpener, &SnapshotOpener::finished, this, &MainWindow::onSnapshotRead);
    connect(m_profileCancel, &QPushButton::clicked, m_snapshotOpener, &SnapshotOpener::cancel);
    connect(m_profiler, &ProfileRunner::imported, this, &MainWindow::onImported);
    m_status->setText(tr("No graph loaded — File ▸ Open or File ▸ Examples"));
    createMenus();
    connect(m_document, &GraphDocument::graphChanged, this, &MainWindow::onGraphChanged);
    connect(m_dagPanel, &DagPanel::layoutReady, this, &MainWindow::onLayoutReady);
    connect(m_solvers, &SolversPanel::planSelected, this, &MainWindow::setCurrentPlan);
    connect(m_pareto, &ParetoPanel::planChosen, this, [this](const Plan& plan) {
        m_solvers->showPlanInTable(plan);  // the table never shows another plan as selected
        setCurrentPlan(&plan);
    });
    connect(m_sweep, &SweepPanel::entryChanged, this, &MainWindow::onSweepEntry);
    connect(m_tree, &DivisionTreeView::nodeSelected, this, &MainWindow::onTreeNodeSelected);
    connect(dagView(), &DagView::vertexSelectionChanged, this, &MainWindow::onDagSelectionChanged);
    connect(m_solvers, &SolversPanel::selectedPlansChanged, this, &MainWindow::updateMemoryChart);
    connect(m_vertexTable->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
        // Rows picked in the vertex table are selected (and shown) in the graph.
        std::vector<VertexIndex> vertices;
        for (const QModelIndex& row : m_vertexTable->selectionModel()->selectedRows())
            vertices.push_back(VertexIndex(row.row()));
        if (vertices.empty() || !dagView()->graph())
            return;
        dagView()->selectVertices(vertices);
        dagView()->centerOn(dagView()->vertexItem(vertices.front()));
    });
    connect(m_memoryModel, &QComboBox::currentIndexChanged, this, &MainWindow::updateMemoryChart);
    resize(defaultWindowSize(screen()));
    sizeDocksToWindow();
    m_defaultDocks = saveState();
}

void MainWindow::restoreSavedLayout()
{
    const QSettings settings;
    restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray());
    if (restoreState(settings.value(QStringLiteral("window/docks")).toByteArray()))
        m_docksToSize = false;
}

void MainWindow::resetLayout()
{
    if (isMaximized() || isFullScreen())
        showNormal();
    restoreState(m_defaultDocks);
    for (QDockWidget* dock : findChildren<QDockWidget*>())
        dock->setFloating(false);
    resize(defaultWindowSize(screen()));
    sizeDocksToWindow();
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    QSettings settings;
    settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("window/docks"), saveState());
    for (BackgroundTask* task : findChildren<BackgroundTask*>())
        task->cancel();
    m_profiler->cancel();
    QMainWindow::closeEvent(event);
}

QDockWidget* MainWindow::addDock(const QString& title, const QString& name, QWidget* widget, Qt::DockWidgetArea area)
{
    auto* dock = new QDockWidget(title, this);
    dock->setObjectName(name);
    dock->setWidget(widget);
    addDockWidget(area, dock);
    return dock;
}

void MainWindow::createDocks()
{
    auto* memory = new QWidget(this);
    auto* memoryColumn = new QVBoxLayout(memory);
    auto* memoryTools = new QHBoxLayout;
    memoryTools->addWidget(new QLabel(tr("Memory model:"), memory));
    memoryTools->addWidget(m_memoryModel);
    memoryColumn->addLayout(memoryTools);
    memoryColumn->addWidget(m_memory, 1);
    m_profileResult->setObjectName(QStringLiteral("profileResult"));
    m_profileResult->setWordWrap(true);
    m_profileResult->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_profileResult->hide();
    memoryColumn->addWidget(m_profileResult);
    m_memoryModel->setObjectName(QStringLiteral("memoryModel"));
    m_memoryModel->setToolTip(tr("chen: checkpoints kept, segments re-forwarded whole (Chen et al.); "
                                 "pytorch: tensors freed when no longer needed (Hong et al. Alg. 4)"));
    for (MemoryModel model : allMemoryModels())
        m_memoryModel->addItem(QString::fromStdString(memoryModelName(model)), int(model));
    // pytorch by default: it counts what a measured step holds (chen leaves out all gradients).
    m_memoryModel->setCurrentIndex(m_memoryModel->findData(int(MemoryModel::PyTorch)));
    auto* compareHint = new QLabel(tr("Select several rows in the comparison to compare their plans."), memory);
    compareHint->setWordWrap(true);  // no minimum width that squeezes the division tree beside it
    memoryTools->addWidget(compareHint, 1);
    auto* predictingRow = new QHBoxLayout(m_predicting);
    predictingRow->setContentsMargins(0, 0, 0, 0);
    // Busy, not a fraction: one plan's simulation is the unit of work, and one plan is the usual case.
    auto* busy = new QProgressBar(m_predicting);
    busy->setRange(0, 0);
    busy->setMaximumWidth(80);
    auto* cancelPrediction = new QPushButton(tr("Cancel"), m_predicting);
    cancelPrediction->setObjectName(QStringLiteral("cancelPrediction"));
    predictingRow->addWidget(new QLabel(tr("Predicting…"), m_predicting));
    predictingRow->addWidget(busy);
    predictingRow->addWidget(cancelPrediction);
    m_predicting->hide();
    memoryTools->addWidget(m_predicting);
    connect(cancelPrediction, &QPushButton::clicked, this, [this] {
        m_prediction->cancel();
        m_predicting->hide();
    });
    connect(m_prediction, &MemoryPrediction::ready, this, &MainWindow::showPredicted);
    connect(m_prediction, &MemoryPrediction::failed, this, [this](const QString& error) {
        m_predicting->hide();
        showError(tr("Cannot predict memory"), error);
    });

    // The solvers and Explain column runs the window's full height: the comparison needs rows.
    setCorner(Qt::TopRightCorner, Qt::RightDockWidgetArea);
    setCorner(Qt::BottomRightCorner, Qt::RightDockWidgetArea);
    QDockWidget* solvers = addDock(tr("Solvers"), QStringLiteral("solversDock"), m_solvers, Qt::RightDockWidgetArea);
    QDockWidget* explain = addDock(tr("Explain"), QStringLiteral("explainDock"), m_explain, Qt::RightDockWidgetArea);
    splitDockWidget(solvers, explain, Qt::Vertical);
    QDockWidget* tree = addDock(tr("Division tree"), QStringLiteral("treeDock"), m_tree, Qt::BottomDockWidgetArea);
    QDockWidget* sweep = addDock(tr("C sweep"), QStringLiteral("sweepDock"), m_sweep, Qt::BottomDockWidgetArea);
    QDockWidget* chart = addDock(tr("Memory"), QStringLiteral("memoryDock"), memory, Qt::BottomDockWidgetArea);
    QDockWidget* pareto = addDock(tr("Budget sweep"), QStringLiteral("paretoDock"), m_pareto, Qt::BottomDockWidgetArea);
    QDockWidget* vertices = addDock(tr("Vertices"), QStringLiteral("verticesDock"), m_vertexTable, Qt::BottomDockWidgetArea);
    splitDockWidget(tree, sweep, Qt::Horizontal);
    tabifyDockWidget(sweep, chart);
    tabifyDockWidget(chart, pareto);
    tabifyDockWidget(pareto, vertices);
    sweep->raise();
}

void MainWindow::sizeDocksToWindow()
{
    // Shares of the window, so that the layout reads the same at 1366×768 and 1920×1080.
    auto* solvers = findChild<QDockWidget*>(QStringLiteral("solversDock"));
    auto* explain = findChild<QDockWidget*>(QStringLiteral("explainDock"));
    auto* tree = findChild<QDockWidget*>(QStringLiteral("treeDock"));
    const int w = width(), h = height();
    const int side = std::max(420, w * 34 / 100);
    resizeDocks({solvers}, {side}, Qt::Horizontal);
    resizeDocks({solvers, explain}, {h * 62 / 100, h * 38 / 100}, Qt::Vertical);
    resizeDocks({tree}, {h * 40 / 100}, Qt::Vertical);
    resizeDocks({tree}, {(w - side) * 45 / 100}, Qt::Horizontal);
}

void MainWindow::showEvent(QShowEvent* event)
{
    QMainWindow::showEvent(event);
    if (m_docksToSize) {  // once the window's layout has its final size
        m_docksToSize = false;
        QTimer::singleShot(0, this, &MainWindow::sizeDocksToWindow);
    }
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
    file->addAction(tr("Open &TorchScript model…"), this, [this] {
        const QString model = QFileDialog::getOpenFileName(this, tr("Open TorchScript model"), QString(),
                                                           tr("TorchScript (*.pt *.pth);;All files (*)"));
        if (model.isEmpty())
            return;
        ImportDialog dialog(model, this);
        if (dialog.exec() == QDialog::Accepted)
            importTorchModel(dialog.request());
    })->setObjectName(QStringLiteral("importTorchAction"));
    file->addAction(tr("Open memory &snapshot…"), this, [this] {
        const QString path = QFileDialog::getOpenFileName(
            this, tr("Open PyTorch memory snapshot"), QString(),
            tr("Memory snapshots (*.pickle *.pkl);;All files (*)"));
        if (!path.isEmpty())
            openMemorySnapshot(path);
    })->setObjectName(QStringLiteral("openSnapshotAction"));
    file->addAction(tr("Open profile &trace…"), this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Open profile trace"), QString(),
                                                          tr("Profile traces (*.json);;All files (*)"));
        if (!path.isEmpty())
            openProfileTrace(path);
    })->setObjectName(QStringLiteral("openTraceAction"));
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    QMenu* examples = file->addMenu(tr("&Examples"));
    const QDir exampleDir(QStringLiteral(":/examples"));
    for (const QString& name : exampleDir.entryList({QStringLiteral("*.json")}, QDir::Files, QDir::Name)) {
        const QString path = exampleDir.filePath(name);
        examples->addAction(QFileInfo(name).completeBaseName(), this, [this, path] { openFile(path); });
    }
    QMenu* exportMenu = file->addMenu(tr("&Export"));
    const QString images = tr("PNG image (*.png);;SVG drawing (*.svg)");
    exportMenu->addAction(tr("Graph as image…"), this, [this, images] {
        exportWith(tr("Export graph"), images,
                   [this](const QString& p, QString* e) { return exportScene(dagView()->scene(), p, e); });
    });
    exportMenu->addAction(tr("Division tree as image…"), this, [this, images] {
        exportWith(tr("Export division tree"), images,
                   [this](const QString& p, QString* e) { return exportScene(m_tree->scene(), p, e); });
    });
    exportMenu->addAction(tr("Memory chart as image…"), this, [this, images] {
        exportWith(tr("Export memory chart"), images, [this](const QString& p, QString* e) { return exportWidget(m_memory, p, e); });
    });
    exportMenu->addAction(tr("Memory timeline as CSV…"), this, [this] {
        exportWith(tr("Export memory timeline"), tr("CSV (*.csv)"),
                   [this](const QString& p, QString* e) { return exportMemoryCsv(p, e); });
    });
    exportMenu->addAction(tr("Current plan as JSON…"), this, [this] {
        exportWith(tr("Export plan"), tr("Plan JSON (*.json)"), [this](const QString& p, QString* e) { return exportPlanJson(p, e); });
    });
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), qApp, &QApplication::closeAllWindows);
    quit->setShortcut(QKeySequence::Quit);
    rebuildRecentMenu();

    m_viewMenu = menuBar()->addMenu(tr("&View"));
    m_viewMenu->addAction(tr("&Fit graph"), QKeySequence(tr("Ctrl+0")), dagView(), &DagView::fitGraph);
    m_viewMenu->addAction(tr("Zoom &in"), QKeySequence::ZoomIn, dagView(), [this] { dagView()->zoomBy(1.25); });
    m_viewMenu->addAction(tr("Zoom &out"), QKeySequence::ZoomOut, dagView(), [this] { dagView()->zoomBy(1 / 1.25); });
    m_viewMenu->addSeparator();
    for (QDockWidget* dock : findChildren<QDockWidget*>())
        m_viewMenu->addAction(dock->toggleViewAction());
    m_viewMenu->addSeparator();
    m_viewMenu->addAction(tr("&Reset layout"), this, &MainWindow::resetLayout)->setObjectName(QStringLiteral("resetLayoutAction"));

    QMenu* tools = menuBar()->addMenu(tr("&Tools"));
    QAction* profile = tools->addAction(tr("&Profile…"), this, [this] {
        ProfileDialog dialog(this);
        if (dialog.exec() != QDialog::Accepted)
            return;
        dialog.remember();
        startProfile(dialog.request());
    });
    profile->setObjectName(QStringLiteral("profileAction"));
    profile->setToolTip(tr("Measure the current plan's training step with ckptx-torch and draw it over the predictions"));

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About"), this, [this] {
        QMessageBox::about(this, tr("About Checkpoint Explorer"), aboutHtml(QApplication::applicationVersion()));
    })->setObjectName(QStringLiteral("aboutAction"));
}

void MainWindow::rebuildRecentMenu()
{
    m_recentMenu->clear();
    const QStringList files = RecentFiles::list();
    for (const QString& path : files)
        m_recentMenu->addAction(path, this, [this, path] { openFile(path); });
    m_recentMenu->setEnabled(!files.isEmpty());
}

bool MainWindow::openFile(const QString& path, QString* errorOut)
{
    QString error;
    if (!m_document->load(path, &error)) {
        showError(tr("Cannot open graph"), error);
        if (errorOut)
            *errorOut = error;
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

DagView* MainWindow::dagView() const
{
    return m_dagPanel->view();
}

void MainWindow::onGraphChanged()
{
    const auto graph = m_document->graph();
    // Plans and measurements of the old graph go first: setting the panels' graphs redraws the chart.
    m_plan.reset();
    m_profiler->cancel();
    m_measured.reset();
    m_profiledPlan.reset();
    m_vertexModel->setGraph(graph);
    m_vertexTable->resizeColumnsToContents();
    m_dagPanel->setGraph(graph);
    m_solvers->setGraph(graph);
    m_pareto->setGraph(graph);
    m_sweep->setSweep(std::nullopt);
    m_profileResult->hide();
    m_prediction->cancel();
    m_predicting->hide();
    m_memory->setTimelines({});
    setDivisionTree(makeTreeDisplay(*graph, DivisionTree::build(*graph)));
    setWindowTitle(tr("%1 — Checkpoint Explorer").arg(m_document->displayName()));
    const Graph& g = *graph;
    m_explain->showGraph(g);
    m_status->setText(tr("%1 vertices · %2 edges · %3 total · source %4 → sink %5%6")
                          .arg(g.vertexCount())
                          .arg(g.edgeCount())
                          .arg(QString::fromStdString(formatBytes(g.totalBytes())),
                               QString::fromStdString(g.vertex(g.source()).id),
                               QString::fromStdString(g.vertex(g.sink()).id),
                               g.isChain() ? tr(" · chain") : QString()));
}

void MainWindow::onLayoutReady()
{
    // The plan may have been chosen while the layout ran.
    dagView()->showPlan(m_plan ? &m_plan->evaluation : nullptr);
}

void MainWindow::setDivisionTree(std::optional<TreeDisplay> tree)
{
    m_treeData = std::move(tree);
    if (m_treeData)
        m_tree->setTree(m_document->graph(), *m_treeData);
    else
        m_tree->clearTree();
}

void MainWindow::setCurrentPlan(const Plan* plan)
{
    if (plan)
        m_plan = *plan;
    else
        m_plan.reset();
    dagView()->clearHighlight();
    dagView()->showPlan(m_plan ? &m_plan->evaluation : nullptr);
    m_tree->setExceeding({});
    if (m_plan) {
        m_explain->showPlan(*m_document->graph(), *m_plan);
        m_sweep->setSweep(m_plan->sweep, QString::fromStdString(m_plan->solver));  // a sweep explains its step
    } else {
        m_sweep->setSweep(std::nullopt);
        if (const SolverRun* run = m_solvers->currentRun(); run && !run->plan)
            m_explain->showFailure(QString::fromStdString(run->solver), QString::fromStdString(run->error));
        else if (m_document->graph())
            m_explain->showGraph(*m_document->graph());
    }
    updateMemoryChart();
}

void MainWindow::setMemoryModel(MemoryModel model)
{
    m_memoryModel->setCurrentIndex(m_memoryModel->findData(int(model)));
}

void MainWindow::updateMemoryChart()
{
    const std::shared_ptr<const Graph> graph = m_document->graph();
    if (!graph) {
        m_prediction->cancel();
        m_predicting->hide();
        m_memory->setTimelines({});
        return;
    }
    std::vector<Plan> plans;
    for (const Plan* plan : m_solvers->selectedPlans())
        plans.push_back(*plan);
    if (plans.empty() && m_plan)
        plans.push_back(*m_plan);
    // The measured line beside the prediction of the plan it measured.
    if (m_measured && m_profiledPlan && std::none_of(plans.begin(), plans.end(), [this](const Plan& p) {
            return p.evaluation.checkpoints == m_profiledPlan->evaluation.checkpoints;
        }))
        plans.push_back(*m_profiledPlan);
    m_prediction->predict(graph, std::move(plans), MemoryModel(m_memoryModel->currentData().toInt()),
                          m_measured ? m_measured->count : MemoryCount::Requested);
    // Only a prediction still running after a moment shows its progress: most take milliseconds.
    QTimer::singleShot(300, m_predicting, [this] {
        if (m_prediction->isRunning())
            m_predicting->show();
    });
}

void MainWindow::showPredicted(std::vector<MemoryTimeline> timelines)
{
    m_predicting->hide();
    if (m_measured)
        timelines.push_back(m_measured->measured);
    m_memory->setTimelines(std::move(timelines));
}

QString MainWindow::profileText() const
{
    return m_profileResult->isHidden() ? QString() : m_profileResult->text();
}

bool MainWindow::startProfile(const ProfileRequest& request)
{
    const Graph* graph = m_document->graph().get();
    QString error;
    if (!graph || !m_plan)
        error = tr("Select a plan to profile first (solve, then pick a row of the comparison).");
    else if (request.model.isEmpty() || request.inputShape.isEmpty())
        error = tr("Profiling needs the model file and its input shape.");
    if (error.isEmpty()) {
        // Shown first: a missing tool fails (and reports) inside start().
        m_profiledPlan = m_plan;
        showToolRunning(true);
        statusBar()->showMessage(tr("Profiling %1 on %2…").arg(QFileInfo(request.model).fileName(), request.device));
        if (m_profiler->start(request, *graph, *m_plan, &error))
            return true;
        showToolRunning(false);
    }
    showError(tr("Cannot profile"), error);
    return false;
}

void MainWindow::showToolRunning(bool running)
{
    m_profileProgress->setVisible(running);
    m_profileCancel->setVisible(running);
    if (!running)
        statusBar()->clearMessage();
}

bool MainWindow::importTorchModel(const ImportRequest& request)
{
    const QString& model = request.model;
    const QString& inputShape = request.inputShape;
    const QDir dir(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + QStringLiteral("/imported"));
    QString error;
    if (inputShape.isEmpty())
        error = tr("Importing needs the model's input shape (e.g. 1x3x224x224).");
    else if (!dir.mkpath(QStringLiteral(".")))
        error = tr("%1: cannot create the folder").arg(dir.path());
    if (error.isEmpty()) {
        m_importingModel = QFileInfo(model).absoluteFilePath();
        m_importingShape = inputShape;
        showToolRunning(true);
        statusBar()->showMessage(tr("Importing %1…").arg(QFileInfo(model).fileName()));
        if (m_profiler->startImport(request, dir.filePath(QFileInfo(model).completeBaseName() + QStringLiteral(".json")), &error))
            return true;
        showToolRunning(false);
    }
    showError(tr("Cannot import model"), error);
    return false;
}

void MainWindow::onImported(const QString& graphFile, const QString& error)
{
    showToolRunning(false);
    if (!error.isEmpty()) {
        if (!m_profiler->wasCancelled())
            showError(tr("Cannot import model"), tr("%1: %2").arg(m_importingModel, error));
        return;
    }
    if (openFile(graphFile)) {
        // Profile… then offers the model this graph came from.
        QSettings().setValue(QStringLiteral("profile/lastModel"), m_importingModel);
        ProfileDialog::rememberInputShape(m_importingModel, m_importingShape);
    }
}

void MainWindow::onProfileFinished(const std::optional<ProfileTrace>& trace, const QString& error)
{
    showToolRunning(false);
    QString problem = error;
    if (trace && !m_profiledPlan && problem.isEmpty())
        problem = tr("another graph was opened while it ran");
    else if (trace && m_profiledPlan) {
        try {
            m_measured = makeMeasuredOverlay(*m_document->graph(), *m_profiledPlan, *trace);
        } catch (const std::invalid_argument& e) {
            problem = tr("The trace does not fit this graph (was it imported from this model?): %1")
                          .arg(QString::fromStdString(e.what()));
        }
    }
    if (!problem.isEmpty()) {
        m_profileResult->setText(tr("Profile failed: %1").arg(problem));
        m_profileResult->show();
        if (!m_profiler->wasCancelled())
            showError(tr("Profile failed"), problem);
        return;
    }
    showMeasured(*trace);
}

void MainWindow::showMeasured(const ProfileTrace& trace)
{
    QString text = tr("Measured (%1, %2 iteration(s)) vs predicted — %3")
                       .arg(QString::fromStdString(trace.device))
                       .arg(trace.iterations)
                       .arg(describeErrors(m_measured->errors));
    if (m_measured->stepTime)
        text += QStringLiteral("<br>") + describeStepTime(*m_measured->stepTime);
    if (!trace.fromSnapshot() && !trace.gradientsMatch)
        text += tr("<br><b>Gradients differ</b>: %1").arg(QString::fromStdString(trace.mismatch).toHtmlEscaped());
    m_profileResult->setText(text);
    m_profileResult->show();
    if (auto* dock = findChild<QDockWidget*>(QStringLiteral("memoryDock")))
        dock->raise();
    updateMemoryChart();
}

void MainWindow::openMemorySnapshot(const QString& path)
{
    m_profiledPlan = m_plan;  // markers are drawn over the plan shown now
    showToolRunning(true);
    m_snapshotOpener->start(path, m_document->graph());
}

bool MainWindow::openProfileTrace(const QString& path)
{
    const Graph* graph = m_document->graph().get();
    if (!graph) {
        showError(tr("Profile trace"), tr("%1: open the graph the trace was profiled on first.").arg(path));
        return false;
    }
    try {
        const ProfileTrace trace = parseTraceJson(readInputFile(path.toStdString()), path.toStdString());
        if (trace.checkpoints.empty())
            throw std::invalid_argument("the trace lists no plan (\"checkpoints\")");
        Plan plan;
        plan.solver = QFileInfo(path).completeBaseName().toStdString();
        plan.evaluation = evaluateIds(*graph, trace.checkpoints);
        m_measured = makeMeasuredOverlay(*graph, plan, trace);
        m_profiledPlan = plan;
        showMeasured(trace);
        return true;
    } catch (const GraphError& e) {
        showError(tr("Profile trace"), QString::fromStdString(e.what()));
    } catch (const std::exception& e) {
        showError(tr("Profile trace"), tr("%1: %2").arg(path, QString::fromStdString(e.what())));
    }
    return false;
}

void MainWindow::onSnapshotRead(const std::optional<ProfileTrace>& trace, const QString& error)
{
    if (trace && (!trace->checkpointed.phases.empty() || !trace->regular.phases.empty())) {
        if (!m_profiledPlan) {
            showToolRunning(false);
            showError(tr("Memory snapshot"), tr("The snapshot marks training phases: choose a plan to compare it with first."));
            return;
        }
        return onProfileFinished(trace, error);
    }
    showToolRunning(false);
    if (!trace) {
        if (!error.isEmpty())
            showError(tr("Memory snapshot"), error);
        return;
    }
    if (!m_snapshotChart) {
        m_snapshotChart = new SnapshotTimelineChart(this);
        m_snapshotChart->setWindowFlag(Qt::Window);
        m_snapshotChart->setWindowTitle(tr("Memory over time"));
    }
    m_snapshotChart->setTrace(*trace);
    m_snapshotChart->show();
    m_snapshotChart->raise();
}

void MainWindow::onSweepEntry(int entry)
{
    const auto& sweep = m_sweep->sweep();
    const Graph* graph = m_document->graph().get();
    if (!sweep || !graph || entry < 0)
        return;
    const SweepEntry& e = sweep->entries.at(std::size_t(entry));
    const PlanEvaluation evaluation = evaluate(*graph, e.checkpoints);
    dagView()->showPlan(&evaluation);
    std::vector<bool> exceeding;
    if (m_treeData)
        for (const TreeDisplay::Node& n : m_treeData->nodes)
            exceeding.push_back(n.segmentCost > e.c);
    m_tree->setExceeding(exceeding);
    m_explain->showSweepEntry(*graph, *sweep, entry, m_treeData ? &*m_treeData : nullptr, exceeding);
}

void MainWindow::onTreeNodeSelected(int node)
{
    if (!m_treeData || node < 0) {
        dagView()->clearHighlight();
        return;
    }
    const TreeDisplay::Node& n = m_treeData->nodes.at(std::size_t(node));
    dagView()->highlightSubgraph(n.source, n.target, m_treeData->interior(node));
    if (!m_syncing)  // picked in the tree: show it; picked in the graph (a search hit): stay there
        dagView()->showVertex(n.source);
    m_explain->showTreeNode(*m_document->graph(), *m_treeData, node);
}

void MainWindow::onDagSelectionChanged()
{
    if (m_syncing || !m_treeData)
        return;
    const std::vector<VertexIndex> selected = dagView()->selectedVertices();
    if (selected.empty())
        return;
    m_syncing = true;
    m_tree->selectNode(m_treeData->smallestContaining(selected));
    m_syncing = false;
}

QString MainWindow::statusText() const
{
    return m_status->text();
}

bool MainWindow::exportPlanJson(const QString& path, QString* error) const
{
    if (!m_plan || !m_document->graph()) {
        if (error)
            *error = tr("No plan is selected: run the solvers and select a row first.");
        return false;
    }
    return writeFileAtomically(path, QByteArray::fromStdString(toPlanJson(*m_document->graph(), *m_plan)), error);
}

bool MainWindow::exportMemoryCsv(const QString& path, QString* error) const
{
    m_prediction->waitForFinished();  // the lines of the plans selected now, not the last drawn
    if (m_memory->timelines().empty()) {
        if (error)
            *error = tr("The memory chart shows no timeline to export.");
        return false;
    }
    return writeFileAtomically(path, m_memory->toCsv(), error);
}

void MainWindow::exportWith(const QString& title, const QString& filter,
                            const std::function<bool(const QString&, QString*)>& write)
{
    QString chosenFilter;
    const QString answer = QFileDialog::getSaveFileName(this, title, QString(), filter, &chosenFilter);
    if (answer.isEmpty())
        return;
    const QString path = withFilterSuffix(answer, chosenFilter.isEmpty() ? filter : chosenFilter);
    QString error;
    if (!write(path, &error))
        showError(title, error);
    else
        statusBar()->showMessage(tr("Saved %1").arg(path), 5000);
}

bool MainWindow::saveScreenshots(const QString& dir, QString* error)
{
    const QDir out(dir);
    if (!out.mkpath(QStringLiteral("."))) {
        if (error)
            *error = tr("%1: cannot create the directory").arg(dir);
        return false;
    }
    m_prediction->waitForFinished();
    const std::pair<QString, QWidget*> views[] = {
        {QStringLiteral("window"), this},     {QStringLiteral("dag"), m_dagPanel},      {QStringLiteral("solvers"), m_solvers},
        {QStringLiteral("sweep"), m_sweep},   {QStringLiteral("tree"), m_tree},          {QStringLiteral("memory"), m_memory->parentWidget()},
        {QStringLiteral("explain"), m_explain}, {QStringLiteral("pareto"), m_pareto}};
    for (const auto& [name, widget] : views) {
        // A tabbed dock only paints its front tab: bring the view's dock forward first.
        for (QWidget* w = widget; w; w = w->parentWidget())
            if (auto* dock = qobject_cast<QDockWidget*>(w))
                dock->raise();
        QApplication::processEvents();
        const QString path = out.filePath(name + QStringLiteral(".png"));
        if (!writeFileAtomically(path, widgetPng(widget), error))
            return false;
    }
    if (m_snapshotChart && m_snapshotChart->isVisible() &&
        !writeFileAtomically(out.filePath(QStringLiteral("snapshot-timeline.png")), widgetPng(m_snapshotChart), error))
        return false;
    // The whole drawings too, whatever the views' zoom; 4000 pixels at most (at 8000, a
    // 1000-vertex graph took most of a screenshot run's minute to paint and encode).
    return writeFileAtomically(out.filePath(QStringLiteral("dag-full.png")), scenePng(dagView()->scene(), 4000), error) &&
           (m_tree->scene()->items().isEmpty() ||
            writeFileAtomically(out.filePath(QStringLiteral("tree-full.png")), scenePng(m_tree->scene()), error));
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
