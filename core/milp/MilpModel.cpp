#include "milp/MilpModel.h"

#include "milp/CbcChild.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

namespace ckpt {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();
// The child is killed at the time limit; CBC's own limit comes this much earlier (at most 10 % of
// the limit) so that it normally stops by itself with its final report.
double cbcMargin(double seconds)
{
    return std::min(1.0, 0.1 * std::max(0.0, seconds));
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

double MilpModel::objectiveOf(const std::vector<double>& values) const
{
    double sum = 0;
    for (int c = 0; c < columnCount(); ++c)
        sum += m_objective[c] * values[c];
    return sum;
}

bool MilpModel::satisfies(const std::vector<double>& values, bool integral) const
{
    if (static_cast<int>(values.size()) != columnCount())
        return false;
    auto slack = [](double scale) { return 1e-6 * (1 + std::abs(scale)); };
    for (int c = 0; c < columnCount(); ++c) {
        const double x = values[c];
        if (!std::isfinite(x) || x < m_lower[c] - slack(m_lower[c]) || x > m_upper[c] + slack(m_upper[c]))
            return false;
        if (integral && m_integer[c] && std::abs(x - std::round(x)) > 1e-5)
            return false;
    }
    for (int r = 0; r < rowCount(); ++r) {
        double activity = 0, magnitude = std::abs(m_rhs[r]);
        for (int k = m_rowStart[r]; k < m_rowStart[r + 1]; ++k) {
            activity += m_terms[k].second * values[m_terms[k].first];
            magnitude += std::abs(m_terms[k].second * values[m_terms[k].first]);
        }
        const double tolerance = slack(magnitude);
        if ((m_rowSense[r] != 'G' && activity > m_rhs[r] + tolerance) ||
            (m_rowSense[r] != 'L' && activity < m_rhs[r] - tolerance))
            return false;
    }
    return true;
}

CbcProblem MilpModel::cbcProblem(bool relax) const
{
    const int columns = columnCount(), rows = rowCount();
    CbcProblem p;
    p.columns = columns;
    p.rows = rows;
    // Row-wise terms to CBC's column-major matrix.
    p.colStart.assign(columns + 1, 0);
    for (const Term& t : m_terms)
        ++p.colStart[t.first + 1];
    for (int c = 0; c < columns; ++c)
        p.colStart[c + 1] += p.colStart[c];
    p.index.resize(m_terms.size());
    p.value.resize(m_terms.size());
    std::vector<int> fill(p.colStart.begin(), p.colStart.end() - 1);
    for (int r = 0; r < rows; ++r)
        for (int k = m_rowStart[r]; k < m_rowStart[r + 1]; ++k) {
            const int at = fill[m_terms[k].first]++;
            p.index[at] = r;
            p.value[at] = m_terms[k].second;
        }
    p.rowLower.resize(rows);
    p.rowUpper.resize(rows);
    for (int r = 0; r < rows; ++r) {
        p.rowLower[r] = m_rowSense[r] == 'L' ? -std::numeric_limits<double>::max() : m_rhs[r];
        p.rowUpper[r] = m_rowSense[r] == 'G' ? std::numeric_limits<double>::max() : m_rhs[r];
    }
    p.colLower = m_lower;
    p.colUpper = m_upper;
    p.objective = m_objective;
    p.integer = relax ? std::vector<char>(columns, 0) : m_integer;
    if (!relax)
        p.start = m_start;
    return p;
}

MilpResult MilpModel::solve(const MilpLimits& limits) const
{
    using Clock = std::chrono::steady_clock;
    const auto start = Clock::now();
    auto elapsed = [&start] { return std::chrono::duration<double>(Clock::now() - start).count(); };
    MilpResult result;
    result.bound = -kInfinity;
    if (limits.cancel && limits.cancel->load()) {
        result.status = MilpStatus::Cancelled;
        return result;
    }

    // The best solution known, checked against every row here: the MIP start counts (CBC may
    // not even reach it before the time limit on a large model), then whatever CBC sends.
    MilpProgress seen{kInfinity, -kInfinity, 0};
    auto report = [&] {
        seen.seconds = elapsed();
        if (limits.progress)
            limits.progress(seen);
    };
    auto consider = [&](const std::vector<double>& values) {
        if (!satisfies(values, !limits.relax))
            return;
        const double objective = objectiveOf(values);
        if (result.hasSolution() && objective >= result.objective - 1e-9 * std::max(1.0, std::abs(objective)))
            return;
        result.values = values;
        result.objective = objective;
        seen.incumbent = std::min(seen.incumbent, objective);
        report();
    };
    if (!limits.relax && !m_start.empty() && (!limits.cutoff || objectiveOf(m_start) < *limits.cutoff))
        consider(m_start);

    CbcChildSettings settings;
    settings.cbcSeconds = limits.seconds - elapsed() - cbcMargin(limits.seconds);
    settings.deadline = start + std::chrono::duration_cast<Clock::duration>(
                                    std::chrono::duration<double>(std::max(0.0, limits.seconds)));
    settings.cutoff = limits.cutoff;
    settings.integralObjective = limits.integralObjective;
    settings.cancel = limits.cancel;
    settings.solution = consider;
    settings.log = [&](double incumbent, double bound) {
        seen.incumbent = std::min(seen.incumbent, incumbent);
        seen.bound = std::max(seen.bound, bound);
        report();
    };
    const CbcProblem problem = cbcProblem(limits.relax);
    CbcChildReport cbc = runCbcChild(problem, settings);
    // Clp 1.17 can fail an assertion (ClpSimplexDual::resetFakeBounds, seen on a 13-node Checkmate
    // MILP); the same model then solves with Clp's perturbation off. One retry, in the time left.
    if (cbc.end == CbcChildReport::End::Crashed && limits.seconds - elapsed() > 0.5) {
        settings.noPerturbation = true;
        settings.cbcSeconds = limits.seconds - elapsed() - cbcMargin(limits.seconds);
        const std::string first = cbc.crash;
        cbc = runCbcChild(problem, settings);
        if (cbc.end == CbcChildReport::End::Crashed)
            cbc.crash = first + "; again with Clp's perturbation off: " + cbc.crash;
    }

    auto finite = [](double bound) { return std::abs(bound) < 1e49 ? bound : -kInfinity; };
    result.bound = finite(cbc.logBound);
    using End = CbcChildReport::End;
    switch (cbc.end) {
    case End::Cancelled: result.status = MilpStatus::Cancelled; break;
    case End::Killed:
        result.status = result.hasSolution() ? MilpStatus::Feasible : MilpStatus::NoSolution;
        result.message = result.bound == -kInfinity
                             ? "CBC was stopped at the time limit before its root LP finished (no LP bound yet)"
                             : "CBC was stopped at the time limit";
        break;
    case End::Crashed:
        result.status = result.hasSolution() ? MilpStatus::Feasible : MilpStatus::Failed;
        result.message = cbc.crash;
        break;
    case End::Finished:
        consider(cbc.best);
        result.otherSolutions = cbc.saved;
        result.bound = std::max(result.bound, finite(cbc.bound));
        if (cbc.provenOptimal && result.hasSolution())
            result.status = MilpStatus::Optimal;
        else if (cbc.provenInfeasible || cbc.provenOptimal)
            result.status = result.hasSolution() ? MilpStatus::Feasible : MilpStatus::Infeasible;
        else if (cbc.secondsLimitReached)
            result.status = result.hasSolution() ? MilpStatus::Feasible : MilpStatus::NoSolution;
        else {
            result.status = result.hasSolution() ? MilpStatus::Feasible : MilpStatus::Failed;
            result.message = "CBC stopped with status " + std::to_string(cbc.status) + "/" +
                             std::to_string(cbc.secondaryStatus);
        }
        break;
    }
    if (result.status == MilpStatus::Optimal)
        result.bound = result.objective;
    result.seconds = elapsed();
    return result;
}

}  // namespace ckpt
