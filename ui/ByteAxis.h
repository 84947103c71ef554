#pragma once
// Chart axes with round ticks: 1, 2 or 5 times a power of ten, and for bytes the unit (B, KiB,
// MiB, GiB, TiB) picked from the data so that the largest value reads between 1 and 1024 units
// ("0, 50, 100, 150 MiB", never "0.0124 KiB" or "1.116e+04 MiB").
#include <QString>

#include <cstdint>

class QValueAxis;

namespace ckpt::ui {

struct RoundTicks {
    double low = 0, high = 1;  // widened to tick values
    double step = 1;
    int decimals = 0;  // enough to tell adjacent ticks apart
    int tickCount() const;
    // Range, ticks and label format (the title is left to the caller).
    void applyTo(QValueAxis* axis) const;
};

// About five steps over [low, high].
RoundTicks roundTicks(double low, double high);

struct ByteAxis {
    double unitBytes = 1;
    QString unitName;  // "B", "KiB", ...
    RoundTicks ticks;  // in units
};

// The axis for values from `lowBytes` to `highBytes` (high <= 0: an empty chart, 0..1 B).
ByteAxis byteAxis(std::int64_t lowBytes, std::int64_t highBytes);

}  // namespace ckpt::ui
