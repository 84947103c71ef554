#pragma once
// One CBC solve in a child process (fork), so that the time limit and cancel hold whatever CBC
// is doing: CBC 2.10 checks its own "-sec" limit only between nodes and heuristics, never inside
// Clp's root LP, which on the Checkmate MILP of ResNet-50 (287k columns) runs for many minutes.
// The parent kills the child at the deadline or on cancel and keeps what it was sent so far:
//  - every solution CBC accepts (a CbcEventHandler in the child writes it to a pipe at once);
//  - CBC's log (the child's stdout), parsed for the bound: "Continuous objective value is X"
//    (the root LP), "... cuts changed objective from A to X", "best possible X";
//  - at the end, CBC's final status, bound, best and saved solutions.
// A crash (CBC 2.10 has a few) ends the child, not the program. Chosen over Clp's own wall-clock
// limit and event handlers because those reach neither CBC's cut generation and heuristics nor a
// crash, and a killed process needs no cooperation. The child runs only CBC (malloc is fork-safe
// in glibc); should it block on a lock another thread of this process held at the fork, it is
// killed at the deadline like any other overrun.
#include <atomic>
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace ckpt {

// The problem in CBC's column-major form.
struct CbcProblem {
    int columns = 0, rows = 0;
    std::vector<int> colStart, index;  // colStart has columns + 1 entries
    std::vector<double> value;
    std::vector<double> colLower, colUpper, objective, rowLower, rowUpper;
    std::vector<char> integer;   // per column; all 0 solves the LP
    std::vector<double> start;   // a MIP start (every column), or empty
};

struct CbcChildSettings {
    std::chrono::steady_clock::time_point deadline;  // the child is killed here
    double cbcSeconds = 60;                          // CBC's own "-sec" limit, a little earlier
    std::optional<double> cutoff;
    bool integralObjective = false;
    bool noPerturbation = false;  // Clp's "-perturbation off" (the retry after a crash)
    const std::atomic<bool>* cancel = nullptr;
    // Called in the calling thread while the child runs: each solution it sends, and each bound or
    // incumbent value its log shows (incumbent +infinity / bound -infinity when not known).
    std::function<void(const std::vector<double>&)> solution;
    std::function<void(double incumbent, double bound)> log;
};

struct CbcChildReport {
    enum class End {
        Finished,   // CBC returned and sent its final report
        Killed,     // the deadline passed first
        Cancelled,  // the cancel flag was set
        Crashed,    // the child died without a final report (`crash` says how)
    };
    End end = End::Crashed;
    std::string crash;
    // From CBC's final report (End::Finished only).
    bool provenOptimal = false, provenInfeasible = false, secondsLimitReached = false;
    int status = 0, secondaryStatus = 0;
    std::vector<double> best;                  // CBC's best solution (the LP's, when no integers)
    std::vector<std::vector<double>> saved;    // further solutions CBC kept
    double bound = 0;                          // CBC's final best possible
    // The best bound CBC's log showed so far (-infinity when none: the root LP did not finish).
    double logBound = 0;
};

CbcChildReport runCbcChild(const CbcProblem& problem, const CbcChildSettings& settings);

}  // namespace ckpt
