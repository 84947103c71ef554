#pragma once
#include <cstdint>
#include <string>

namespace ckpt {

// Whole-file reads and atomic writes (a temporary beside the target, synced, then renamed), so
// a failed save never leaves a half-written file. Both throw std::runtime_error naming the file.

// Inputs larger than this are refused before they are read (the largest real graphs are ~100 MiB).
inline constexpr std::uintmax_t kMaxInputFileBytes = std::uintmax_t{1} << 30;

// Regular files only (not /dev/zero, a FIFO or a folder), at most kMaxInputFileBytes.
std::string readTextFile(const std::string& path);
// readTextFile for an input the user named: a failure is a GraphError whose file is `path`.
std::string readInputFile(const std::string& path);
// Keeps a replaced file's mode, writes through symbolic links and removes temporaries that a
// killed write left beside the target.
void writeTextFileAtomically(const std::string& path, const std::string& text);

}  // namespace ckpt
