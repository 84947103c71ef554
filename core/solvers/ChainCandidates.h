#pragma once
// How the chain heuristics see a graph (Checkmate §5.1): the chain itself, the chain of its
// articulation points (§5.1.1), or its topological order taken as a chain (§5.1.2).
//
// A checkpoint set picked on any of these is made a valid plan by evaluate(): every segment
// (component of non-checkpoint vertices) is re-forwarded once, from all its entry checkpoints,
// before the backward first needs it — Checkmate's "optimal R solve" for a fixed S, since each
// non-checkpoint tensor must be recomputed at least once and is recomputed exactly once.
#include "graph/Graph.h"
#include "solvers/Solver.h"
#include "theory/CandidateChain.h"

#include <string>
#include <vector>

namespace ckpt {

enum class CandidateKind { Chain, ArticulationPoints, Linearized };

// "chen", "ap", "linearized": the prefix of the solver names (chen-sqrtn, ap-greedy, ...).
std::string candidateKindPrefix(CandidateKind kind);
// Where the heuristic runs, with the Checkmate section: "on a chain (Checkmate Table 1)", ...
std::string candidateKindWhere(CandidateKind kind);

// The Chen heuristics and their generalizations: named "<prefix>-<heuristic>" after the kind.
class ChainHeuristicSolver : public Solver {
public:
    std::string name() const override;
    std::string description() const override;

protected:
    ChainHeuristicSolver(CandidateKind kind, std::string heuristic, std::string summary)
        : m_kind(kind), m_heuristic(std::move(heuristic)), m_summary(std::move(summary))
    {
    }
    CandidateKind m_kind;

private:
    std::string m_heuristic, m_summary;
};

// Throws SolverError for CandidateKind::Chain on a graph that is not a chain.
CandidateChain candidateChain(const Graph& graph, CandidateKind kind, const std::string& solverName);
// For the chain algorithms of Hong et al.: the chain itself, or on a DAG the articulation-point
// chain, with a note saying so.
CandidateChain hongChain(const Graph& graph, std::vector<std::string>& notes);
std::vector<VertexIndex> chainVertices(const CandidateChain& chain, const std::vector<int>& positions);

}  // namespace ckpt
