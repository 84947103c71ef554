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
    const auto walkAt = [&search](std::int64_t c) {  // Alg. 5 under C
        TreeCheckpointSearch::Result r = search.solve(c);
        return SweepPoint{std::move(r.checkpoints), r.bytes, r.maxSegment};
    };
    const SolveUnderC solveAt = [&walkAt, &solved](std::int64_t c) {
        ++solved;
        return walkAt(c);
    };
    std::string how;
    Sweep sweep;
    if (modeText == "every") {
        const std::vector<std::int64_t> terms = search.maxTerms();
        sweep = sweepEveryTerm(terms, solveAt, options);
        how = std::to_string(terms.size()) + " max terms C, Alg. 5 run under each";
    } else {
        // The term list narrows the search to real max terms: one value per term on deep trees,
        // where S(C) changes at every term and a search over integers bisects ~18 times for each
        // (rainbow 100k: 0.55 M terms enumerated for 0.25 M vertices and edges; 1.3 s with the
        // list, 1.6-2.0 s without). A longer enumeration costs more to build than it saves (dense
        // blocks 100k: 6.1 M for 1.85 M; 0.64 s with, 0.48 s without), and long Linear runs
        // would make it quadratic. The bound lies between the two.
        CandidateCs candidates;
        candidates.highest = tree.node(tree.root()).segmentCost;
        if (search.maxTermEnumeration() <= 3 * static_cast<std::int64_t>(graph.vertexCount() + graph.edgeCount()))
            candidates.terms = search.maxTerms();
        const TreeSweepValues values(graph, tree, search);
        int valued = 0;
        const bool walk = values.tabulatesNothing();
        const SolveUnderC valueAt = [&values, &valued, &walkAt, walk](std::int64_t c) {
            ++valued;
            return walk ? walkAt(c) : values.at(c);
        };
        sweep = sweepParametric(candidates, valueAt, solveAt, options);
        how = "parametric search over " +
              (candidates.terms.empty() ? "C in [0, " + std::to_string(candidates.highest) + "]"
                                        : std::to_string(candidates.terms.size()) + " max terms C") +
              ": S(C) under " + std::to_string(valued) + " C " +
              (walk ? "by a walk of Alg. 5 each" : "from the tree's step functions") + ", Alg. 5 walked under " +
              std::to_string(solved) + " more of them for the sweep's plans";
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
