#include "SweepPanel.h"

#include "Palette.h"
#include "util/Units.h"

#include <QLabel>
#include <QLocale>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QSlider>
#include <QVBoxLayout>

#include <algorithm>
#include <functional>

namespace ckpt::ui {

namespace {
QString bytes(std::int64_t b) { return QString::fromStdString(formatBytes(b)); }
}  // namespace

// Objective against C: a polyline over the entries, the winner as a star-like dot, the current C as
// a vertical line. Clicking picks the nearest C.
class SweepPlot : public QWidget {
public:
    explicit SweepPlot(QWidget* parent) : QWidget(parent)
    {
        setMinimumHeight(110);
        setObjectName(QStringLiteral("sweepPlot"));
    }
    void setSweep(const Sweep* sweep)
    {
        m_sweep = sweep;
        if (sweep && !sweep->entries.empty()) {
            const auto [lo, hi] = std::minmax_element(sweep->entries.begin(), sweep->entries.end(),
                                                      [](auto& a, auto& b) { return a.objective < b.objective; });
            m_minObjective = lo->objective;
            m_maxObjective = hi->objective;
        }
        update();
    }
    void setCurrent(int index)
    {
        m_current = index;
        update();
    }
    std::function<void(int)> picked;

protected:
    QRectF plotArea() const { return QRectF(rect()).adjusted(64, 10, -12, -26); }

    QPointF at(std::size_t i) const
    {
        const auto& e = m_sweep->entries;
        const QRectF area = plotArea();
        const double x = e.size() < 2 ? 0.5 : double(i) / double(e.size() - 1);
        const double span = double(m_maxObjective - m_minObjective);
        const double y = span <= 0 ? 0.5 : double(e[i].objective - m_minObjective) / span;
        return {area.left() + x * area.width(), area.bottom() - y * area.height()};
    }

    void paintEvent(QPaintEvent*) override
    {
        QPainter p(this);
        p.fillRect(rect(), Qt::white);
        p.setRenderHint(QPainter::Antialiasing);
        const QRectF area = plotArea();
        p.setPen(QPen(QColor(0x99, 0x99, 0x99), 1));
        p.drawRect(area);
        if (!m_sweep || m_sweep->entries.empty()) {
            p.setPen(palette::text());
            p.drawText(rect(), Qt::AlignCenter, tr("No sweep: run feng-lcg or feng-acg and select its row."));
            return;
        }
        const auto& e = m_sweep->entries;
        p.setPen(palette::text());
        p.drawText(QRectF(0, area.top() - 6, area.left() - 4, 14), Qt::AlignRight, bytes(m_maxObjective));
        p.drawText(QRectF(0, area.bottom() - 8, area.left() - 4, 14), Qt::AlignRight, bytes(m_minObjective));
        // The x axis is the step, evenly spaced whatever the C values: its ends say both.
        p.drawText(QRectF(area.left(), area.bottom() + 4, area.width(), 16), Qt::AlignLeft,
                   tr("step 1: C = %1").arg(bytes(e.front().c)));
        p.drawText(QRectF(area.left(), area.bottom() + 4, area.width(), 16), Qt::AlignRight,
                   tr("step %1: C = %2").arg(e.size()).arg(bytes(e.back().c)));
        p.drawText(QRectF(area.left(), area.bottom() + 4, area.width(), 16), Qt::AlignHCenter, tr("objective by C step"));
        if (m_current >= 0 && m_current < int(e.size())) {
            p.setPen(QPen(palette::highlight(), 1.5, Qt::DashLine));
            const double x = at(std::size_t(m_current)).x();
            p.drawLine(QPointF(x, area.top()), QPointF(x, area.bottom()));
        }
        QPainterPath line;
        for (std::size_t i = 0; i < e.size(); ++i)
            i == 0 ? line.moveTo(at(i)) : line.lineTo(at(i));
        p.setPen(QPen(palette::edge(), 1.5));
        p.drawPath(line);
        p.setBrush(palette::edge());
        if (e.size() <= 200)
            for (std::size_t i = 0; i < e.size(); ++i)
                p.drawEllipse(at(i), 2, 2);
        if (m_sweep->winner >= 0) {
            p.setBrush(palette::checkpointFill());
            p.setPen(QPen(palette::checkpointBorder(), 1.5));
            p.drawEllipse(at(std::size_t(m_sweep->winner)), 6, 6);
        }
    }

