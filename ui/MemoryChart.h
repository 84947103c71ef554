#pragma once
// Predicted (and measured: a ckptx-torch profile, dashed) memory over the training-phase index, one
// line per plan: the peak within each phase, backward phases shaded, each line's peak marked;
// hovering a point shows the phase, its bytes and the tensors live at that peak. No animations.
#include <QChartView>
#include <QStringList>

#include <cstdint>
#include <vector>

class QLineSeries;

namespace ckpt::ui {

// What a memory simulator says about one plan, per training phase (plain data from the core).
struct MemoryTimeline {
    QString label;                        // e.g. "feng-acg · chen"
    std::vector<std::int64_t> endBytes;   // live bytes at the end of each phase
    std::vector<std::int64_t> peakBytes;  // peak within each phase
    std::vector<bool> backward;           // the phase belongs to the backward pass
    std::vector<QStringList> liveAtPeak;  // the tensors live at that peak
    bool measured = false;                // a profiled step, not a prediction
    QString counts;                       // what its bytes include, e.g. "chen counts activations only"
    // P35: the last phase is optimizer.step() after the backward (where the export measured it).
    bool endsWithOptimizerStep = false;
    QString passName(std::size_t phase) const;  // "forward", "backward" or "optimizer.step()"

};

class MemoryChart : public QChartView {
    Q_OBJECT
public:
    explicit MemoryChart(QWidget* parent = nullptr);

    void setTimelines(std::vector<MemoryTimeline> timelines);
    const std::vector<MemoryTimeline>& timelines() const { return m_timelines; }
    // Above this many phases a timeline is drawn as the highest phase of each run of phases.
    static constexpr std::size_t maxPlottedPhases = 400;
    // The peak-within-phase line of timeline i; its y values are bytes / unitBytes(), its x values
    // phase indices (every phase, or each run's highest above maxPlottedPhases).
    QLineSeries* peakSeries(int i) const { return m_series.at(std::size_t(i)); }
    double unitBytes() const { return m_unit; }
    QString unitName() const { return m_unitName; }
    // The timelines as CSV: label, phase, pass, end bytes, peak bytes, live tensors at the peak.
    QByteArray toCsv() const;

private:
    void showPointInfo(int timeline, const QPointF& point, bool state);

    std::vector<MemoryTimeline> m_timelines;
    std::vector<QLineSeries*> m_series;
    double m_unit = 1;
    QString m_unitName;
};

}  // namespace ckpt::ui
