#include "io/TextFile.h"

#include "graph/GraphError.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <random>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>

namespace ckpt {

namespace fs = std::filesystem;

namespace {

std::string errnoText() { return std::strerror(errno); }

// Symbolic links are written through: the file they name is replaced, the link stays.
fs::path resolveLinks(const std::string& path)
{
    fs::path target(path);
    for (int hops = 0; hops < 40; ++hops) {
        std::error_code ec;
        if (!fs::is_symlink(target, ec))
            return target;
        const fs::path next = fs::read_symlink(target, ec);
        if (ec)
            throw std::runtime_error(path + ": cannot follow the link: " + ec.message());
        target = next.is_absolute() ? next : target.parent_path() / next;
    }
    throw std::runtime_error(path + ": too many levels of symbolic links");
}

// Temporaries are "NAME.tmp-PID-RANDOM" beside the target; one whose process is gone was left by
// a killed write and is removed.
std::string temporaryPrefix(const fs::path& target) { return target.filename().string() + ".tmp-"; }

void removeStaleTemporaries(const fs::path& target)
{
    const std::string prefix = temporaryPrefix(target);
    const fs::path dir = target.parent_path().empty() ? fs::path(".") : target.parent_path();
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
        const std::string name = entry.path().filename().string();
        if (name.rfind(prefix, 0) != 0)
            continue;
        const long pid = std::strtol(name.c_str() + prefix.size(), nullptr, 10);
        if (pid > 0 && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) {
            std::error_code ignored;
            fs::remove(entry.path(), ignored);
        }
    }
}

void writeAll(int fd, const std::string& text, const std::string& path)
{
    std::size_t done = 0;
    while (done < text.size()) {
        const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            throw std::runtime_error(path + ": write failed: " + errnoText());
        done += static_cast<std::size_t>(n);
    }
}

}  // namespace

std::string readTextFile(const std::string& path)
{
    std::error_code ec;
    const fs::file_status status = fs::status(path, ec);
    if (fs::is_directory(status))
        throw std::runtime_error(path + ": is a directory");
    if (fs::exists(status) && !fs::is_regular_file(status))
        throw std::runtime_error(path + ": is not a regular file");
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw std::runtime_error(path + ": cannot open: " + std::strerror(errno));
    const auto tooLarge = [&] {
        return std::runtime_error(path + ": is larger than " + std::to_string(kMaxInputFileBytes >> 20) + " MiB");
    };
    const std::uintmax_t size = fs::file_size(path, ec);
    if (!ec && size > kMaxInputFileBytes)
        throw tooLarge();
    // Read into a string of the file's size (a stream buffer would grow and then copy it); a file
    // that grows meanwhile is read on to its end, still within the cap.
    std::string text;
    text.reserve(ec ? 0 : static_cast<std::size_t>(size));
    char chunk[1 << 16];
    while (in.read(chunk, sizeof chunk) || in.gcount() > 0) {
        text.append(chunk, static_cast<std::size_t>(in.gcount()));
        if (text.size() > kMaxInputFileBytes)
            throw tooLarge();
    }
    if (in.bad())
        throw std::runtime_error(path + ": cannot read: " + std::strerror(errno));
    return text;
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
    const fs::path target = resolveLinks(path);
    removeStaleTemporaries(target);
    struct stat existing {};
    const bool replacing = ::stat(target.c_str(), &existing) == 0;
    fs::path temp = target;
    temp += ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(std::random_device{}());
    const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0)
        throw std::runtime_error(path + ": cannot write: " + errnoText());
    try {
        writeAll(fd, text, path);
        // A replaced file keeps its permissions; a new one gets 0666 less the umask.
        if (replacing && ::fchmod(fd, existing.st_mode & 07777) != 0)
            throw std::runtime_error(path + ": cannot keep the file's mode: " + errnoText());
        // The data is on disk before the rename makes it the file, so a crash leaves old or new.
        if (::fsync(fd) != 0)
            throw std::runtime_error(path + ": write failed: " + errnoText());
        if (::close(fd) != 0)
            throw std::runtime_error(path + ": write failed: " + errnoText());
    } catch (...) {
        ::close(fd);
        std::error_code ignored;
        fs::remove(temp, ignored);
        throw;
    }
    std::error_code ec;
    fs::rename(temp, target, ec);
    if (ec) {
        std::error_code ignored;
        fs::remove(temp, ignored);
        throw std::runtime_error(path + ": cannot replace: " + ec.message());
    }
    // The rename itself is durable once the folder is synced.
    const fs::path dir = target.parent_path().empty() ? fs::path(".") : target.parent_path();
    if (const int dirFd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); dirFd >= 0) {
        ::fsync(dirFd);
        ::close(dirFd);
    }
}

}  // namespace ckpt
