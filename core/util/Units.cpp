#include "util/Units.h"

#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <utility>

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

std::optional<std::int64_t> parseBytes(const std::string& text)
{
    static constexpr std::array<std::pair<const char*, double>, 10> units{{{"B", 1},
                                                                          {"KB", 1e3},
                                                                          {"MB", 1e6},
                                                                          {"GB", 1e9},
                                                                          {"TB", 1e12},
                                                                          {"KiB", 1024.0},
                                                                          {"MiB", 1048576.0},
                                                                          {"GiB", 1073741824.0},
                                                                          {"TiB", 1099511627776.0},
                                                                          {"", 1}}};
    const char* begin = text.c_str();
    char* end = nullptr;
    const double value = std::strtod(begin, &end);
    if (end == begin || !std::isfinite(value) || value < 0)
        return std::nullopt;
    std::string unit(end);
    unit.erase(0, unit.find_first_not_of(' '));
    for (const auto& [name, factor] : units)
        if (unit == name) {
            const double bytes = std::round(value * factor);
            if (bytes >= 9.2e18)
                return std::nullopt;
            return static_cast<std::int64_t>(bytes);
        }
    return std::nullopt;
}

}  // namespace ckpt
