#include "solvers/FengAcgSolver.h"

#include "solvers/ForwardGraphCheck.h"
#include "solvers/MaxTermSweep.h"
#include "solvers/TreeCheckpointSearch.h"
#include "solvers/TreeSweepValues.h"
#include "theory/DivisionTree.h"

namespace ckpt {

std::vector<OptionSpec> FengAcgSolver::options() const
{
    return {{"sweep", "steps",
             "steps: parametric search over C, solving only where a better plan can still be (same optimum); "
             "every: run Alg. 5 under every max term C"}};
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

    const DivisionTree tree = DivisionTree::build(graph);
    const TreeCheckpointSearch search(graph, tree);
    int solved = 0;
    const SolveUnderC solveAt = [&search, &solved](std::int64_t c) {
        ++solved;
        TreeCheckpointSearch::Result r = search.solve(c);
        return SweepPoint{std::move(r.checkpoints), r.bytes, r.maxSegment};
    };
    std::string how;
    Sweep sweep;
    if (modeText == "every") {
        const std::vector<std::int64_t> terms = search.maxTerms();
        sweep = sweepEveryTerm(terms, solveAt, options);
        how = std::to_string(terms.size()) + " max terms C, Alg. 5 run under each";
    } else {
        // The term list narrows the search to real max terms (fewer walks on deep trees) where
        // it costs no more than a few walks to build; long Linear runs would make it quadratic.
        CandidateCs candidates;
        candidates.highest = tree.node(tree.root()).segmentCost;
        if (search.maxTermEnumeration() <= 8 * static_cast<std::int64_t>(graph.vertexCount() + graph.edgeCount()))
            candidates.terms = search.maxTerms();
        const TreeSweepValues values(graph, tree, search);
        int valued = 0;
        const bool walk = values.tabulatesNothing();
        const SolveUnderC valueAt = [&values, &valued, &solveAt, walk](std::int64_t c) {
            ++valued;
            return walk ? solveAt(c) : values.at(c);
        };
        sweep = sweepParametric(candidates, valueAt, solveAt, options);
        how = "parametric search over " +
              (candidates.terms.empty() ? "C in [0, " + std::to_string(candidates.highest) + "]"
                                        : std::to_string(candidates.terms.size()) + " max terms C") +
              ": S(C) under " + std::to_string(valued) + " C, Alg. 5 walked under " + std::to_string(solved) +
              " of them for the sweep's plans";
    }
    const SweepEntry& best = sweep.entries[sweep.winner];
    Plan plan = makePlan(graph, solver, options, best.checkpoints);
    if (plan.evaluation.objective != best.objective || !plan.evaluation.isISPlan)
        throw std::logic_error(solver.name() + ": the winning plan does not evaluate as found");
    plan.notes.push_back(how + "; winner C = " + std::to_string(best.c));
    plan.sweep = std::move(sweep);
    return plan;
}

}  // namespace ckpt
