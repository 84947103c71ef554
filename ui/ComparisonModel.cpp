#include "ComparisonModel.h"

#include "util/Units.h"

#include <QColor>

namespace ckpt::ui {

namespace {
QString bytesText(std::int64_t b) { return QString::fromStdString(formatBytes(b)); }
}  // namespace

bool ComparisonModel::isReference(const std::string& solver)
{
    return solver == "exhaustive" || solver == "optimal";
}

ComparisonModel::ComparisonModel(QObject* parent) : QAbstractTableModel(parent) {}

void ComparisonModel::setRuns(std::vector<SolverRun> runs)
{
    beginResetModel();
    m_runs = std::move(runs);
    m_reference.reset();
    m_referenceSolver.clear();
    m_recommended = -1;
    for (int i = 0; i < static_cast<int>(m_runs.size()); ++i)
        if (m_runs[i].plan && (m_recommended < 0 || recommendedOver(m_runs[i].costs, m_runs[m_recommended].costs)))
            m_recommended = i;
    for (const SolverRun& r : m_runs)
        if (r.plan && isReference(r.solver) && (!m_reference || r.plan->objective() < *m_reference)) {
            m_reference = r.plan->objective();
            m_referenceSolver = r.solver;
        }
    endResetModel();
}

std::optional<std::int64_t> ComparisonModel::referenceObjective() const
{
    return m_reference;
}

bool ComparisonModel::losesToReference(int row) const
{
    const SolverRun& r = run(row);
    return r.plan && m_reference && r.plan->objective() > *m_reference;
}

int ComparisonModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_runs.size());
}

int ComparisonModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QString ComparisonModel::verdict(int row) const
{
    const SolverRun& r = run(row);
    if (!r.plan)
        return tr("refused: %1").arg(QString::fromStdString(r.error));
    QStringList parts;
    if (row == m_recommended)
        parts << (r.costs.optimizerStepBytes && *r.costs.optimizerStepBytes >= r.costs.peakPyTorch
                      ? tr("★ recommended: least recompute under optimizer.step()'s %1")
                            .arg(bytesText(*r.costs.optimizerStepBytes))
                      : tr("★ recommended (lowest pytorch peak)"));
    if (m_reference)
        parts << (losesToReference(row) ? tr("✗ loses to %1 by %2")
                                              .arg(QString::fromStdString(m_referenceSolver),
                                                   bytesText(r.plan->objective() - *m_reference))
                  : isReference(r.solver) ? tr("reference optimum")
                                          : tr("✓ optimal"));
    return parts.join(QStringLiteral(" · "));
}

QVariant ComparisonModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount)
        return {};
    const SolverRun& r = run(index.row());
    const Plan* p = r.plan ? &*r.plan : nullptr;
    if (role == Qt::BackgroundRole) {
        if (losesToReference(index.row()))
            return QColor(0xfd, 0xe0, 0xdc);
        if (!p)
            return QColor(0xee, 0xee, 0xee);
        return {};
    }
    if (role == Qt::ToolTipRole) {
        QStringList lines;
        if (index.column() == Verdict && p && !verdict(index.row()).isEmpty())
            lines << verdict(index.row());  // a narrow column cuts it
        if (!r.error.empty())
            lines << QString::fromStdString(r.error);
        if (p)
            for (const std::string& note : p->notes)
                lines << QString::fromStdString(note);
        return lines.isEmpty() ? QVariant() : QVariant(lines.join(QLatin1Char('\n')));
    }
    if (role == Qt::TextAlignmentRole)
        return index.column() == Solver || index.column() == Verdict ? QVariant()
                                                                     : QVariant(int(Qt::AlignRight | Qt::AlignVCenter));
    if (role != Qt::DisplayRole && role != RawValueRole)
        return {};
    const bool raw = role == RawValueRole;
    if (index.column() == Solver)
        return QString::fromStdString(r.solver);
    if (index.column() == Verdict)
        return verdict(index.row());
    if (!p)
        return raw ? QVariant() : QVariant(QStringLiteral("—"));
    const PlanEvaluation& e = p->evaluation;
    switch (index.column()) {
    case Objective: return raw ? QVariant(qint64(e.objective)) : QVariant(bytesText(e.objective));
    case CheckpointBytes: return raw ? QVariant(qint64(e.checkpointBytes)) : QVariant(bytesText(e.checkpointBytes));
    case MaxSegment: return raw ? QVariant(qint64(e.maxSegmentCost)) : QVariant(bytesText(e.maxSegmentCost));
    case Checkpoints: return int(e.checkpoints.size());
    case ISPlan: return raw ? QVariant(e.isISPlan) : QVariant(e.isISPlan ? tr("yes") : tr("no"));
    case PeakChen: return raw ? QVariant(qint64(r.costs.peakChen)) : QVariant(bytesText(r.costs.peakChen));
    case PeakPyTorch: return raw ? QVariant(qint64(r.costs.peakPyTorch)) : QVariant(bytesText(r.costs.peakPyTorch));
    case Recomputed:
        return raw ? QVariant(qint64(r.costs.recomputedBytes))
                   : QVariant(tr("%1 (+%2 % fwd)")
                                  .arg(bytesText(r.costs.recomputedBytes))
                                  .arg(100 * r.costs.recomputeOverhead(), 0, 'f', 0));
    case TimeMs: return raw ? QVariant(p->wallTimeMs) : QVariant(QString::number(p->wallTimeMs, 'f', 2));
    default: return {};
    }
}

QVariant ComparisonModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Solver: return tr("Solver");
    case Objective: return tr("Objective");
    case CheckpointBytes: return tr("Checkpoints Σ");
    case MaxSegment: return tr("Max segment");
    case Checkpoints: return tr("# ckpt");
    case ISPlan: return tr("IS plan");
    case PeakChen: return tr("Peak (chen)");
    case PeakPyTorch: return tr("Peak (pytorch)");
    case Recomputed: return tr("Recomputed");
    case TimeMs: return tr("Time (ms)");
    case Verdict: return tr("Verdict");
    default: return {};
    }
}

}  // namespace ckpt::ui
