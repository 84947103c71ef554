#include "io/TextFile.h"

#include "graph/GraphError.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>

namespace ckpt {

std::string readTextFile(const std::string& path)
{
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
        throw std::runtime_error(path + ": is a directory");
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw std::runtime_error(path + ": cannot open: " + std::strerror(errno));
    std::ostringstream buffer;
    buffer << in.rdbuf();
    return buffer.str();
}

std::string readInputFile(const std::string& path)
{
    try {
        return readTextFile(path);
    } catch (const std::runtime_error& e) {
        // readTextFile already names the file; keep only the problem.
        const std::string what = e.what();
        throw GraphError(what.substr(what.find(": ") + 2), {}, path);
    }
}

void writeTextFileAtomically(const std::string& path, const std::string& text)
{
    namespace fs = std::filesystem;
    fs::path target(path);
    fs::path temp = target;
    temp += ".tmp" + std::to_string(std::random_device{}());
    {
        std::ofstream out(temp, std::ios::binary | std::ios::trunc);
        if (!out)
            throw std::runtime_error(path + ": cannot write: " + std::strerror(errno));
        out << text;
        out.flush();
        if (!out) {
            std::error_code ignored;
            fs::remove(temp, ignored);
            throw std::runtime_error(path + ": write failed: " + std::strerror(errno));
        }
    }
    std::error_code ec;
    fs::rename(temp, target, ec);
    if (ec) {
        std::error_code ignored;
        fs::remove(temp, ignored);
        throw std::runtime_error(path + ": cannot replace: " + ec.message());
    }
}

}  // namespace ckpt
