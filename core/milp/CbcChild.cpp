#include "milp/CbcChild.h"

#include <coin/CbcEventHandler.hpp>
#include <coin/CbcModel.hpp>
#include <coin/CbcSolver.hpp>
#include <coin/CoinError.hpp>
#include <coin/OsiClpSolverInterface.hpp>

#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>

#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

namespace ckpt {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();
constexpr int kResultFd = 3;  // the child's end of the result pipe

// Result pipe frames: kind, count, then count doubles.
enum Frame : char {
    Incumbent = 'I',  // a solution CBC accepted during the search
    Best = 'B',       // CBC's final best solution
    Saved = 'S',      // a further solution CBC kept
    End = 'E',        // final status: provenOptimal, provenInfeasible, secondsLimit, status, secondary, bound
};

bool writeAll(int fd, const void* data, std::size_t size)
{
    const char* p = static_cast<const char*>(data);
    while (size > 0) {
        const ssize_t n = ::write(fd, p, size);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        p += n;
        size -= static_cast<std::size_t>(n);
    }
    return true;
}

void sendFrame(Frame kind, const double* values, std::uint32_t count)
{
    const char k = kind;
    writeAll(kResultFd, &k, 1);
    writeAll(kResultFd, &count, sizeof count);
    writeAll(kResultFd, values, sizeof(double) * count);
}

// In the child: sends every solution the main search accepts (sub-searches of heuristics,
// marked by special option 2048, have models of their own).
class SolutionSender : public CbcEventHandler {
public:
    explicit SolutionSender(int columns) : m_columns(columns) {}
    CbcAction event(CbcEvent which) override
    {
        if ((which == solution || which == heuristicSolution) && model_ && (model_->specialOptions() & 2048) == 0 &&
            model_->getNumCols() == m_columns && model_->bestSolution())
            sendFrame(Incumbent, model_->bestSolution(), static_cast<std::uint32_t>(m_columns));
        return noAction;
    }
    CbcEventHandler* clone() const override { return new SolutionSender(*this); }

private:
    int m_columns;
};

// CbcMain1's hook: just before branch and bound (3) the handler is pointed at the model that
// actually searches (CbcMain1 works on a copy).
int beforeBranchAndBound(CbcModel* model, int whereFrom)
{
    if (whereFrom == 3 && model->getEventHandler())
        model->getEventHandler()->setModel(model);
    return 0;
}

std::string number(double value)
{
    char text[64];
    std::snprintf(text, sizeof text, "%.17g", value);
    return text;
}

[[noreturn]] void runChild(const CbcProblem& p, const CbcChildSettings& settings)
{
    std::setvbuf(stdout, nullptr, _IOLBF, 0);  // the log reaches the parent line by line
    try {
        OsiClpSolverInterface solver;
        solver.loadProblem(p.columns, p.rows, p.colStart.data(), p.index.data(), p.value.data(), p.colLower.data(),
                           p.colUpper.data(), p.objective.data(), p.rowLower.data(), p.rowUpper.data());
        for (int c = 0; c < p.columns; ++c)
            if (p.integer[c])
                solver.setInteger(c);
        CbcModel model(solver);
        if (!p.start.empty()) {
            std::vector<std::pair<std::string, double>> start;
            for (int c = 0; c < p.columns; ++c)
                start.emplace_back(model.solver()->getColName(c), p.start[c]);
            model.setMIPStart(start);
        }
        SolutionSender sender(p.columns);
        model.passInEventHandler(&sender);
        CbcSolverUsefulData data;
        data.noPrinting_ = false;
        CbcMain0(model, data);
        // CBC 2.10's preprocessing can crash in CglPreProcess::postProcess when a time limit or a
        // MIP start leaves it mid-way (seen on the Checkmate MILP of vgg_unet); it is not needed.
        std::vector<std::string> args{"ckpt", "-preprocess", "off", "-timeMode", "elapsed",
                                      "-sec", number(std::max(0.01, settings.cbcSeconds)), "-log", "1"};
        if (settings.integralObjective)
            args.insert(args.end(), {"-allowableGap", "0.999"});
        if (settings.cutoff)
            args.insert(args.end(), {"-cutoff", number(*settings.cutoff)});
        if (settings.noPerturbation)
            args.insert(args.end(), {"-perturbation", "off"});
        args.insert(args.end(), {"-solve", "-quit"});
        std::vector<const char*> argv;
        for (const std::string& a : args)
            argv.push_back(a.c_str());
        CbcMain1(static_cast<int>(argv.size()), argv.data(), model, beforeBranchAndBound, data);

        const auto columns = static_cast<std::uint32_t>(p.columns);
        const bool integers = model.numberIntegers() > 0;
        const double* best = integers ? model.bestSolution()
                                      : (model.isProvenOptimal() ? model.solver()->getColSolution() : nullptr);
        if (best)
            sendFrame(Best, best, columns);
        for (int i = 1; integers && i < model.numberSavedSolutions(); ++i)
            if (const double* other = model.savedSolution(i))
                sendFrame(Saved, other, columns);
        const double end[] = {double(model.isProvenOptimal()),
                              double(model.isProvenInfeasible()),
                              double(model.isSecondsLimitReached()),
                              double(model.status()),
                              double(model.secondaryStatus()),
                              model.getBestPossibleObjValue()};
        sendFrame(End, end, 6);
        std::fflush(stdout);
        ::_exit(0);
    } catch (const CoinError& e) {
        std::printf("CBC error: %s (%s::%s)\n", e.message().c_str(), e.className().c_str(), e.methodName().c_str());
    } catch (const std::exception& e) {
        std::printf("CBC error: %s\n", e.what());
    }
    std::fflush(stdout);
    ::_exit(3);
}

// Parses CBC's log lines for incumbent and bound values.
class LogReader {
public:
    explicit LogReader(const std::function<void(double, double)>& report) : m_report(report) {}

