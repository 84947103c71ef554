#include "milp/MilpModel.h"

#include <coin/Cbc_C_Interface.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <limits>
#include <mutex>
#include <thread>

#include <fcntl.h>
#include <unistd.h>

namespace ckpt {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

std::mutex& cbcMutex()
{
    static std::mutex m;
    return m;
}

// Reads CBC's log from a pipe and turns its incumbent/bound lines into MilpProgress.
class LogParser {
public:
    LogParser(int fd, std::function<void(const MilpProgress&)> progress)
        : m_fd(fd), m_progress(std::move(progress)), m_start(std::chrono::steady_clock::now())
    {
        m_thread = std::thread([this] { run(); });
    }
    // Call after the pipe's write end is closed.
    void join() { m_thread.join(); }

private:
    void run()
    {
        std::string line;
        char buffer[4096];
        for (;;) {
            const ssize_t got = ::read(m_fd, buffer, sizeof buffer);
            if (got <= 0)
                break;
            for (ssize_t i = 0; i < got; ++i) {
                if (buffer[i] != '\n') {
                    line += buffer[i];
                    continue;
                }
                parse(line);
                line.clear();
            }
        }
        ::close(m_fd);
    }

    void parse(const std::string& line)
    {
        double incumbent = m_last.incumbent, bound = m_last.bound;
        int nodes = 0, open = 0;
        // "Cbc0010I After N nodes, M on tree, X best solution, best possible Y (S seconds)"
        if (std::sscanf(line.c_str(), "Cbc0010I After %d nodes, %d on tree, %lf best solution, best possible %lf",
                        &nodes, &open, &incumbent, &bound) == 4) {
            if (incumbent >= 1e49)
                incumbent = kInfinity;
        } else if (std::sscanf(line.c_str(), "Cbc0012I Integer solution of %lf", &incumbent) != 1 &&
                   std::sscanf(line.c_str(), "Cbc0004I Integer solution of %lf", &incumbent) != 1) {
            return;
        }
        m_last.incumbent = std::min(m_last.incumbent, incumbent);
        m_last.bound = std::max(m_last.bound, bound);
        m_last.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - m_start).count();
        if (m_progress)
            m_progress(m_last);
    }

    int m_fd;
    std::function<void(const MilpProgress&)> m_progress;
    std::chrono::steady_clock::time_point m_start;
    MilpProgress m_last{kInfinity, -kInfinity, 0};
    std::thread m_thread;
};

// Sends file descriptor 1 into a LogParser for the lifetime of this object.
class StdoutCapture {
public:
    explicit StdoutCapture(std::function<void(const MilpProgress&)> progress)
    {
        int fds[2];
        std::fflush(stdout);
        std::cout.flush();
        m_saved = ::dup(1);
        if (m_saved < 0 || ::pipe(fds) != 0)
            return;
        ::fcntl(fds[0], F_SETFD, FD_CLOEXEC);
        ::dup2(fds[1], 1);
        ::close(fds[1]);
        m_parser.emplace(fds[0], std::move(progress));
    }
    ~StdoutCapture()
    {
        std::fflush(stdout);
        std::cout.flush();
        if (m_saved >= 0) {
            ::dup2(m_saved, 1);  // closes the pipe's last write end: the parser sees EOF
            ::close(m_saved);
        }
        if (m_parser)
            m_parser->join();
    }
    bool active() const { return m_parser.has_value(); }

private:
    int m_saved = -1;
    std::optional<LogParser> m_parser;
};

// The cut callback: once cancellation is requested every node gets the infeasible cut
// x_0 <= lower(x_0) - 1, so the search closes all open nodes and returns.
void COINLINKAGE_CB cancelCut(void* osiSolver, void* osiCuts, void* appData)
{
    const auto* cancel = static_cast<const std::atomic<bool>*>(appData);
    if (!cancel || !cancel->load(std::memory_order_relaxed) || Osi_getNumCols(osiSolver) == 0)
        return;
    const int column = 0;
    const double one = 1.0;
    OsiCuts_addRowCut(osiCuts, 1, &column, &one, 'L', Osi_getColLower(osiSolver)[0] - 1.0);
}

std::string number(double value)
{
    char text[64];
    std::snprintf(text, sizeof text, "%.17g", value);
    return text;
}

}  // namespace

std::string toString(MilpStatus status)
{
    switch (status) {
    case MilpStatus::Optimal: return "optimal";
    case MilpStatus::Feasible: return "time limit (feasible)";
    case MilpStatus::Infeasible: return "infeasible";
    case MilpStatus::NoSolution: return "time limit (no solution)";
    case MilpStatus::Cancelled: return "cancelled";
    case MilpStatus::Failed: return "failed";
    }
    return "unknown";
}

double MilpResult::gap() const
{
    if (!hasSolution())
        return kInfinity;
    if (status == MilpStatus::Optimal)
        return 0;
    const double scale = std::max(std::abs(objective), 1e-9);
    return std::max(0.0, (objective - bound) / scale);
}

int MilpModel::addBinary(double objective)
{
    m_objective.push_back(objective);
    m_lower.push_back(0);
    m_upper.push_back(1);
    m_integer.push_back(1);
    return columnCount() - 1;
}

int MilpModel::addContinuous(double lower, double upper, double objective)
{
    m_objective.push_back(objective);
    m_lower.push_back(lower);
    m_upper.push_back(upper);
    m_integer.push_back(0);
    return columnCount() - 1;
}

