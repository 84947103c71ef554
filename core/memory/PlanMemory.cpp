#include "memory/PlanMemory.h"

#include "memory/MemoryTrace.h"

#include <algorithm>

namespace ckpt {

namespace {

class PlanSimulation {
public:
    PlanSimulation(const Graph& graph, const PlanEvaluation& plan, MemoryModel model, bool recordLive)
        : m_graph(graph), m_plan(plan), m_model(model), m_trace(graph, recordLive),
          m_isCheckpoint(graph.vertexCount(), false), m_segmentOf(graph.vertexCount(), -1),
          m_unsaved(graph.vertexCount(), false),
          m_lastSaverOf(graph.vertexCount())
    {
        for (VertexIndex c : plan.checkpoints)
            m_isCheckpoint[c] = true;
        for (std::size_t s = 0; s < plan.segments.size(); ++s)
            for (VertexIndex v : plan.segments[s].vertices)
                m_segmentOf[v] = static_cast<int>(s);
        if (model == MemoryModel::PyTorch)
            findSavers();
    }

    MemoryProfile run()
    {
        const auto& topo = m_graph.topologicalOrder();
        const int n = m_graph.vertexCount() - 1;
        m_trace.beginPhase(0);
        m_trace.allocValue(topo[0]);
        forward(topo);
        for (int k = n; k >= 1; --k) {
            m_trace.beginPhase(2 * n + 1 - k);
            backward(topo[k]);
        }
        m_trace.beginPhase(2 * n + 1);
        afterTraining();
        return m_trace.finish(m_model);
    }

private:
    void forward(const std::vector<VertexIndex>& topo)
    {
        std::vector<int> consumersLeft(m_graph.vertexCount());
        for (VertexIndex v = 0; v < m_graph.vertexCount(); ++v)
            consumersLeft[v] = static_cast<int>(m_graph.successors(v).size());
        for (std::size_t k = 1; k < topo.size(); ++k) {
            m_trace.beginPhase(static_cast<int>(k));
            const VertexIndex v = topo[k];
            m_trace.allocValue(v);
            // P6: only regular training (nothing to recompute) records autograd in the forward.
            if (m_plan.segments.empty())
                allocSaved(v);
            forwardWorkspace(v);
            // P7: in regular training a tensor no backward keeps goes with its last consumer.
            for (VertexIndex u : m_graph.predecessors(v))
                if (--consumersLeft[u] == 0 && (!m_isCheckpoint[u] || (m_unsaved[u] && heldByAutograd(u))))
                    m_trace.freeValue(u);
        }
    }

    // P7: the backward phase after which autograd no longer keeps each tensor — that of its
    // topologically first saver (`Vertex::savedBy`), the last of them the backward runs.
    void findSavers()
    {
        for (VertexIndex u = 0; u < m_graph.vertexCount(); ++u) {
            const auto& savers = m_graph.vertex(u).savedBy;
            if (!savers)
                continue;
            if (savers->empty()) {
                m_unsaved[u] = true;
                continue;
            }
            VertexIndex first = -1;
            for (const std::string& id : *savers)
                if (auto w = m_graph.find(id); w && (first < 0 || m_graph.topologicalPosition(*w) < m_graph.topologicalPosition(first)))
                    first = *w;
            if (first >= 0)
                m_lastSaverOf[first].push_back(u);
        }
    }

    // P7 applies to the tensors only autograd holds: in regular training every tensor but the
    // input and the output (the training loop keeps those). With recomputation each vertex's
    // backward is its own phase, so the checkpointing keeps every tensor until then (P1).
    bool heldByAutograd(VertexIndex u) const
    {
        return m_plan.segments.empty() && u != m_graph.source() && u != m_graph.sink();
    }