    void feed(const char* data, std::size_t size)
    {
        for (std::size_t i = 0; i < size; ++i) {
            if (data[i] != '\n') {
                m_line += data[i];
                continue;
            }
            parse();
            m_lastLine = std::move(m_line);
            m_line.clear();
        }
    }
    double bound() const { return m_bound; }
    const std::string& lastLine() const { return m_lastLine; }

private:
    void parse()
    {
        const char* line = m_line.c_str();
        double incumbent = kInfinity, bound = -kInfinity, ignored = 0;
        int nodes = 0, open = 0;
        if (std::sscanf(line, "Cbc0010I After %d nodes, %d on tree, %lf best solution, best possible %lf", &nodes,
                        &open, &incumbent, &bound) == 4) {
            if (incumbent >= 1e49)
                incumbent = kInfinity;
        } else if (std::sscanf(line, "Cbc0012I Integer solution of %lf", &incumbent) == 1 ||
                   std::sscanf(line, "Cbc0004I Integer solution of %lf", &incumbent) == 1 ||
                   std::sscanf(line, "Continuous objective value is %lf", &bound) == 1 ||
                   std::sscanf(line, "Cbc0013I At root node, %d cuts changed objective from %lf to %lf", &nodes,
                               &ignored, &bound) == 3 ||
                   std::sscanf(line, "Cbc0005I Partial search - best objective %lf (best possible %lf", &incumbent,
                               &bound) == 2) {
        } else {
            return;
        }
        m_bound = std::max(m_bound, bound);
        if (m_report)
            m_report(incumbent, m_bound);
    }

    const std::function<void(double, double)>& m_report;
    std::string m_line, m_lastLine;
    double m_bound = -kInfinity;
};

// Reads result frames as they arrive.
class FrameReader {
public:
    explicit FrameReader(CbcChildReport& report, const CbcChildSettings& settings)
        : m_report(report), m_settings(settings)
    {
    }

    void feed(const char* data, std::size_t size)
    {
        m_buffer.append(data, size);
        constexpr std::size_t header = 1 + sizeof(std::uint32_t);
        while (m_buffer.size() >= header) {
            std::uint32_t count = 0;
            std::memcpy(&count, m_buffer.data() + 1, sizeof count);
            if (m_buffer.size() < header + sizeof(double) * count)
                return;
            std::vector<double> values(count);
            std::memcpy(values.data(), m_buffer.data() + header, sizeof(double) * count);
            take(m_buffer[0], std::move(values));
            m_buffer.erase(0, header + sizeof(double) * count);
        }
    }
    bool ended() const { return m_ended; }

private:
    void take(char kind, std::vector<double> values)
    {
        switch (kind) {
        case Incumbent:
            if (m_settings.solution)
                m_settings.solution(values);
            break;
        case Best: m_report.best = std::move(values); break;
        case Saved: m_report.saved.push_back(std::move(values)); break;
        case End:
            if (values.size() == 6) {
                m_report.provenOptimal = values[0] != 0;
                m_report.provenInfeasible = values[1] != 0;
                m_report.secondsLimitReached = values[2] != 0;
                m_report.status = static_cast<int>(values[3]);
                m_report.secondaryStatus = static_cast<int>(values[4]);
                m_report.bound = values[5];
                m_ended = true;
            }
            break;
        default: break;
        }
    }

