#pragma once
// The C-sweep scrubber: a slider (arrow keys work) over the sweep's candidate C values, a line
// saying what the current C gave, and a small plot of objective against C with the winner marked.
// The sweep is computed once by the solver (Plan::sweep); scrubbing only picks an entry.
#include "solvers/Plan.h"

#include <QWidget>

#include <optional>

class QLabel;
class QSlider;

namespace ckpt::ui {

class SweepPlot;

class SweepPanel : public QWidget {
    Q_OBJECT
public:
    explicit SweepPanel(QWidget* parent = nullptr);

    // The sweep of the current plan (nullopt: the plan has none; the panel says so). Starts at the winner.
    void setSweep(std::optional<Sweep> sweep, const QString& solver = {});
    const std::optional<Sweep>& sweep() const { return m_sweep; }
    int currentEntry() const;
    void setCurrentEntry(int index);
    QSlider* slider() const { return m_slider; }
    QString summary() const;

Q_SIGNALS:
    void entryChanged(int index);

private:
    void onSliderMoved(int index);

    std::optional<Sweep> m_sweep;
    QSlider* m_slider;
    QLabel* m_label;
    SweepPlot* m_plot;
};

}  // namespace ckpt::ui
