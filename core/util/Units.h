#pragma once
#include <cstdint>
#include <optional>
#include <string>

namespace ckpt {

// "512 B", "1.5 KiB", "3.07 MiB", "1.20 GiB": three significant digits, binary units.
std::string formatBytes(std::int64_t bytes);
// "24GiB", "1.5 GB", "4096", "512 MiB": a non-negative number with an optional unit (B, KB, MB, GB,
// TB powers of 1000; KiB, MiB, GiB, TiB powers of 1024); nullopt for anything else or overflow.
std::optional<std::int64_t> parseBytes(const std::string& text);

}  // namespace ckpt