    void mousePressEvent(QMouseEvent* event) override
    {
        if (!m_sweep || m_sweep->entries.empty() || !picked)
            return;
        std::size_t best = 0;
        for (std::size_t i = 1; i < m_sweep->entries.size(); ++i)
            if (std::abs(at(i).x() - event->position().x()) < std::abs(at(best).x() - event->position().x()))
                best = i;
        picked(int(best));
    }

private:
    const Sweep* m_sweep = nullptr;
    std::int64_t m_minObjective = 0, m_maxObjective = 0;
    int m_current = -1;
};

SweepPanel::SweepPanel(QWidget* parent)
    : QWidget(parent), m_slider(new QSlider(Qt::Horizontal, this)), m_label(new QLabel(this)), m_plot(new SweepPlot(this))
{
    setObjectName(QStringLiteral("sweepPanel"));
    m_slider->setObjectName(QStringLiteral("sweepSlider"));
    m_slider->setTickPosition(QSlider::TicksBelow);
    m_slider->setPageStep(1);
    m_label->setTextFormat(Qt::RichText);
    auto* column = new QVBoxLayout(this);
    column->addWidget(m_label);
    column->addWidget(m_slider);
    column->addWidget(m_plot, 1);
    connect(m_slider, &QSlider::valueChanged, this, &SweepPanel::onSliderMoved);
    m_plot->picked = [this](int i) { setCurrentEntry(i); };
    setSweep(std::nullopt);
}

void SweepPanel::setSweep(std::optional<Sweep> sweep, const QString& solver)
{
    m_sweep = std::move(sweep);
    const bool any = m_sweep && !m_sweep->entries.empty();
    m_plot->setSweep(any ? &*m_sweep : nullptr);
    const QSignalBlocker blocker(m_slider);
    m_slider->setEnabled(any);
    m_slider->setRange(0, any ? int(m_sweep->entries.size()) - 1 : 0);
    if (!any) {
        m_label->setText(tr("The selected plan has no C sweep (only feng-lcg and feng-acg make one)."));
        m_plot->setCurrent(-1);
        return;
    }
    m_label->setProperty("solver", solver);
    const int start = m_sweep->winner >= 0 ? m_sweep->winner : 0;
    m_slider->setValue(start);
    onSliderMoved(start);
}

int SweepPanel::currentEntry() const
{
    return m_sweep && !m_sweep->entries.empty() ? m_slider->value() : -1;
}

void SweepPanel::setCurrentEntry(int index)
{
    m_slider->setValue(index);
}

QString SweepPanel::summary() const
{
    const int i = currentEntry();
    if (i < 0)
        return QString();
    const auto& entries = m_sweep->entries;
    const SweepEntry& e = entries[std::size_t(i)];
    // Exact bytes when the rounded value would read like a neighbouring step's.
    auto readsLike = [&](int j) { return j >= 0 && j < int(entries.size()) && bytes(entries[std::size_t(j)].c) == bytes(e.c); };
    const QString c = readsLike(i - 1) || readsLike(i + 1)
                          ? tr("%1 (%2 B)").arg(bytes(e.c), QLocale::c().toString(qlonglong(e.c)))
                          : bytes(e.c);
    return tr("C = <b>%1</b> (step %2 of %3) · objective <b>%4</b> · %5 %6%7")
        .arg(c)
        .arg(i + 1)
        .arg(m_sweep->entries.size())
        .arg(bytes(e.objective))
        .arg(e.checkpoints.size())
        .arg(e.checkpoints.size() == 1 ? tr("checkpoint") : tr("checkpoints"))
        .arg(i == m_sweep->winner ? tr(" · <span style='color:#7a4a00'>★ winner</span>") : QString());
}

void SweepPanel::onSliderMoved(int index)
{
    if (!m_sweep || index < 0 || index >= int(m_sweep->entries.size()))
        return;
    m_plot->setCurrent(index);
    m_label->setText(summary());
    Q_EMIT entryChanged(index);
}

}  // namespace ckpt::ui
