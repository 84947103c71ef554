#pragma once
// Budget vs compute overhead (issue 8 §6, Checkmate Fig. 4): the core's budget sweep, computed in
// the background with progress and cancel, one curve per solver (its points, a line along its
// Pareto front). Hovering a point shows its plan;
// clicking a checkpoint plan makes it current (checkmate-milp's general schedules have no plan).
#include "graph/Graph.h"
#include "solvers/BudgetSweep.h"
#include "solvers/Plan.h"

#include <QStringList>
#include <QWidget>

#include <memory>
#include <optional>
#include <vector>

class QChartView;
class QLabel;
class QProgressBar;
class QPushButton;
class QScatterSeries;

namespace ckpt::ui {

class BackgroundTask;

class ParetoPanel : public QWidget {
    Q_OBJECT
public:
    explicit ParetoPanel(QWidget* parent = nullptr);

    void setGraph(std::shared_ptr<const Graph> graph);
    const BudgetSweepSettings& settings() const { return m_settings; }
    void setSettings(const BudgetSweepSettings& settings) { m_settings = settings; }
    void compute();
    void cancel();
    void waitForFinished();

    const std::optional<BudgetSweepResult>& result() const { return m_result; }
    // One curve per solver: its name (a sweep's "(C=…)" steps belong to their solver), its
    // points (peak MiB, overhead) in peak order and the result row of each point.
    struct Curve {
        QString solver;
        QScatterSeries* points = nullptr;
        std::vector<int> rows;
    };
    const std::vector<Curve>& curves() const { return m_curves; }
    // The plan of a result row on the current graph; nullopt for rows without one.
    std::optional<Plan> planOfRow(int row) const;
    // As if point i of curve c were clicked.
    void choosePoint(int curve, int index);

Q_SIGNALS:
    void planChosen(const ckpt::Plan& plan);

private:
    void onFinished(bool cancelled);
    void showCurves();
    QString describeRow(int row) const;

    std::shared_ptr<const Graph> m_graph;
    BudgetSweepSettings m_settings;
    std::optional<BudgetSweepResult> m_result;
    std::shared_ptr<BudgetSweepResult> m_pending;
    std::vector<Curve> m_curves;
    BackgroundTask* m_task;
    QChartView* m_view;
    QPushButton* m_compute;
    QPushButton* m_cancel;
    QProgressBar* m_progress;
    QLabel* m_status;
};

}  // namespace ckpt::ui
