#pragma once
// The explorer window: the DAG in the middle; solvers, explanation, division tree, C sweep, memory
// chart and the vertex table in docks. Selecting a plan, a tree node, a sweep step or DAG vertices
// updates every view (MainWindow only routes; the views show what the core computed).
#include "DivisionTreeView.h"
#include "MeasuredOverlay.h"
#include "ProfileRunner.h"
#include "memory/MemoryProfile.h"
#include "solvers/Plan.h"

#include <QMainWindow>

#include <memory>
#include <optional>

class QComboBox;
class QDockWidget;
class QLabel;
class QMenu;
class QProgressBar;
class QPushButton;
class QTableView;

namespace ckpt::ui {

class DagPanel;
class DagView;
class ExplainPanel;
class GraphDocument;
class MemoryChart;
class MemoryPrediction;
class SnapshotOpener;
class SnapshotTimelineChart;
class ParetoPanel;
class SolversPanel;
class SweepPanel;
class VertexTableModel;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);

    // Opens a graph file (or ":/examples/..." resource); a failure is shown in a dialog that
    // names the file and the problem (and given to `error` when asked), and the current graph stays.
    bool openFile(const QString& path, QString* error = nullptr);

    GraphDocument* document() const { return m_document; }
    QTableView* vertexTable() const { return m_vertexTable; }
    DagPanel* dagPanel() const { return m_dagPanel; }
    DagView* dagView() const;
    SolversPanel* solversPanel() const { return m_solvers; }
    SweepPanel* sweepPanel() const { return m_sweep; }
    DivisionTreeView* treeView() const { return m_tree; }
    MemoryChart* memoryChart() const { return m_memory; }
    // Simulates the chart's predicted lines in the background (tests wait for it).
    MemoryPrediction* memoryPrediction() const { return m_prediction; }
    ExplainPanel* explainPanel() const { return m_explain; }
    ParetoPanel* paretoPanel() const { return m_pareto; }
    const Plan* currentPlan() const { return m_plan ? &*m_plan : nullptr; }
    QString statusText() const;
    ProfileRunner* profiler() const { return m_profiler; }
    // The last profile of this graph drawn over the predictions, nullptr when none.
    const MeasuredOverlay* measuredOverlay() const { return m_measured ? &*m_measured : nullptr; }
    // Each memory model's error against the measured step (or what went wrong with the profile).
    QString profileText() const;

    // Profiles the current plan with ckptx-torch (Tools ▸ Profile… asks for the request);
    // false, with an error dialog, when there is no graph or plan or a profile is running.
    bool startProfile(const ProfileRequest& request);
    // File ▸ Open TorchScript model…: `ckptx-torch import` in the background, then opens the graph
    // (written under the app data folder) and remembers the model and input shape for Profile….
    bool importTorchModel(const ImportRequest& request);

    // File ▸ Open memory snapshot…: reads a PyTorch memory snapshot in the background; with phase
    // markers for this graph it is drawn over the current plan's predictions like a profile,
    // otherwise its allocated bytes over time open in a window (snapshotChart()).
    void openMemorySnapshot(const QString& path);
    // File ▸ Open profile trace…: a trace `python3 -m checkpoint_explorer profile` (or ckptx-torch)
    // wrote where the model trains, a GPU included, drawn over the prediction of the plan it lists;
    // false, with an error dialog naming the file, when it cannot be read or is not of this graph.
    bool openProfileTrace(const QString& path);
    SnapshotOpener* snapshotOpener() const { return m_snapshotOpener; }
    SnapshotTimelineChart* snapshotChart() const { return m_snapshotChart; }

    // Makes a plan current everywhere (normally by selecting a comparison row); nullptr clears.
    void setCurrentPlan(const Plan* plan);
    // The memory model the chart simulates the selected plans under.
    void setMemoryModel(MemoryModel model);
    // The division tree shown and used for DAG <-> tree selection sync; nullopt clears.
    void setDivisionTree(std::optional<TreeDisplay> tree);

    // Renders every view (the memory chart once its prediction is drawn) to DIR/<view>.png (window,
    // dag, solvers, sweep, tree, memory, explain) and the whole DAG (and tree) drawings to
    // dag-full.png (tree-full.png).
    bool saveScreenshots(const QString& dir, QString* error);
    // Exports; each writes atomically and returns false with a message on failure.
    bool exportPlanJson(const QString& path, QString* error) const;
    bool exportMemoryCsv(const QString& path, QString* error) const;

    // The window's size and dock arrangement: restored from QSettings (the app does it at start;
    // tests and screenshots keep the defaults), saved on close; View ▸ Reset layout goes back to
    // the defaults, a size that fits the screen.
    void restoreSavedLayout();
    void resetLayout();

protected:
    // Saves the layout and ends every background job, child processes included.
    void closeEvent(QCloseEvent* event) override;
    // The default dock sizes, as shares of the window, once it has its size.
    void showEvent(QShowEvent* event) override;

private:
    void createDocks();
    void sizeDocksToWindow();
    void createMenus();
    void rebuildRecentMenu();
    void onGraphChanged();
    void onLayoutReady();
    void onSweepEntry(int entry);
    void updateMemoryChart();
    void showPredicted(std::vector<MemoryTimeline> timelines);
    void onTreeNodeSelected(int node);
    void onDagSelectionChanged();
    void onImported(const QString& graphFile, const QString& error);
    void showToolRunning(bool running);
    void onProfileFinished(const std::optional<ProfileTrace>& trace, const QString& error);
    // The measured overlay (m_measured) in the memory dock, with its errors and step time.
    void showMeasured(const ProfileTrace& trace);
    void onSnapshotRead(const std::optional<ProfileTrace>& trace, const QString& error);
    void showError(const QString& title, const QString& message);
    void exportWith(const QString& title, const QString& filter, const std::function<bool(const QString&, QString*)>& write);
    QDockWidget* addDock(const QString& title, const QString& name, QWidget* widget, Qt::DockWidgetArea area);

    GraphDocument* m_document;
    VertexTableModel* m_vertexModel;
    QTableView* m_vertexTable;
    DagPanel* m_dagPanel;
    SolversPanel* m_solvers;
    SweepPanel* m_sweep;
    DivisionTreeView* m_tree;
    MemoryChart* m_memory;
    QComboBox* m_memoryModel;
    MemoryPrediction* m_prediction;
    QWidget* m_predicting;  // busy bar and Cancel of a prediction that takes a while
    ExplainPanel* m_explain;
    ParetoPanel* m_pareto;
    QLabel* m_status;
    ProfileRunner* m_profiler;
    QProgressBar* m_profileProgress;
    QPushButton* m_profileCancel;
    QLabel* m_profileResult;
    std::optional<Plan> m_profiledPlan;
    QString m_importingModel, m_importingShape;
    std::optional<MeasuredOverlay> m_measured;
    SnapshotOpener* m_snapshotOpener;
    SnapshotTimelineChart* m_snapshotChart = nullptr;  // in its own window, made on first use
    QMenu* m_recentMenu = nullptr;
    QMenu* m_viewMenu = nullptr;
    std::optional<Plan> m_plan;
    std::optional<TreeDisplay> m_treeData;
    bool m_syncing = false;  // a selection being mirrored into the other view
    bool m_docksToSize = true;  // not restored from QSettings: sized when first shown
    QByteArray m_defaultDocks;  // the dock arrangement before any restore, for Reset layout
};

}  // namespace ckpt::ui
