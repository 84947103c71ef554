#pragma once
// Checkmate's schedule model (002 §4.2-4.7): n frontier-advancing stages; stage t computes
// node t for the first time and may recompute earlier nodes. R[t][k] = compute node k in
// stage t, S[t][k] = keep node k in memory from stage t-1 into stage t. Nodes are numbered by
// their position in the graph's topological order (002 §4.1 fixes one order).
//
// Memory follows Eq. 2-5: a stage starts with the fixed overhead and its kept values; computing
// node k allocates M_k; after it, a dependency i of k is freed when no later node of the stage
// uses it and it is not kept for the next stage (FREE[t][i][k], Eq. 5). Following §4.6 the MILP
// never frees k right after computing it (FREE[t][k][k] = 0); the execution plan adds those
// frees afterwards (they only lower memory), and frees at the end of a stage whatever is still
// allocated but not kept (spurious values, §4.7).
#include "graph/Graph.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ckpt {

using StageMatrix = std::vector<std::vector<char>>;  // [stage][node], 0/1

// The graph in schedule numbering.
struct StageGraph {
    explicit StageGraph(const Graph& graph);
    int size() const { return static_cast<int>(bytes.size()); }
    std::vector<VertexIndex> vertex;     // schedule node -> graph vertex
    std::vector<std::vector<int>> deps;  // distinct, ascending
    std::vector<std::vector<int>> users;  // distinct, ascending
    std::vector<std::int64_t> bytes;     // M_k
    std::vector<double> cost;            // C_k
};

struct ScheduleStatement {
    enum class Kind { Allocate, Compute, Deallocate };
    Kind kind = Kind::Compute;
    int stage = 0;
    int node = 0;      // schedule node
    int registerId = 0;  // %r
};

struct StageSchedule {
    std::vector<std::string> nodeIds;  // schedule node k = vertex with this id
    StageMatrix R, S;
    std::int64_t fixedBytes = 0;       // Eq. 2's constant overhead
    std::vector<ScheduleStatement> plan;  // Alg. 1 execution plan
    double cost = 0;                   // Eq. 1a
    std::int64_t peakBytes = 0;        // as replayed

    bool operator==(const StageSchedule&) const = default;
};

struct ReplayResult {
    bool ok = true;
    std::string error;  // the first problem, in plain words
    std::int64_t peakBytes = 0;
    double cost = 0;
};

// The peak of U[t][k] over stage t (Eq. 2-5, FREE[t][k][k] = 0 as in the MILP); rt is R[t],
// st is S[t], next is S[t+1] (all zeros after the last stage).
std::int64_t stagePeak(const StageGraph& g, int t, const std::vector<char>& st, const std::vector<char>& rt,
                       const std::vector<char>& next, std::int64_t fixedBytes);

// The largest U[t][k] of the whole schedule: the memory the MILP's constraint (8) sees.
std::int64_t modelPeak(const StageGraph& g, const StageMatrix& R, const StageMatrix& S, std::int64_t fixedBytes);

// A lower bound on every schedule's peak: the largest node with its inputs (U[t][t] holds node t
// and every dependency of t, none of which can be freed before t is computed), plus fixedBytes.
std::int64_t leastPeak(const StageGraph& g, std::int64_t fixedBytes);

// Alg. 1 (row-major scan of R and FREE), plus the frees described above.
std::vector<ScheduleStatement> executionPlan(const StageGraph& g, const StageMatrix& R, const StageMatrix& S);

// Runs the statements: every compute needs its dependencies allocated, kept values must be in
// memory when a stage starts, every node is computed, and (when given) the peak stays within
// the budget.
ReplayResult replay(const StageGraph& g, const StageSchedule& schedule, std::optional<std::int64_t> budget = {});

// R, S -> a complete schedule (ids, plan, cost, replayed peak). Throws std::logic_error when
// the replay fails (R and S violate 1b-1d).
StageSchedule makeStageSchedule(const StageGraph& g, const Graph& graph, StageMatrix R, StageMatrix S,
                                std::int64_t fixedBytes);

// The schedule of a checkpoint-set baseline (002 §5.1.1): nodes marked `keep` stay in memory
// from their computation to their last use (S); every other node is recomputed where needed
// (the minimal R, found by walking dependencies back from each stage's node).
StageSchedule scheduleFromKept(const StageGraph& g, const Graph& graph, const std::vector<char>& keep,
                               std::int64_t fixedBytes);
// Its R and S alone, for judging many candidates by modelPeak and cost before building one.
struct KeptMatrices {
    StageMatrix R, S;
    double cost = 0;  // Eq. 1a: sum of C_k R[t][k]
};
KeptMatrices keptMatrices(const StageGraph& g, const std::vector<char>& keep);

}  // namespace ckpt
