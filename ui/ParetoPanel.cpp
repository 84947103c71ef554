#include "ParetoPanel.h"

#include "BackgroundTask.h"
#include "ByteAxis.h"
#include "ChartReset.h"
#include "Palette.h"
#include "solvers/Solver.h"
#include "theory/PlanEvaluation.h"
#include "util/Units.h"

#include <QChart>
#include <QChartView>
#include <QHBoxLayout>
#include <QLabel>
#include <QLegendMarker>
#include <QLineSeries>
#include <QMap>
#include <QProgressBar>
#include <QPushButton>
#include <QScatterSeries>
#include <QToolTip>
#include <QValueAxis>
#include <QVBoxLayout>

#include <algorithm>
#include <limits>

namespace ckpt::ui {

namespace {

QString baseSolver(const std::string& rowSolver)
{
    return QString::fromStdString(rowSolver.substr(0, rowSolver.find(" (C=")));
}

}  // namespace

ParetoPanel::ParetoPanel(QWidget* parent)
    : QWidget(parent), m_task(new BackgroundTask(this)), m_view(new QChartView(new QChart, this)),
      m_compute(new QPushButton(tr("Compute sweep"), this)), m_cancel(new QPushButton(tr("Cancel"), this)),
      m_progress(new QProgressBar(this)), m_status(new QLabel(this))
{
    setObjectName(QStringLiteral("paretoPanel"));
    m_settings.solvers = {"checkpoint-all", "chen-sqrtn", "chen-greedy", "feng-acg", "checkmate-milp"};
    m_settings.points = 6;
    m_settings.timeLimit = 20;
    m_view->setRenderHint(QPainter::Antialiasing);
    m_view->chart()->setAnimationOptions(QChart::NoAnimation);
    m_view->chart()->legend()->setAlignment(Qt::AlignBottom);
    m_status->setWordWrap(true);
    m_progress->setRange(0, 1000);
    m_progress->setMaximumWidth(200);
    m_progress->hide();
    m_cancel->hide();
    auto* tools = new QHBoxLayout;
    tools->addWidget(m_compute);
    tools->addWidget(m_progress);
    tools->addWidget(m_cancel);
    tools->addWidget(m_status, 1);
    auto* column = new QVBoxLayout(this);
    column->addLayout(tools);
    column->addWidget(m_view, 1);
    connect(m_compute, &QPushButton::clicked, this, &ParetoPanel::compute);
    connect(m_cancel, &QPushButton::clicked, this, &ParetoPanel::cancel);
    connect(m_task, &BackgroundTask::progressChanged, this, [this](double f) { m_progress->setValue(int(f * 1000)); });
    connect(m_task, &BackgroundTask::finished, this, &ParetoPanel::onFinished);
    setGraph(nullptr);
}

void ParetoPanel::setGraph(std::shared_ptr<const Graph> graph)
{
    m_task->cancel();
    m_graph = std::move(graph);
    m_result.reset();
    m_compute->setEnabled(m_graph != nullptr);
    m_status->setText(m_graph ? tr("Budget vs compute overhead of each solver (Checkmate Fig. 4).") : QString());
    showCurves();
}

void ParetoPanel::compute()
{
    if (!m_graph)
        return;
    auto pending = std::make_shared<BudgetSweepResult>();
    m_pending = pending;
    const BudgetSweepSettings settings = m_settings;
    const std::shared_ptr<const Graph> graph = m_graph;
    m_progress->setValue(0);
    m_progress->show();
    m_cancel->show();
    m_compute->setEnabled(false);
    m_status->setText(tr("Computing…"));
    // One solver at a time, so that progress moves and cancel is seen between them too.
    m_task->start([pending, settings, graph](const std::atomic<bool>& cancel, const BackgroundTask::Progress& progress) {
        try {
            for (std::size_t i = 0; i < settings.solvers.size() && !cancel.load(); ++i) {
                BudgetSweepSettings one = settings;
                one.solvers = {settings.solvers[i]};
                one.cancel = &cancel;
                BudgetSweepResult part = budgetSweep(*graph, one);
                std::vector<BudgetSweepRow> rows = std::move(pending->rows);
                rows.insert(rows.end(), part.rows.begin(), part.rows.end());
                *pending = std::move(part);
                pending->rows = std::move(rows);
                progress(double(i + 1) / double(settings.solvers.size()));
            }
        } catch (const SolverCancelled&) {
        }
    });
}

void ParetoPanel::cancel()
{
    m_task->cancel();
}

void ParetoPanel::waitForFinished()
{
    m_task->waitForFinished();
}

void ParetoPanel::onFinished(bool cancelled)
{
    m_progress->hide();
    m_cancel->hide();
    m_compute->setEnabled(m_graph != nullptr);
    if (cancelled) {
        m_status->setText(tr("Sweep cancelled."));
        return;
    }
    if (!m_task->error().isEmpty()) {
        m_status->setText(tr("Sweep failed: %1").arg(m_task->error()));
        m_pending.reset();
        m_result.reset();
        showCurves();
        return;
    }
    m_result = std::move(*m_pending);
    m_pending.reset();
    QStringList failures;
    for (const BudgetSweepRow& row : m_result->rows)
        if (!row.hasPoint())
            failures << QStringLiteral("%1: %2").arg(QString::fromStdString(row.solver), QString::fromStdString(row.error));
    m_status->setText(tr("%1 points · overhead: plans (forward + re-forwarded segments) / forward, checkmate-milp its stage "
                             "replay / checkpoint-all's%2 · click a point to make its plan current")
                          .arg(int(m_result->rows.size()) - failures.size())
                          .arg(failures.isEmpty() ? QString() : tr(" · %1 without a point (hover here)").arg(failures.size())));
    m_status->setToolTip(failures.join(QLatin1Char('\n')));
    showCurves();
}

void ParetoPanel::showCurves()
{
    m_curves.clear();
    QChart* c = m_view->chart();
    resetChart(c);
    c->setTitle(m_result                      ? tr("Memory budget vs compute overhead")
               : !m_task->error().isEmpty() ? tr("No budget sweep: see the message above")
                                            : tr("Budget sweep: press Compute sweep"));
    if (!m_result)
        return;
    QMap<QString, std::vector<int>> bySolver;
    QStringList order;
    for (std::size_t i = 0; i < m_result->rows.size(); ++i) {
        const BudgetSweepRow& row = m_result->rows[i];
        const QString solver = baseSolver(row.solver);
        if (!bySolver.contains(solver))
            order << solver;
        if (row.hasPoint())
            bySolver[solver].push_back(int(i));
        else
            bySolver[solver];
    }
    double minPeak = std::numeric_limits<double>::max(), maxPeak = 1, minOverhead = 1, maxOverhead = 1;
    for (const BudgetSweepRow& row : m_result->rows)
        if (row.hasPoint()) {
            minPeak = std::min(minPeak, double(row.peakBytes));
            maxPeak = std::max(maxPeak, double(row.peakBytes));
            minOverhead = std::min(minOverhead, row.overhead);
            maxOverhead = std::max(maxOverhead, row.overhead);
        }
    minPeak = std::min(minPeak, maxPeak);
    const double margin = std::max((maxPeak - minPeak) * 0.06, maxPeak * 0.02);
    const ByteAxis peakAxis = byteAxis(std::int64_t(std::max(0.0, minPeak - margin)), std::int64_t(maxPeak + margin));
    const double unit = peakAxis.unitBytes;
    auto* x = new QValueAxis(c);
    x->setTitleText(tr("peak memory (%1)").arg(peakAxis.unitName));
    peakAxis.ticks.applyTo(x);
    auto* y = new QValueAxis(c);
    y->setTitleText(tr("overhead (×)"));
    roundTicks(minOverhead * 0.98, maxOverhead * 1.02 + 0.02).applyTo(y);
    c->addAxis(x, Qt::AlignBottom);
    c->addAxis(y, Qt::AlignLeft);
    for (const QString& solver : order) {
        std::vector<int> rows = bySolver.value(solver);
        std::stable_sort(rows.begin(), rows.end(), [this](int a, int b) {
            return m_result->rows[std::size_t(a)].peakBytes < m_result->rows[std::size_t(b)].peakBytes;
        });
        const QColor colour = palette::seriesColour(int(m_curves.size()));
        auto* line = new QLineSeries(c);
        auto* points = new QScatterSeries(c);
        points->setName(rows.empty() ? tr("%1 (no point)").arg(solver) : solver);
        points->setColor(colour);
        points->setBorderColor(colour.darker());
        points->setMarkerSize(9);
        line->setPen(QPen(colour, 1.5));
        // The line follows the solver's Pareto front: the points no cheaper-in-memory point beats.
        double bestOverhead = std::numeric_limits<double>::max();
        for (int r : rows) {
            const BudgetSweepRow& row = m_result->rows[std::size_t(r)];
            points->append(double(row.peakBytes) / unit, row.overhead);
            if (row.overhead < bestOverhead) {
                bestOverhead = row.overhead;
                line->append(double(row.peakBytes) / unit, row.overhead);
            }
        }
        c->addSeries(line);
        c->addSeries(points);
        for (QAbstractSeries* s : {static_cast<QAbstractSeries*>(line), static_cast<QAbstractSeries*>(points)}) {
            s->attachAxis(x);
            s->attachAxis(y);
        }
        for (QLegendMarker* m : c->legend()->markers(line))
            m->setVisible(false);
        const int curve = int(m_curves.size());
        connect(points, &QScatterSeries::hovered, this, [this, curve](const QPointF& p, bool state) {
            if (!state)
                return QToolTip::hideText();
            const Curve& cv = m_curves.at(std::size_t(curve));
            const int i = int(cv.points->points().indexOf(p));
            if (i >= 0)
                QToolTip::showText(QCursor::pos(), describeRow(cv.rows[std::size_t(i)]), m_view);
        });
        connect(points, &QScatterSeries::clicked, this, [this, curve](const QPointF& p) {
            choosePoint(curve, int(m_curves.at(std::size_t(curve)).points->points().indexOf(p)));
        });
        m_curves.push_back({solver, points, rows});
    }
}

QString ParetoPanel::describeRow(int r) const
{
    const BudgetSweepRow& row = m_result->rows.at(std::size_t(r));
    QString text = tr("<b>%1</b><br>peak %2, overhead %3× (%4), %5")
                       .arg(QString::fromStdString(row.solver).toHtmlEscaped(),
                            QString::fromStdString(formatBytes(row.peakBytes)))
                       .arg(row.overhead, 0, 'f', 3)
                       .arg(QString::fromStdString(row.costModel).toHtmlEscaped(),
                            QString::fromStdString(row.status).toHtmlEscaped());
    if (row.budget)
        text += tr("<br>budget %1").arg(QString::fromStdString(formatBytes(*row.budget)));
    if (row.checkpoints.empty() && row.budget)
        text += tr("<br>a general schedule (recomputes freely), not a checkpoint plan");
    else {
        QStringList ids;
        for (const std::string& id : row.checkpoints)
            ids << QString::fromStdString(id).toHtmlEscaped();
        text += tr("<br>checkpoints (%1): %2").arg(ids.size()).arg(ids.isEmpty() ? tr("none") : ids.join(QStringLiteral(", ")));
    }
    return text;
}

std::optional<Plan> ParetoPanel::planOfRow(int r) const
{
    if (!m_result || !m_graph || r < 0 || r >= int(m_result->rows.size()))
        return std::nullopt;
    const BudgetSweepRow& row = m_result->rows[std::size_t(r)];
    if (!row.hasPoint() || row.budget)
        return std::nullopt;
    std::vector<VertexIndex> checkpoints;
    for (const std::string& id : row.checkpoints) {
        const auto v = m_graph->find(id);
        if (!v)
            return std::nullopt;  // a vertex of the derived forward part the graph does not have
        checkpoints.push_back(*v);
    }
    std::sort(checkpoints.begin(), checkpoints.end());
    Plan plan;
    plan.solver = row.solver;
    plan.evaluation = evaluate(*m_graph, checkpoints);
    return plan;
}

void ParetoPanel::choosePoint(int curve, int index)
{
    if (curve < 0 || curve >= int(m_curves.size()) || index < 0 || index >= int(m_curves[std::size_t(curve)].rows.size()))
        return;
    const int row = m_curves[std::size_t(curve)].rows[std::size_t(index)];
    if (const auto plan = planOfRow(row))
        Q_EMIT planChosen(*plan);
    else
        m_status->setText(tr("%1 has no checkpoint plan on this graph to show.").arg(QString::fromStdString(m_result->rows[std::size_t(row)].solver)));
}

}  // namespace ckpt::ui
