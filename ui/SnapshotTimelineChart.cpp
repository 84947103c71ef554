#include "SnapshotTimelineChart.h"

#include "ChartReset.h"

#include <QChart>
#include <QLineSeries>
#include <QValueAxis>

#include <algorithm>

namespace ckpt::ui {

SnapshotTimelineChart::SnapshotTimelineChart(QWidget* parent) : QChartView(new QChart, parent)
{
    setObjectName(QStringLiteral("snapshotTimelineChart"));
    setRenderHint(QPainter::Antialiasing);
    chart()->setAnimationOptions(QChart::NoAnimation);
    chart()->legend()->hide();
    setMinimumSize(560, 320);
}

void SnapshotTimelineChart::setTrace(const ProfileTrace& trace)
{
    QChart* c = chart();
    resetChart(c);
    m_series = new QLineSeries;
    const bool timed = trace.timelineAxis == TimelineAxis::TimeUs;
    const std::int64_t x0 = trace.timeline.empty() ? 0 : trace.timeline.front().x;
    constexpr double mib = 1024.0 * 1024.0;
    double maxY = 0, maxX = 0;
    for (std::size_t i = 0; i < trace.timeline.size(); ++i) {
        const TimelineSample& s = trace.timeline[i];
        const double x = timed ? double(s.x - x0) / 1000.0 : double(s.x);
        const double y = double(s.allocatedBytes) / mib;
        // Allocated bytes hold until the next event: draw steps, not slopes.
        if (i > 0)
            m_series->append(x, m_series->at(m_series->count() - 1).y());
        m_series->append(x, y);
        maxY = std::max(maxY, y);
        maxX = std::max(maxX, x);
    }
    c->addSeries(m_series);
    auto* xAxis = new QValueAxis;
    xAxis->setTitleText(timed ? tr("time since the first event (ms)") : tr("event"));
    xAxis->setRange(0, std::max(maxX, 1e-3));
    auto* yAxis = new QValueAxis;
    yAxis->setTitleText(tr("requested (MiB)"));
    yAxis->setRange(0, std::max(maxY * 1.05, 1e-3));
    c->addAxis(xAxis, Qt::AlignBottom);
    c->addAxis(yAxis, Qt::AlignLeft);
    m_series->attachAxis(xAxis);
    m_series->attachAxis(yAxis);
    c->setTitle(tr("%1 — CUDA device %2, requested bytes over the run")
                    .arg(QString::fromStdString(trace.model))
                    .arg(trace.snapshotDevice));
}

}  // namespace ckpt::ui
