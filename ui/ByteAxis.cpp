#include "ByteAxis.h"

#include <QValueAxis>

#include <algorithm>
#include <cmath>
#include <iterator>

namespace ckpt::ui {

RoundTicks roundTicks(double low, double high)
{
    if (!(high > low))
        high = low + 1;
    const double rough = (high - low) / 5;
    const double power = std::pow(10.0, std::floor(std::log10(rough)));
    double step = 10 * power;
    for (double factor : {1.0, 2.0, 5.0})
        if (factor * power >= rough) {
            step = factor * power;
            break;
        }
    RoundTicks ticks;
    ticks.step = step;
    ticks.low = std::floor(low / step + 1e-9) * step;
    ticks.high = std::ceil(high / step - 1e-9) * step;
    ticks.decimals = std::max(0, int(-std::floor(std::log10(step) + 1e-9)));
    return ticks;
}

int RoundTicks::tickCount() const
{
    return int(std::lround((high - low) / step)) + 1;
}

void RoundTicks::applyTo(QValueAxis* axis) const
{
    axis->setRange(low, high);
    axis->setTickType(QValueAxis::TicksFixed);
    axis->setTickCount(tickCount());
    axis->setMinorTickCount(0);
    axis->setLabelFormat(QStringLiteral("%.") + QString::number(decimals) + QStringLiteral("f"));
}

ByteAxis byteAxis(std::int64_t lowBytes, std::int64_t highBytes)
{
    static const char* const names[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    const double high = double(std::max<std::int64_t>(highBytes, 1));
    int unit = 0;
    while (unit + 1 < int(std::size(names)) && high >= std::pow(1024.0, unit + 1))
        ++unit;
    ByteAxis axis;
    axis.unitBytes = std::pow(1024.0, unit);
    axis.unitName = QString::fromLatin1(names[unit]);
    const double low = double(std::clamp<std::int64_t>(lowBytes, 0, std::int64_t(high)));
    axis.ticks = roundTicks(low / axis.unitBytes, high / axis.unitBytes);
    if (unit == 0 && axis.ticks.step < 1)  // no fractions of a byte
        axis.ticks = roundTicks(std::floor(low), std::max(std::ceil(high), std::floor(low) + 5));
    return axis;
}

}  // namespace ckpt::ui
