#pragma once
#include <cstdint>
#include <string>

namespace ckpt {

// "512 B", "1.5 KiB", "3.07 MiB", "1.20 GiB": three significant digits, binary units.
std::string formatBytes(std::int64_t bytes);

}  // namespace ckpt
