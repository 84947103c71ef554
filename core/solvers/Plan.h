#pragma once
// A Plan is what every solver returns: the checkpoints it chose, evaluated under Eq. 2.
#include "theory/PlanEvaluation.h"
#include "theory/Revolve.h"
#include "theory/StageSchedule.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ckpt {

// One candidate max-term C of a sweep (Feng & Huang Alg. 6) and what it gave.
struct SweepEntry {
    std::int64_t c = 0;
    std::vector<VertexIndex> checkpoints;  // topological order, with source and sink
    std::int64_t objective = 0;
};

struct Sweep {
    std::vector<SweepEntry> entries;  // ascending C
    int winner = -1;                  // index of the best entry (smallest objective, then smallest C)
};

struct Plan {
    std::string solver;
    std::map<std::string, std::string> options;  // as used, defaults filled in
    PlanEvaluation evaluation;                    // checkpoints, segments, objective
    double wallTimeMs = 0;
    std::vector<std::string> notes;  // how the plan was made, in plain words (e.g. a fallback taken)
    std::optional<Sweep> sweep;
    // Set by schedule-based solvers (griewank-logn): the plan is this nested schedule, and
    // `evaluation` describes only the checkpoints its first sweep stores.
    std::optional<CheckpointSchedule> schedule;
    // Exact (MILP) solvers: whether the objective is proven optimal, and the proven lower bound
    // on it (equal to the objective when proven).
    std::optional<bool> provenOptimal;
    std::optional<double> lowerBound;
    // checkmate-milp: the stage schedule (R, S) and its execution plan (Checkmate Alg. 1).
    std::optional<StageSchedule> stageSchedule;

    const std::vector<VertexIndex>& checkpoints() const { return evaluation.checkpoints; }
    std::int64_t objective() const { return evaluation.objective; }
};

}  // namespace ckpt
