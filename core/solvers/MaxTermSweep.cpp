#include "solvers/MaxTermSweep.h"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>

namespace ckpt {

namespace {

SweepEntry entryOf(std::int64_t c, SweepPoint&& p) { return {c, std::move(p.checkpoints), p.objective()}; }

// The first of `count` items with the least objective (-1 when there are none).
template <class Objective>
int firstLeast(int count, Objective objective)
{
    int least = -1;
    for (int k = 0; k < count; ++k)
        if (least < 0 || objective(k) < objective(least))
            least = k;
    return least;
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
    sweep.winner = firstLeast(static_cast<int>(n), [&sweep](int k) { return sweep.entries[k].objective; });
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

Sweep sweepParametric(const CandidateCs& candidates, const SolveUnderC& valueAt, const SolveUnderC& solveAt,
                      const SolverOptions& options)
{
    // A solved point: asked under candidate `index`, least bytes S, largest segment m.
    struct Solved {
        std::int64_t index, bytes, m;
    };
    struct Found {
        std::int64_t askedAt, bytes;
        std::vector<VertexIndex> checkpoints;  // empty: walk for them if the entry is kept
    };
    constexpr std::size_t heldIds = std::size_t(1) << 24;  // checkpoints held while searching
    std::size_t held = 0;
    std::map<std::int64_t, Found> byTerm;  // keyed by m; the first plan found for an m stays
    std::int64_t best = -1;
    auto solve = [&](std::int64_t index) {
        options.checkCancelled();
        SweepPoint p = valueAt(candidates.at(index));
        const Solved s{index, p.bytes, p.maxSegment};
        if (best < 0 || p.objective() < best)
            best = p.objective();
        if (!byTerm.count(s.m)) {
            if (held + p.checkpoints.size() > heldIds)
                p.checkpoints.clear();
            held += p.checkpoints.size();
            byTerm.emplace(s.m, Found{candidates.at(index), p.bytes, std::move(p.checkpoints)});
        }
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
            options.report(0.9 * (1 - open / width));
            continue;
        }
        const Solved mid = solve(lo + (hi - lo) / 2);
        intervals.push_back({a, mid});
        intervals.push_back({mid, b});
    }
    // The winner (least objective, then least m) and the entries kept, each walked once for its
    // checkpoints under the C it was found at: the same plan, so the same bytes and m.
    const int found = static_cast<int>(byTerm.size());
    std::vector<std::pair<std::int64_t, Found>> all(std::make_move_iterator(byTerm.begin()),
                                                    std::make_move_iterator(byTerm.end()));
    byTerm.clear();
    const int winner = firstLeast(found, [&all](int k) { return all[k].second.bytes + all[k].first; });
    std::vector<int> kept;
    for (int j = 0; j < std::min(found, kKeptSweepEntries); ++j)
        kept.push_back(found <= kKeptSweepEntries ? j : static_cast<int>(static_cast<std::int64_t>(j) * (found - 1) / (kKeptSweepEntries - 1)));
    kept.push_back(winner);
    std::sort(kept.begin(), kept.end());
    kept.erase(std::unique(kept.begin(), kept.end()), kept.end());
    Sweep sweep;
    for (std::size_t j = 0; j < kept.size(); ++j) {
        options.checkCancelled();
        auto& [m, f] = all[kept[j]];
        SweepPoint p = f.checkpoints.empty() ? solveAt(f.askedAt) : SweepPoint{std::move(f.checkpoints), f.bytes, m};
        if (p.bytes != f.bytes || p.maxSegment != m)
            throw std::logic_error("C sweep: the plan walked under C = " + std::to_string(f.askedAt) +
                                   " is not the one its values describe");
        if (kept[j] == winner)
            sweep.winner = static_cast<int>(j);
        sweep.entries.push_back(entryOf(m, std::move(p)));
        options.report(0.9 + 0.1 * static_cast<double>(j + 1) / static_cast<double>(kept.size()));
    }
    return sweep;
}

}  // namespace ckpt
