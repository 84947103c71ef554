#include "util/Units.h"

#include <array>
#include <cmath>
#include <cstdio>

namespace ckpt {

std::string formatBytes(std::int64_t bytes)
{
    static constexpr std::array<const char*, 6> units{"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    const bool negative = bytes < 0;
    double value = std::fabs(static_cast<double>(bytes));
    std::size_t unit = 0;
    while (value >= 1024.0 && unit + 1 < units.size()) {
        value /= 1024.0;
        ++unit;
    }
    char text[32];
    if (unit == 0)
        std::snprintf(text, sizeof text, "%s%lld B", negative ? "-" : "", static_cast<long long>(std::fabs(value)));
    else
        std::snprintf(text, sizeof text, value < 10 ? "%s%.2f %s" : value < 100 ? "%s%.1f %s" : "%s%.0f %s",
                      negative ? "-" : "", value, units[unit]);
    return text;
}

}  // namespace ckpt