    CbcChildReport& m_report;
    const CbcChildSettings& m_settings;
    std::string m_buffer;
    bool m_ended = false;
};

}  // namespace

CbcChildReport runCbcChild(const CbcProblem& problem, const CbcChildSettings& settings)
{
    CbcChildReport report;
    int logPipe[2], resultPipe[2];
    if (::pipe(logPipe) != 0)
        return report.crash = std::string("cannot create a pipe: ") + std::strerror(errno), report;
    if (::pipe(resultPipe) != 0) {
        ::close(logPipe[0]);
        ::close(logPipe[1]);
        return report.crash = std::string("cannot create a pipe: ") + std::strerror(errno), report;
    }
    std::fflush(stdout);
    std::fflush(stderr);
    const pid_t pid = ::fork();
    if (pid == 0) {
        // A crash ends the child quietly: no handler of this program (Qt Test's prints a stack
        // trace through gdb) runs there.
        for (int sig : {SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTERM})
            std::signal(sig, SIG_DFL);
        // The child keeps only its log (stdout, stderr) and result pipes: descriptors of other
        // solves running in this process must not stay open here, or their parents would miss EOF.
        ::dup2(logPipe[1], 1);
        ::dup2(logPipe[1], 2);
        ::dup2(resultPipe[1], kResultFd);
        ::close_range(kResultFd + 1, ~0U, 0);
        runChild(problem, settings);
    }
    ::close(logPipe[1]);
    ::close(resultPipe[1]);
    if (pid < 0) {
        ::close(logPipe[0]);
        ::close(resultPipe[0]);
        return report.crash = std::string("cannot start CBC (fork): ") + std::strerror(errno), report;
    }

    LogReader log(settings.log);
    FrameReader frames(report, settings);
    pollfd fds[2] = {{logPipe[0], POLLIN, 0}, {resultPipe[0], POLLIN, 0}};
    int open = 2;
    report.end = CbcChildReport::End::Finished;
    char buffer[1 << 16];
    while (open > 0) {
        if (settings.cancel && settings.cancel->load()) {
            report.end = CbcChildReport::End::Cancelled;
            break;
        }
        const auto left = settings.deadline - std::chrono::steady_clock::now();
        if (left <= std::chrono::steady_clock::duration::zero()) {
            report.end = CbcChildReport::End::Killed;
            break;
        }
        const auto wait = std::min<long long>(50, std::chrono::duration_cast<std::chrono::milliseconds>(left).count() + 1);
        if (::poll(fds, 2, static_cast<int>(wait)) < 0 && errno != EINTR)
            break;
        for (int f = 0; f < 2; ++f) {
            if (fds[f].fd < 0 || !(fds[f].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            const ssize_t got = ::read(fds[f].fd, buffer, sizeof buffer);
            if (got < 0 && errno == EINTR)
                continue;
            if (got <= 0) {
                ::close(fds[f].fd);
                fds[f].fd = -1;
                --open;
                continue;
            }
            if (f == 0)
                log.feed(buffer, static_cast<std::size_t>(got));
            else
                frames.feed(buffer, static_cast<std::size_t>(got));
        }
    }
    if (report.end != CbcChildReport::End::Finished)
        ::kill(pid, SIGKILL);
    for (const pollfd& f : fds)
        if (f.fd >= 0)
            ::close(f.fd);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    report.logBound = log.bound();
    if (report.end == CbcChildReport::End::Finished && !frames.ended()) {
        report.end = CbcChildReport::End::Crashed;
        if (WIFSIGNALED(status))
            report.crash = std::string("CBC crashed (") + strsignal(WTERMSIG(status)) + ")";
        else
            report.crash = "CBC stopped without a result (exit status " + std::to_string(WEXITSTATUS(status)) + ")";
        if (!log.lastLine().empty())
            report.crash += "; its last message: " + log.lastLine();
    }
    return report;
}

}  // namespace ckpt
