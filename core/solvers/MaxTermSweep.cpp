#include "solvers/MaxTermSweep.h"

#include <algorithm>
#include <map>

namespace ckpt {

namespace {

SweepEntry entryOf(std::int64_t c, SweepPoint&& p) { return {c, std::move(p.checkpoints), p.objective()}; }

void pickWinner(Sweep& sweep)
{
    for (int k = 0; k < static_cast<int>(sweep.entries.size()); ++k)
        if (sweep.winner < 0 || sweep.entries[k].objective < sweep.entries[sweep.winner].objective)
            sweep.winner = k;
}

}  // namespace

Sweep sweepEveryTerm(const std::vector<std::int64_t>& terms, const SolveUnderC& solveAt, const SolverOptions& options)
{
    Sweep sweep;
    const std::size_t n = terms.size();
    for (std::size_t k = 0; k < n; ++k) {
        options.checkCancelled();
        sweep.entries.push_back(entryOf(terms[k], solveAt(terms[k])));
        options.report(static_cast<double>(k + 1) / n);
    }
    pickWinner(sweep);
    return sweep;
}

std::int64_t CandidateCs::count() const
{
    return terms.empty() ? highest + 1 : static_cast<std::int64_t>(terms.size());
}

std::int64_t CandidateCs::at(std::int64_t index) const
{
    return terms.empty() ? index : terms[static_cast<std::size_t>(index)];
}

std::int64_t CandidateCs::firstAtLeast(std::int64_t c) const
{
    if (terms.empty())
        return std::clamp<std::int64_t>(c, 0, highest + 1);
    return std::lower_bound(terms.begin(), terms.end(), c) - terms.begin();
}

Sweep sweepParametric(const CandidateCs& candidates, const SolveUnderC& solveAt, const SolverOptions& options)
{
    // A solved point: asked under candidate `index`, least bytes S, largest segment m.
    struct Solved {
        std::int64_t index, bytes, m;
    };
    std::map<std::int64_t, SweepEntry> byTerm;  // keyed by m; the first plan found for an m stays
    std::int64_t best = -1;
    auto solve = [&](std::int64_t index) {
        options.checkCancelled();
        SweepPoint p = solveAt(candidates.at(index));
        const Solved s{index, p.bytes, p.maxSegment};
        if (best < 0 || p.objective() < best)
            best = p.objective();
        byTerm.try_emplace(s.m, entryOf(s.m, std::move(p)));
        return s;
    };
    const std::int64_t last = candidates.count() - 1;
    const double width = static_cast<double>(std::max<std::int64_t>(1, last));
    double open = static_cast<double>(last);  // candidates not yet covered or ruled out, for progress
    std::vector<std::pair<Solved, Solved>> intervals{{solve(0), solve(last)}};
    while (!intervals.empty()) {
        const auto [a, b] = intervals.back();
        intervals.pop_back();
        const std::int64_t lo = a.index + 1;
        const std::int64_t hi = a.bytes == b.bytes ? lo
                                                   : std::min(candidates.firstAtLeast(b.m),
                                                              candidates.firstAtLeast(best - b.bytes));
        if (hi <= lo) {
            open -= static_cast<double>(b.index - a.index);
            options.report(1 - open / width);
            continue;
        }
        const Solved mid = solve(lo + (hi - lo) / 2);
        intervals.push_back({a, mid});
        intervals.push_back({mid, b});
    }
    options.report(1.0);
    Sweep sweep;
    for (auto& [m, entry] : byTerm)
        sweep.entries.push_back(std::move(entry));
    pickWinner(sweep);
    return sweep;
}

}  // namespace ckpt
