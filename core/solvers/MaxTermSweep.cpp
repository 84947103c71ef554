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

Sweep sweepParametric(std::int64_t highest, const SolveUnderC& solveAt, const SolverOptions& options)
{
    // A solved point: asked under c, least bytes S(c), largest segment m.
    struct Solved {
        std::int64_t c, bytes, m;
    };
    std::map<std::int64_t, SweepEntry> byTerm;  // keyed by m; the first plan found for an m stays
    std::int64_t best = -1;
    auto solve = [&](std::int64_t c) {
        options.checkCancelled();
        SweepPoint p = solveAt(c);
        const Solved s{c, p.bytes, p.maxSegment};
        if (best < 0 || p.objective() < best)
            best = p.objective();
        byTerm.try_emplace(s.m, entryOf(s.m, std::move(p)));
        return s;
    };
    const double width = static_cast<double>(std::max<std::int64_t>(1, highest));
    double open = static_cast<double>(highest);  // C not yet covered or ruled out, for progress
    std::vector<std::pair<Solved, Solved>> intervals{{solve(0), solve(highest)}};
    while (!intervals.empty()) {
        const auto [a, b] = intervals.back();
        intervals.pop_back();
        // Open C: a.c < C < b.m, and only where g(C) >= S(b) + C can still beat `best`.
        const std::int64_t lo = a.c + 1;
        const std::int64_t hi = a.bytes == b.bytes ? lo : std::min(b.m, best - b.bytes);
        if (hi <= lo) {
            open -= static_cast<double>(b.c - a.c);
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
