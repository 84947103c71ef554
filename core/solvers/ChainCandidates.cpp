#include "solvers/ChainCandidates.h"


namespace ckpt {

std::string candidateKindPrefix(CandidateKind kind)
{
    switch (kind) {
    case CandidateKind::Chain:
        return "chen";
    case CandidateKind::ArticulationPoints:
        return "ap";
    case CandidateKind::Linearized:
        break;
    }
    return "linearized";
}

std::string candidateKindWhere(CandidateKind kind)
{
    switch (kind) {
    case CandidateKind::Chain:
        return "on a chain (Checkmate Table 1)";
    case CandidateKind::ArticulationPoints:
        return "on the articulation points (Checkmate §5.1.1)";
    case CandidateKind::Linearized:
        break;
    }
    return "on the topological order as a chain (Checkmate §5.1.2)";
}

std::string ChainHeuristicSolver::name() const
{
    return candidateKindPrefix(m_kind) + "-" + m_heuristic;
}

std::string ChainHeuristicSolver::description() const
{
    return m_summary + " " + candidateKindWhere(m_kind);
}

CandidateChain candidateChain(const Graph& graph, CandidateKind kind, const std::string& solverName)
{
    switch (kind) {
    case CandidateKind::Chain:
        if (!graph.isChain())
            throw SolverError(solverName + " needs a chain (every vertex with at most one input and one output); "
                                           "use its ap- or linearized- generalization for this graph");
        return topologicalChain(graph);
    case CandidateKind::ArticulationPoints:
        return articulationChain(graph);
    case CandidateKind::Linearized:
        break;
    }
    return topologicalChain(graph);
}

CandidateChain hongChain(const Graph& graph, std::vector<std::string>& notes)
{
    if (graph.isChain())
        return topologicalChain(graph);
    CandidateChain chain = articulationChain(graph);
    notes.push_back("the graph is not a chain: solved on the chain of its " + std::to_string(chain.size() - 2) +
                    " articulation points, each block between two of them costed as the sum of its tensors "
                    "(an upper bound; the objective shown is evaluate()'s)");
    return chain;
}

std::vector<VertexIndex> chainVertices(const CandidateChain& chain, const std::vector<int>& positions)
{
    std::vector<VertexIndex> out;
    out.reserve(positions.size());
    for (int p : positions)
        out.push_back(chain.vertices[p]);
    return out;
}

}  // namespace ckpt
