#pragma once
// Choose solvers (every one the core offers) and their options, run them in the background with
// progress and cancel, compare their plans; selecting a row makes that plan current.
#include "ComparisonModel.h"
#include "graph/Graph.h"

#include <QWidget>

#include <map>
#include <memory>
#include <string>

class QFormLayout;
class QGroupBox;
class QLabel;
class QListWidget;
class QProgressBar;
class QPushButton;
class QTableView;

namespace ckpt::ui {

class BackgroundTask;

class SolversPanel : public QWidget {
    Q_OBJECT
public:
    explicit SolversPanel(QWidget* parent = nullptr);

    void setGraph(std::shared_ptr<const Graph> graph);
    // Which solvers run (by name); the others are unchecked.
    void setSelectedSolvers(const QStringList& names);
    QStringList selectedSolvers() const;
    void setOption(const QString& solver, const QString& option, const QString& value);

    void run();
    void cancel();
    bool isRunning() const;
    void waitForFinished();

    ComparisonModel* model() const { return m_model; }
    QTableView* table() const { return m_table; }
    // The plan of the current row, or nullptr.
    const Plan* currentPlan() const;
    // The current row's run (a failed one included), nullptr when none.
    const SolverRun* currentRun() const;
    // Selects the row with this solver (a sweep step "(C=…)" belongs to its solver) and these
    // checkpoints, or clears the selection when no row has them; emits nothing (the caller makes
    // the plan current). Returns whether a row matched.
    bool showPlanInTable(const Plan& plan);
    // The plans of all selected rows (several rows compare in the memory chart), in row order.
    std::vector<const Plan*> selectedPlans() const;
    void selectRow(int row);
    void selectRows(const std::vector<int>& rows);
    // The row whose plan has the smallest objective (-1 when none succeeded).
    int bestRow() const;

Q_SIGNALS:
    void planSelected(const ckpt::Plan* plan);  // nullptr: no plan
    void selectedPlansChanged();
    void runFinished();

private:
    void showOptions(const QString& solver);
    void onFinished(bool cancelled);

    std::shared_ptr<const Graph> m_graph;
    std::map<std::string, std::map<std::string, std::string>> m_options;  // solver -> option -> value
    QListWidget* m_solvers;
    QGroupBox* m_optionsBox;
    QFormLayout* m_optionsForm;
    QPushButton* m_run;
    QPushButton* m_cancel;
    QProgressBar* m_progress;
    QLabel* m_status;
    ComparisonModel* m_model;
    QTableView* m_table;
    BackgroundTask* m_task;
    bool m_quiet = false;  // a selection made by showPlanInTable: not announced
    std::shared_ptr<std::vector<SolverRun>> m_results;
};

}  // namespace ckpt::ui