void MilpModel::addRow(const std::vector<Term>& terms, char sense, double rhs)
{
    m_terms.insert(m_terms.end(), terms.begin(), terms.end());
    m_rowStart.push_back(static_cast<int>(m_terms.size()));
    m_rowSense.push_back(sense);
    m_rhs.push_back(rhs);
}

void MilpModel::fix(int column, double value)
{
    m_lower[column] = value;
    m_upper[column] = value;
}

MilpResult MilpModel::solve(const MilpLimits& limits) const
{
    const auto start = std::chrono::steady_clock::now();
    MilpResult result;
    if (limits.cancel && limits.cancel->load()) {
        result.status = MilpStatus::Cancelled;
        return result;
    }
    const int columns = columnCount(), rows = rowCount();

    // Row-wise terms to CBC's column-major matrix.
    std::vector<CoinBigIndex> colStart(columns + 1, 0);
    for (const Term& t : m_terms)
        ++colStart[t.first + 1];
    for (int c = 0; c < columns; ++c)
        colStart[c + 1] += colStart[c];
    std::vector<int> index(m_terms.size());
    std::vector<double> value(m_terms.size());
    std::vector<CoinBigIndex> fill(colStart.begin(), colStart.end() - 1);
    for (int r = 0; r < rows; ++r)
        for (int k = m_rowStart[r]; k < m_rowStart[r + 1]; ++k) {
            const CoinBigIndex at = fill[m_terms[k].first]++;
            index[at] = r;
            value[at] = m_terms[k].second;
        }
    std::vector<double> rowLower(rows), rowUpper(rows);
    for (int r = 0; r < rows; ++r) {
        rowLower[r] = m_rowSense[r] == 'L' ? -std::numeric_limits<double>::max() : m_rhs[r];
        rowUpper[r] = m_rowSense[r] == 'G' ? std::numeric_limits<double>::max() : m_rhs[r];
    }

    std::lock_guard lock(cbcMutex());
    Cbc_Model* model = Cbc_newModel();
    Cbc_loadProblem(model, columns, rows, colStart.data(), index.data(), value.data(), m_lower.data(),
                    m_upper.data(), m_objective.data(), rowLower.data(), rowUpper.data());
    for (int c = 0; c < columns && !limits.relax; ++c)
        if (m_integer[c])
            Cbc_setInteger(model, c);
    Cbc_setObjSense(model, 1);
    // CBC 2.10's preprocessing can crash in CglPreProcess::postProcess when a time limit or a MIP
    // start leaves it mid-way (seen on the Checkmate MILP of vgg_unet); the models here are small
    // enough to do without it.
    Cbc_setParameter(model, "preprocess", "off");
    Cbc_setParameter(model, "timeMode", "elapsed");  // wall-clock seconds, not CPU seconds
    Cbc_setParameter(model, "sec", number(std::max(0.01, limits.seconds)).c_str());
    if (limits.integralObjective)
        Cbc_setParameter(model, "allowableGap", "0.999");
    if (limits.cutoff)
        Cbc_setParameter(model, "cutoff", number(*limits.cutoff).c_str());
    if (!m_start.empty()) {
        std::vector<int> all(columns);
        for (int c = 0; c < columns; ++c)
            all[c] = c;
        Cbc_setMIPStartI(model, columns, all.data(), m_start.data());
    }
    if (limits.cancel)
        Cbc_addCutCallback(model, cancelCut, "cancel", const_cast<std::atomic<bool>*>(limits.cancel));
    {
        StdoutCapture capture(limits.progress);
        Cbc_setParameter(model, "log", capture.active() ? "1" : "0");
        Cbc_solve(model);
    }

    // Without integer columns Cbc_solve solves the LP and keeps no "best solution".
    const bool hasIntegers = Cbc_getNumIntegers(model) > 0;
    const double* best = hasIntegers ? Cbc_bestSolution(model)
                                     : (Cbc_isProvenOptimal(model) ? Cbc_getColSolution(model) : nullptr);
    if (best) {
        result.values.assign(best, best + columns);
        result.objective = 0;
        for (int c = 0; c < columns; ++c)
            result.objective += m_objective[c] * result.values[c];
    }
    for (int i = 1; hasIntegers && i < Cbc_numberSavedSolutions(model); ++i)
        if (const double* other = Cbc_savedSolution(model, i))
            result.otherSolutions.emplace_back(other, other + columns);
    result.bound = Cbc_getBestPossibleObjValue(model);
    if (limits.cancel && limits.cancel->load())
        result.status = MilpStatus::Cancelled;
    else if (Cbc_isProvenOptimal(model) && best)
        result.status = MilpStatus::Optimal;
    else if (Cbc_isProvenInfeasible(model) || (Cbc_isProvenOptimal(model) && !best))
        result.status = MilpStatus::Infeasible;
    else if (Cbc_isSecondsLimitReached(model))
        result.status = best ? MilpStatus::Feasible : MilpStatus::NoSolution;
    else {
        result.status = best ? MilpStatus::Feasible : MilpStatus::Failed;
        result.message = "CBC stopped with status " + std::to_string(Cbc_status(model)) + "/" +
                         std::to_string(Cbc_secondaryStatus(model));
    }
    if (result.status == MilpStatus::Optimal)
        result.bound = result.objective;
    Cbc_deleteModel(model);
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
}

}  // namespace ckpt
