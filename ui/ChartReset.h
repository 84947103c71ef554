#pragma once
// Empties a chart before it is filled again: QChart::removeAllSeries deletes the series, but
// QChart::removeAxis only hands the axis back, so a chart refilled on every plan would leak its axes.
class QChart;

namespace ckpt::ui {

void resetChart(QChart* chart);

}  // namespace ckpt::ui
