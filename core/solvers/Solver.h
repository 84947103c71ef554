#pragma once
// One interface for every solver: graph + options -> Plan.
#include "graph/Graph.h"
#include "solvers/Plan.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace ckpt {

// The solver refuses this graph or these options (e.g. feng-lcg on a non-linear graph);
// the message says why in plain words.
class SolverError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Thrown when SolverOptions::cancel was set while solving.
class SolverCancelled : public std::runtime_error {
public:
    SolverCancelled() : std::runtime_error("cancelled") {}
};

struct OptionSpec {
    std::string name;
    std::string defaultValue;
    std::string description;
};

// What a mixed-integer solver knows while it runs: the best plan found so far (incumbent)
// and the proven lower bound, in the solver's objective units.
struct MilpProgress {
    double incumbent = 0;  // +infinity while there is none
    double bound = 0;
    double seconds = 0;
};

struct SolverOptions {
    std::map<std::string, std::string> values;
    const std::atomic<bool>* cancel = nullptr;          // polled; set it to stop the solver
    std::function<void(double fraction)> progress;      // 0..1, may be empty
    // MILP solvers (core/milp) report incumbent and bound here; may be empty. Called from the
    // solving thread while CBC runs, never concurrently with itself.
    std::function<void(const MilpProgress&)> milpProgress;

    std::int64_t integer(const std::string& key, std::int64_t fallback) const;
    double number(const std::string& key, double fallback) const;
    std::string text(const std::string& key, const std::string& fallback) const;
    // Throws SolverCancelled if cancellation was requested.
    void checkCancelled() const;
    void report(double fraction) const;
};

class Solver {
public:
    virtual ~Solver() = default;
    virtual std::string name() const = 0;
    virtual std::string description() const = 0;  // one line, names the paper and algorithm
    virtual std::vector<OptionSpec> options() const { return {}; }
    // Quick on a 1,000-vertex graph (polynomial of low degree); `ckptx compare` runs only these
    // unless solvers are named. Exponential or O(n^3) solvers say false.
    virtual bool fast() const { return true; }
    // Throws SolverError when it refuses the input; never returns an invalid plan.
    virtual Plan solve(const Graph& graph, const SolverOptions& options) const = 0;
};

// The MILP solvers' limit in seconds; finite and positive.
inline constexpr const char* kTimeLimitOption = "time-limit";

// Refuses (SolverError) options the solver does not take, naming those it does, and a time limit
// that is not a positive number. Solvers read only their own options; this is for user input.
void checkOptions(const Solver& solver, const SolverOptions& options);

// Evaluates the checkpoints and fills in the solver's name and options (defaults included);
// runSolver (SolverRegistry.h) times the call.
Plan makePlan(const Graph& graph, const Solver& solver, const SolverOptions& options,
              std::vector<VertexIndex> checkpoints);

}  // namespace ckpt
