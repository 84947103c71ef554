#include "MemoryChart.h"

#include "ByteAxis.h"
#include "ChartReset.h"
#include "Palette.h"
#include "util/Units.h"

#include <QAreaSeries>
#include <QChart>
#include <QLegendMarker>
#include <QLineSeries>
#include <QScatterSeries>
#include <QToolTip>
#include <QValueAxis>

#include <algorithm>

namespace ckpt::ui {

namespace {

QString csvField(QString s)
{
    if (s.contains(QLatin1Char(',')) || s.contains(QLatin1Char('"')) || s.contains(QLatin1Char('\n')))
        s = QLatin1Char('"') + s.replace(QLatin1Char('"'), QStringLiteral("\"\"")) + QLatin1Char('"');
    return s;
}

}  // namespace

MemoryChart::MemoryChart(QWidget* parent) : QChartView(new QChart, parent)
{
    setObjectName(QStringLiteral("memoryChart"));
    setRenderHint(QPainter::Antialiasing);
    chart()->setAnimationOptions(QChart::NoAnimation);
    chart()->legend()->setAlignment(Qt::AlignBottom);
    chart()->legend()->setShowToolTips(true);  // a label cut for lack of room shows whole on hover
    setMinimumHeight(280);
    setTimelines({});
}

QString MemoryTimeline::passName(std::size_t phase) const
{
    if (endsWithOptimizerStep && phase + 1 == peakBytes.size())
        return QStringLiteral("optimizer.step()");
    return phase < backward.size() && backward[phase] ? QStringLiteral("backward") : QStringLiteral("forward");
}

void MemoryChart::setTimelines(std::vector<MemoryTimeline> timelines)
{
    m_timelines = std::move(timelines);
    m_series.clear();
    QChart* c = chart();
    resetChart(c);

    std::int64_t maxBytes = 1;
    std::size_t phases = 1;
    for (const MemoryTimeline& t : m_timelines) {
        for (std::int64_t b : t.peakBytes)
            maxBytes = std::max(maxBytes, b);
        phases = std::max(phases, t.peakBytes.size());
    }
    // A little headroom above the highest peak, then round ticks in the data's unit.
    const ByteAxis bytesAxis = byteAxis(0, maxBytes + maxBytes / 30);
    m_unit = bytesAxis.unitBytes;
    m_unitName = bytesAxis.unitName;
    const double top = bytesAxis.ticks.high;

    auto* x = new QValueAxis(c);
    x->setTitleText(tr("training phase"));
    const RoundTicks phaseTicks = roundTicks(0, double(std::max<std::size_t>(phases, 2) - 1));
    x->setRange(0, double(std::max<std::size_t>(phases, 2) - 1));
    x->setTickType(QValueAxis::TicksDynamic);
    x->setTickAnchor(0);
    x->setTickInterval(std::max(1.0, phaseTicks.step));
    x->setLabelFormat(QStringLiteral("%d"));
    auto* y = new QValueAxis(c);
    y->setTitleText(tr("memory (%1)").arg(m_unitName));
    bytesAxis.ticks.applyTo(y);
    c->addAxis(x, Qt::AlignBottom);
    c->addAxis(y, Qt::AlignLeft);

    // Shade the backward phases (of the first timeline; all share the phase structure).
    if (!m_timelines.empty()) {
        const auto& backward = m_timelines.front().backward;
        bool first = true;
        for (std::size_t i = 0; i < backward.size();) {
            if (!backward[i]) {
                ++i;
                continue;
            }
            std::size_t j = i;
            while (j + 1 < backward.size() && backward[j + 1])
                ++j;
            auto* upper = new QLineSeries(c);
            upper->append(double(i) - 0.5, top);
            upper->append(double(j) + 0.5, top);
            auto* shade = new QAreaSeries(upper);
            shade->setName(tr("backward"));
            shade->setColor(QColor(0xee, 0xee, 0xf6));
            shade->setBorderColor(Qt::transparent);
            c->addSeries(shade);
            shade->attachAxis(x);
            shade->attachAxis(y);
            if (!first)  // one legend entry is enough
                for (QLegendMarker* m : c->legend()->markers(shade))
                    m->setVisible(false);
            first = false;
            i = j + 1;
        }
    }
    for (std::size_t t = 0; t < m_timelines.size(); ++t) {
        const MemoryTimeline& timeline = m_timelines[t];
        const QColor colour = palette::seriesColour(int(t));
        auto* line = new QLineSeries(c);
        line->setPen(QPen(colour, 2, timeline.measured ? Qt::DashLine : Qt::SolidLine));
        line->setPointsVisible(timeline.peakBytes.size() <= 80);
        // More phases than the chart has pixels would draw a zigzag band: plot the highest phase of each
        // run of phases instead (the peak envelope; every point is a real phase, so hovering names it).
        const std::vector<std::int64_t>& bytes = timeline.peakBytes;
        const std::size_t run = bytes.size() > maxPlottedPhases ? (bytes.size() + maxPlottedPhases - 1) / maxPlottedPhases : 1;
        std::size_t peak = 0;
        for (std::size_t from = 0; from < bytes.size(); from += run) {
            const auto to = bytes.begin() + std::ptrdiff_t(std::min(bytes.size(), from + run));
            const auto high = std::size_t(std::max_element(bytes.begin() + std::ptrdiff_t(from), to) - bytes.begin());
            line->append(double(high), double(bytes[high]) / m_unit);
            if (bytes[high] > bytes[peak])
                peak = high;
        }
        c->addSeries(line);
        line->attachAxis(x);
        line->attachAxis(y);
        connect(line, &QLineSeries::hovered, this,
                [this, t](const QPointF& p, bool state) { showPointInfo(int(t), p, state); });
        m_series.push_back(line);
        // One legend entry per timeline, its peak included (the marker's own entry is hidden), so
        // that several plans' names fit without being cut.
        line->setName(timeline.peakBytes.empty()
                          ? timeline.label
                          : tr("%1 (peak %2)").arg(timeline.label, QString::fromStdString(formatBytes(timeline.peakBytes[peak]))));
        if (!timeline.peakBytes.empty()) {
            auto* mark = new QScatterSeries(c);
            mark->setName(tr("peak %1").arg(QString::fromStdString(formatBytes(timeline.peakBytes[peak]))));
            mark->setColor(colour);
            mark->setBorderColor(Qt::black);
            mark->setMarkerSize(11);
            mark->append(double(peak), double(timeline.peakBytes[peak]) / m_unit);
            c->addSeries(mark);
            mark->attachAxis(x);
            mark->attachAxis(y);
            for (QLegendMarker* m : c->legend()->markers(mark))
                m->setVisible(false);
        }
    }
    const bool measured = std::any_of(m_timelines.begin(), m_timelines.end(), [](const MemoryTimeline& t) { return t.measured; });
    QString title = m_timelines.empty() ? tr("Memory: select a plan (and a simulator) to see its timeline")
                    : measured          ? tr("Predicted and measured memory per training phase")
                                        : tr("Predicted memory per training phase");
    QStringList counts;
    for (const MemoryTimeline& t : m_timelines)
        if (!t.counts.isEmpty() && !counts.contains(t.counts))
            counts << t.counts;
    if (!counts.isEmpty())
        title += QStringLiteral("<br><small>") + counts.join(QStringLiteral("<br>")).toHtmlEscaped() + QStringLiteral("</small>");
    c->setTitle(title);
}

void MemoryChart::showPointInfo(int timeline, const QPointF& point, bool state)
{
    if (!state) {
        QToolTip::hideText();
        return;
    }
    const MemoryTimeline& t = m_timelines.at(std::size_t(timeline));
    const auto phase = std::size_t(std::clamp<long>(std::lround(point.x()), 0, long(t.peakBytes.size()) - 1));
    QString text = tr("<b>%1</b><br>phase %2 (%3)<br>peak %4, at end %5")
                       .arg(t.label.toHtmlEscaped())
                       .arg(phase)
                       .arg(t.passName(phase))
                       .arg(QString::fromStdString(formatBytes(t.peakBytes[phase])),
                            QString::fromStdString(formatBytes(phase < t.endBytes.size() ? t.endBytes[phase] : 0)));
    if (phase < t.liveAtPeak.size() && !t.liveAtPeak[phase].isEmpty())
        text += tr("<br>live at the peak: %1").arg(t.liveAtPeak[phase].join(QStringLiteral(", ")).toHtmlEscaped());
    QToolTip::showText(QCursor::pos(), text, this);
}

QByteArray MemoryChart::toCsv() const
{
    QString csv = QStringLiteral("timeline,phase,pass,end_bytes,peak_bytes,live_at_peak\n");
    for (const MemoryTimeline& t : m_timelines)
        for (std::size_t i = 0; i < t.peakBytes.size(); ++i)
            csv += QStringLiteral("%1,%2,%3,%4,%5,%6\n")
                       .arg(csvField(t.label))
                       .arg(i)
                       .arg(t.passName(i))
                       .arg(i < t.endBytes.size() ? t.endBytes[i] : 0)
                       .arg(t.peakBytes[i])
                       .arg(csvField(i < t.liveAtPeak.size() ? t.liveAtPeak[i].join(QLatin1Char(' ')) : QString()));
    return csv.toUtf8();
}

}  // namespace ckpt::ui
