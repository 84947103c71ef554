#pragma once
// The allocated bytes of a PyTorch memory snapshot over time (a trace's timeline, imported by
// File ▸ Open memory snapshot…): what a run without phase markers can show.
#include "io/TraceJson.h"

#include <QChartView>

class QLineSeries;

namespace ckpt::ui {

class SnapshotTimelineChart : public QChartView {
    Q_OBJECT
public:
    explicit SnapshotTimelineChart(QWidget* parent = nullptr);

    // x: milliseconds since the first event (or the event's ordinal); y: MiB.
    void setTrace(const ProfileTrace& trace);
    QLineSeries* series() const { return m_series; }

private:
    QLineSeries* m_series = nullptr;
};

}  // namespace ckpt::ui
