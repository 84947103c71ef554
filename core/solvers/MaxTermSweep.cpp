#include "solvers/MaxTermSweep.h"

namespace ckpt {

Sweep sweepMaxTerms(const std::vector<std::int64_t>& terms, const std::function<SweepPoint(std::int64_t)>& solveAt,
                    SweepMode mode, const SolverOptions& options)
{
    Sweep sweep;
    const int n = static_cast<int>(terms.size());
    sweep.entries.resize(n);
    std::vector<std::int64_t> bytes(n, 0);
    int solved = 0;
    auto solve = [&](int k) {
        options.checkCancelled();
        SweepPoint p = solveAt(terms[k]);
        sweep.entries[k] = {terms[k], std::move(p.checkpoints), p.objective, false};
        bytes[k] = p.bytes;
        options.report(static_cast<double>(++solved) / n);
    };
    if (mode == SweepMode::Every || n <= 2) {
        for (int k = 0; k < n; ++k)
            solve(k);
    } else {
        solve(0);
        solve(n - 1);
        std::vector<std::pair<int, int>> intervals{{0, n - 1}};  // both ends solved
        while (!intervals.empty()) {
            auto [lo, hi] = intervals.back();
            intervals.pop_back();
            if (hi - lo < 2)
                continue;
            if (bytes[lo] == bytes[hi]) {
                for (int k = lo + 1; k < hi; ++k) {
                    sweep.entries[k] = sweep.entries[lo];
                    sweep.entries[k].c = terms[k];
                    sweep.entries[k].reused = true;
                }
                continue;
            }
            const int mid = lo + (hi - lo) / 2;
            solve(mid);
            intervals.push_back({lo, mid});
            intervals.push_back({mid, hi});
        }
    }
    options.report(1.0);
    for (int k = 0; k < n; ++k)
        if (sweep.winner < 0 || sweep.entries[k].objective < sweep.entries[sweep.winner].objective)
            sweep.winner = k;
    return sweep;
}

}  // namespace ckpt
