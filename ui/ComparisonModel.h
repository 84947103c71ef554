#pragma once
// The solvers' plans side by side: one row per solver run with the core's comparison figures
// (objective and its two terms, checkpoint count, IS plan or not, peaks under both memory models,
// recomputed bytes and their share of the forward's compute), time and verdict. A plan that loses
// to a reference solver (`exhaustive`, `optimal`) is marked; the recommended plan (the lowest
// pytorch-model peak, then the least recompute: core's recommendedOver) is named; a refusal
// shows the solver's message.
#include "graph/Graph.h"
#include "solvers/Comparison.h"
#include "solvers/Plan.h"

#include <QAbstractTableModel>

#include <optional>
#include <string>
#include <vector>

namespace ckpt::ui {

struct SolverRun {
    std::string solver;
    std::optional<Plan> plan;  // absent: the solver refused or failed
    PlanCosts costs;           // planCosts(graph, *plan) when there is a plan
    std::string error;
};

class ComparisonModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        Solver,
        Objective,
        CheckpointBytes,
        MaxSegment,
        Checkpoints,
        ISPlan,
        PeakChen,
        PeakPyTorch,
        Recomputed,
        TimeMs,
        Verdict,
        ColumnCount
    };
    static constexpr int RawValueRole = Qt::UserRole + 1;  // numbers, for sorting and tests
    // The solvers whose plans are optimal by construction; others are judged against them.
    static bool isReference(const std::string& solver);

    explicit ComparisonModel(QObject* parent = nullptr);
    void setRuns(std::vector<SolverRun> runs);
    const std::vector<SolverRun>& runs() const { return m_runs; }
    const SolverRun& run(int row) const { return m_runs.at(static_cast<std::size_t>(row)); }
    // The best objective among reference solvers, if any ran.
    std::optional<std::int64_t> referenceObjective() const;
    bool losesToReference(int row) const;
    // The row of the recommended plan, -1 when no solver gave one.
    int recommendedRow() const { return m_recommended; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QString verdict(int row) const;
    std::vector<SolverRun> m_runs;
    std::optional<std::int64_t> m_reference;
    std::string m_referenceSolver;
    int m_recommended = -1;
};

}  // namespace ckpt::ui