    // Re-forwards, whole and in topological order, every segment holding a tensor the backward
    // of v needs (v and its inputs) that is not live; returns the segments re-forwarded.
    std::vector<int> reforwardNeeded(VertexIndex v)
    {
        std::vector<int> done;
        auto need = [&](VertexIndex u) {
            if (m_trace.hasValue(u) || m_segmentOf[u] < 0)
                return;
            const int s = m_segmentOf[u];
            for (VertexIndex w : m_plan.segments[s].vertices) {
                m_trace.allocValue(w);
                allocSaved(w);
                forwardWorkspace(w);
            }
            done.push_back(s);
        };
        need(v);
        for (VertexIndex u : m_graph.predecessors(v))
            need(u);
        return done;
    }

    void backward(VertexIndex v)
    {
        if (m_model == MemoryModel::Chen) {
            reforwardNeeded(v);
            const int s = m_segmentOf[v];
            if (s >= 0 && m_plan.segments[s].vertices.front() == v)
                for (VertexIndex w : m_plan.segments[s].vertices)
                    m_trace.freeValue(w);
            return;
        }
        // Alg. 4 lists the release of the previous buffer after the recomputation, but Eq. 9
        // (which Table 2 confirms) never counts both buffers, so it is released first.
        if (m_isCheckpoint[v])
            m_trace.freeBuffer();
        const std::vector<int> reforwarded = reforwardNeeded(v);
        if (m_isCheckpoint[v]) {
            std::int64_t largest = 0;
            for (VertexIndex u : m_graph.predecessors(v))
                largest = std::max(largest, m_graph.bytes(u));
            for (int s : reforwarded) {
                for (VertexIndex w : m_plan.segments[s].vertices)
                    largest = std::max(largest, m_graph.bytes(w));
                for (VertexIndex w : m_plan.segments[s].entries)
                    largest = std::max(largest, m_graph.bytes(w));
            }
            m_trace.allocBuffer(largest);
            // With recomputation the checkpoint itself is recomputed (with autograd) here.
            if (!m_plan.segments.empty() && v != m_graph.source())
                forwardWorkspace(v);
        }
        for (VertexIndex u : m_graph.predecessors(v))
            if (u != m_graph.source() && m_graph.successors(u).size() > 1 && !m_trace.hasGradient(u))
                m_trace.allocGradient(u);
        if (m_graph.vertex(v).parameterBytes > 0)
            m_trace.allocParameterGradient(v);
        // P8: the backward's scratch memory on top of everything it reads and forms.
        m_trace.touchWorkspace(v, m_graph.vertex(v).backwardWorkspaceBytes);
        m_trace.freeValue(v);
        m_trace.freeGradient(v);
        m_trace.freeSaved(v);
        for (VertexIndex u : m_lastSaverOf[v])
            if (heldByAutograd(u))
                m_trace.freeValue(u);
    }

    void allocSaved(VertexIndex v)
    {
        if (m_model == MemoryModel::PyTorch && m_graph.vertex(v).savedBytes > 0)
            m_trace.allocSaved(v);
    }

    // P8: the forward's scratch memory, right after its output (and saved extras) exist.
    void forwardWorkspace(VertexIndex v)
    {
        if (m_model == MemoryModel::PyTorch)
            m_trace.touchWorkspace(v, m_graph.vertex(v).forwardWorkspaceBytes);
    }

    void afterTraining()
    {
        for (VertexIndex v = 0; v < m_graph.vertexCount(); ++v)
            if (v != m_graph.source())
                m_trace.freeValue(v);
        m_trace.freeBuffer();
    }

    const Graph& m_graph;
    const PlanEvaluation& m_plan;
    const MemoryModel m_model;
    MemoryTrace m_trace;
    std::vector<bool> m_isCheckpoint;
    std::vector<int> m_segmentOf;
    std::vector<bool> m_unsaved;                     // savedBy known and empty (P7)
    std::vector<std::vector<VertexIndex>> m_lastSaverOf;  // per vertex: tensors P7 frees after its backward
};

}  // namespace

MemoryProfile simulatePlanMemory(const Graph& graph, const PlanEvaluation& plan, MemoryModel model,
                                 bool recordLive)
{
    return PlanSimulation(graph, plan, model, recordLive).run();
}

}  // namespace ckpt
