#pragma once
#include <string>

namespace ckpt {

// Whole-file reads and atomic writes (a temporary beside the target, then rename), so
// a failed save never leaves a half-written file. Both throw std::runtime_error naming the file.
std::string readTextFile(const std::string& path);
// readTextFile for an input the user named: a failure is a GraphError whose file is `path`.
std::string readInputFile(const std::string& path);
void writeTextFileAtomically(const std::string& path, const std::string& text);

}  // namespace ckpt
