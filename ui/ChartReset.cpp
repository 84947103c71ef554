#include "ChartReset.h"

#include <QAbstractAxis>
#include <QChart>

namespace ckpt::ui {

void resetChart(QChart* chart)
{
    chart->removeAllSeries();
    for (QAbstractAxis* axis : chart->axes()) {
        chart->removeAxis(axis);
        delete axis;
    }
}

}  // namespace ckpt::ui
