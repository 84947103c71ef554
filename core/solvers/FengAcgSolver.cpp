#include "solvers/FengAcgSolver.h"

#include "solvers/ForwardGraphCheck.h"
#include "solvers/MaxTermSweep.h"
#include "solvers/TreeCheckpointSearch.h"
#include "theory/DivisionTree.h"

namespace ckpt {

std::vector<OptionSpec> FengAcgSolver::options() const
{
    return {{"sweep", "steps",
             "steps: solve C only where the least checkpoint bytes can change, other C reuse the plan "
             "(same winner); every: run Alg. 5 under every C"}};
}

Plan FengAcgSolver::solve(const Graph& graph, const SolverOptions& options) const
{
    requireForwardGraph(graph, name());
    return solveBySweep(graph, *this, options);
}

Plan solveBySweep(const Graph& graph, const Solver& solver, const SolverOptions& options)
{
    const std::string modeText = options.text("sweep", "steps");
    if (modeText != "steps" && modeText != "every")
        throw SolverError("option sweep must be \"steps\" or \"every\", got \"" + modeText + "\"");
    const SweepMode mode = modeText == "every" ? SweepMode::Every : SweepMode::Steps;

    const DivisionTree tree = DivisionTree::build(graph);
    const TreeCheckpointSearch search(graph, tree);
    const std::vector<std::int64_t> terms = search.maxTerms();
    Sweep sweep = sweepMaxTerms(
        terms,
        [&search](std::int64_t c) {
            TreeCheckpointSearch::Result r = search.solve(c);
            return SweepPoint{std::move(r.checkpoints), r.bytes, r.objective()};
        },
        mode, options);
    const SweepEntry& best = sweep.entries[sweep.winner];
    Plan plan = makePlan(graph, solver, options, best.checkpoints);
    if (plan.evaluation.objective != best.objective || !plan.evaluation.isISPlan)
        throw std::logic_error(solver.name() + ": the winning plan does not evaluate as found");
    int solved = 0;
    for (const SweepEntry& e : sweep.entries)
        solved += !e.reused;
    plan.notes.push_back(std::to_string(terms.size()) + " max terms C, Alg. 5 run under " + std::to_string(solved) +
                         "; winner C = " + std::to_string(best.c));
    plan.sweep = std::move(sweep);
    return plan;
}

}  // namespace ckpt
