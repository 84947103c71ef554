#include "solvers/SolverRegistry.h"

#include "solvers/CheckmateMilpSolver.h"
#include "solvers/CheckpointAllSolver.h"
#include "solvers/ChenGreedySolver.h"
#include "solvers/ChenSqrtNSolver.h"
#include "solvers/ExhaustiveSolver.h"
#include "solvers/FengAcgSolver.h"
#include "solvers/FengLcgSolver.h"
#include "solvers/GriewankSolver.h"
#include "solvers/HongDpSolver.h"
#include "solvers/HongDynamicQuadraticSolver.h"
#include "solvers/HongDynamicSolver.h"
#include "solvers/OptimalSolver.h"
#include "solvers/RandomSolver.h"

#include <chrono>
#include <memory>

namespace ckpt {

const std::vector<const Solver*>& allSolvers()
{
    // One line per solver; the order is the order users see them in.
    static const CheckpointAllSolver checkpointAll;
    static const FengLcgSolver fengLcg;
    static const FengAcgSolver fengAcg;
    static const ExhaustiveSolver exhaustive(true);
    static const ExhaustiveSolver exhaustiveGeneral(false);
    static const ChenSqrtNSolver chenSqrtN{CandidateKind::Chain};
    static const ChenGreedySolver chenGreedy{CandidateKind::Chain};
    static const ChenSqrtNSolver apSqrtN{CandidateKind::ArticulationPoints};
    static const ChenGreedySolver apGreedy{CandidateKind::ArticulationPoints};
    static const ChenSqrtNSolver linearizedSqrtN{CandidateKind::Linearized};
    static const ChenGreedySolver linearizedGreedy{CandidateKind::Linearized};
    static const RandomSolver random;
    static const GriewankSolver griewank;
    static const HongDpSolver hongDp;
    static const HongDynamicQuadraticSolver hongDynamicQuadratic;
    static const HongDynamicSolver hongDynamic;
    static const OptimalSolver optimal;
    static const CheckmateMilpSolver checkmateMilp;
    static const std::vector<const Solver*> solvers{
        &checkpointAll,
        &fengLcg,
        &fengAcg,
        &exhaustive,
        &exhaustiveGeneral,
        &chenSqrtN,
        &chenGreedy,
        &apSqrtN,
        &apGreedy,
        &linearizedSqrtN,
        &linearizedGreedy,
        &random,
        &griewank,
        &hongDp,
        &hongDynamicQuadratic,
        &hongDynamic,
        &optimal,
        &checkmateMilp,
    };
    return solvers;
}

const Solver* findSolver(const std::string& name)
{
    for (const Solver* s : allSolvers())
        if (s->name() == name)
            return s;
    return nullptr;
}

Plan runSolver(const std::string& name, const Graph& graph, const SolverOptions& options)
{
    const Solver* solver = findSolver(name);
    if (!solver) {
        std::string known;
        for (const Solver* s : allSolvers())
            known += (known.empty() ? "" : ", ") + s->name();
        throw SolverError("unknown solver \"" + name + "\" (known: " + known + ")");
    }
    const auto start = std::chrono::steady_clock::now();
    Plan plan = solver->solve(graph, options);
    plan.wallTimeMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return plan;
}

}  // namespace ckpt
