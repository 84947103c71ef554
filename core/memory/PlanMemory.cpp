#include "memory/PlanMemory.h"

#include "graph/GradientFlow.h"
#include "theory/CheckpointFunctions.h"
#include "memory/MemoryTrace.h"

#include <algorithm>
#include <map>
#include <optional>

namespace ckpt {

namespace {

// Per vertex, the vertices in its `savedBy` (ids the graph does not have are left out): resolved once
// per simulation for P7, P9 and P32, which each walk them.
std::vector<std::vector<VertexIndex>> resolvedSavers(const Graph& graph)
{
    std::vector<std::vector<VertexIndex>> savers(graph.vertexCount());
    for (VertexIndex u = 0; u < graph.vertexCount(); ++u)
        if (const auto& ids = graph.vertex(u).autograd->savedBy)
            for (const std::string& id : *ids)
                if (auto w = graph.find(id))
                    savers[u].push_back(*w);
    return savers;
}

// P52: one of a vertex's tensors read or saved apart, its readers and savers resolved.
struct ResolvedTensor {
    std::int64_t bytes = 0;
    std::vector<VertexIndex> readers, savers;
};

// Which measure of a backward's scratch memory counts (P8, P14, P48): its saved inputs held through it,
// freed as autograd frees them, or the exporter's named ones held and the others freed.
enum class BackwardMeasure { Held, Released, PartlyReleased };

class PlanSimulation {
public:
    PlanSimulation(const Graph& graph, const PlanEvaluation& plan, MemoryModel model, bool recordLive,
                   CudaCachingAllocator* allocator)
        : m_graph(graph), m_model(model),
          m_checkpointFunctions(model == MemoryModel::PyTorch && runsCheckpointFunctions(graph)),
          m_applied(m_checkpointFunctions && !plan.segments.empty() ? std::optional<AppliedPlan>(applyPlan(graph, plan))
                                                                     : std::nullopt),
          m_plan(m_applied ? m_applied->functions : plan), m_trace(graph, recordLive),
          m_isCheckpoint(graph.vertexCount(), false), m_segmentOf(graph.vertexCount(), -1),
          m_memberIndex(graph.vertexCount(), -1), m_reforwarded(m_plan.segments.size(), false),
          m_unsaved(graph.vertexCount(), false),
          m_lastSaverOf(graph.vertexCount()), m_copiesReleasedBy(graph.vertexCount()),
          m_saversOf(model == MemoryModel::PyTorch ? resolvedSavers(graph) : std::vector<std::vector<VertexIndex>>{}),
          m_earlyStop(m_checkpointFunctions && stopsReforwardsEarly(graph)),
          m_rootedExecutor(model == MemoryModel::PyTorch && runsRootedExecutor(graph)),
          m_engineAddsInPlace(graph.metadataIs("engine_adds_gradients_in_place", "true")),
          m_rngStateBytes(m_checkpointFunctions ? graph.metadataBytes("checkpoint_rng_state_bytes") : 0),
          m_accumulates(model == MemoryModel::PyTorch && stepAccumulatesGradients(graph)),
          m_savesOwnOutput(graph.vertexCount(), false), m_saves(graph.vertexCount(), false),
          m_sharersOf(graph.vertexCount()), m_holderOf(graph.vertexCount(), -1), m_sliceOf(graph.vertexCount(), -1),
          m_slicesLeft(graph.vertexCount(), 0), m_sliceTarget(graph.vertexCount(), -1),
          m_staticSliceOf(graph.vertexCount(), -1),
          m_order(m_applied ? m_applied->order : graph.topologicalOrder()),
          m_runAt(graph.vertexCount()), m_tensorsOf(graph.vertexCount()), m_tensorUnsaved(graph.vertexCount()),
          m_tensorReleased(graph.vertexCount()), m_tensorReadersLeft(graph.vertexCount()),
          m_tensorsReleasedBy(graph.vertexCount()), m_staticGradientsUntil(graph.vertexCount()),
          m_backwardDone(graph.vertexCount(), false)
    {
        for (std::size_t k = 0; k < m_order.size(); ++k)
            m_runAt[m_order[k]] = static_cast<int>(k);
        m_trace.countBlocksOf(allocator);
        for (VertexIndex c : m_plan.checkpoints)
            m_isCheckpoint[c] = true;
        for (std::size_t s = 0; s < m_plan.segments.size(); ++s)
            for (std::size_t i = 0; i < m_plan.segments[s].vertices.size(); ++i) {
                m_segmentOf[m_plan.segments[s].vertices[i]] = static_cast<int>(s);
                m_memberIndex[m_plan.segments[s].vertices[i]] = static_cast<int>(i);
            }
        if (m_checkpointFunctions)
            findTriggers();
        if (m_rngStateBytes > 0)
            findRngStates();
        if (m_checkpointFunctions)
            resolveTensors();
        if (model == MemoryModel::PyTorch)
            findSavers();
        for (VertexIndex v = 0; v < graph.vertexCount(); ++v)
            if (const AutogradFacts& f = *graph.vertex(v).autograd;
                (f.staticGradientBytes > 0 || f.slicesGradientToStatics) && !f.staticGradientUntil.empty())
                m_staticGradientsUntil[*graph.find(f.staticGradientUntil)].push_back(v);
        m_staticValueMadeAt.assign(graph.vertexCount(), {});
        m_staticValueCopyBytes.assign(graph.vertexCount(), 0);
        m_remadeSaved.assign(graph.vertexCount(), 0);
        m_makesStaticCopy.assign(graph.vertexCount(), false);
        m_staticValueFreedAt.assign(graph.vertexCount(), {});
        if (model == MemoryModel::PyTorch)
            findStaticValueHolds();
        if (m_accumulates) {
            m_tiedGradientsUntil.resize(graph.vertexCount());
            for (VertexIndex v = 0; v < graph.vertexCount(); ++v)
                if (const AutogradFacts& f = *graph.vertex(v).autograd; f.tiedParameterBytes > 0 && !f.tiedParameterUntil.empty())
                    m_tiedGradientsUntil[*graph.find(f.tiedParameterUntil)].push_back(v);
        }
        m_beginsSumOf.assign(graph.vertexCount(), -1);
        m_sumBegunBy.assign(graph.vertexCount(), -1);
        if (m_checkpointFunctions)
            findWeightGradientSums();
    }

    // Each vertex's phases keep their topological indices (Phases in MEMORY-MODEL.md) while the
    // vertices run in apply_plan's order (P18), the backward in the reverse of it: autograd's engine
    // runs, of the nodes ready, the one made last.
    MemoryProfile run()
    {
        const int n = m_graph.vertexCount() - 1;
        m_trace.beginPhase(0);
        allocValue(m_order[0]);
        // P21: every input of a step that several are given (a virtual source joins them) exists before it.
        if (m_model == MemoryModel::PyTorch && m_graph.vertex(m_graph.source()).isVirtual)
            for (VertexIndex v : m_graph.successors(m_graph.source()))
                allocValue(v);
        forward();
        if (m_checkpointFunctions && !heldAsLoss(m_graph.sink()))
            lossBackward();
        for (auto it = m_order.rbegin(); it + 1 != m_order.rend(); ++it) {
            // P21: an input has no backward. Its phase, filled in by index, reads as the profilers list
            // a phase nothing happened in; begun in its turn, it read as the step's end, which the
            // backwards of a plan run out of order (P18) had not reached at the phase before it.
            if (heldByStep(*it))
                continue;
            // P51: nor has a tensor autograd does not track (P19). Its phase is one a profile marks
            // empty, ending with the gradient of the nearest vertex before it that gets one; begun in
            // its turn, it read as the middle of the backward where a plan's order (P18) ran it among
            // later vertices (a Transformer-XL's memory, computed without gradient, read by the next
            // segment's layers).
            if (tracked(*it))
                m_trace.beginPhase(2 * n + 1 - m_graph.topologicalPosition(*it));
            backward(*it);
        }
        releaseStaticGradients();
        m_trace.beginPhase(2 * n + 1);
        afterTraining();
        return m_trace.finish(m_model, 2 * n + 2);
    }

private:
    void forward()
    {
        std::vector<int> consumersLeft(m_graph.vertexCount());
        for (VertexIndex v = 0; v < m_graph.vertexCount(); ++v)
            consumersLeft[v] = static_cast<int>(m_graph.successors(v).size());
        for (std::size_t k = 1; k < m_order.size(); ++k) {
            const VertexIndex v = m_order[k];
            m_trace.beginPhase(m_graph.topologicalPosition(v));
            if (k == 1)  // the step starts with the function: phase 0 is before it
                stashRngStateBefore(k);
            const int function = m_checkpointFunctions ? m_functionOf[v] : -1;
            if (!heldByStep(v))
                allocValue(v);
            const bool inFunction = function >= 0;
            if (savesInItsForward(v))
                allocSaved(v);
            // P66: ckptx-torch's checkpointed step runs its whole forward without grad, as a function does.
            if (inFunction || rootedPlanStep())
                checkpointedForwardWorkspace(v);
            else
                forwardWorkspace(v);
            for (const auto& [u, bytes] : m_staticValueMadeAt[v])
                changeStaticValueCopies(u, bytes);
            for (const auto& [u, bytes] : m_staticValueFreedAt[v])
                changeStaticValueCopies(u, bytes);
            // P7: in regular training a tensor no backward keeps goes with its last consumer; P52: so
            // does one of a vertex's tensors, read apart.
            for (VertexIndex u : m_graph.predecessors(v)) {
                if (--consumersLeft[u] == 0 && goesWithLastReader(u, m_unsaved[u]))
                    m_trace.freeValue(u);
                for (std::size_t k = 0; k < m_tensorsOf[u].size(); ++k)
                    if (reads(v, m_tensorsOf[u][k]) && --m_tensorReadersLeft[u][k] == 0 &&
                        goesWithLastReader(u, m_tensorUnsaved[u][k]))
                        releaseTensor(u, k);
            }
            if (m_rngStateBytes > 0 && inFunction && m_rngLast[function] == v && rngHolder(function) < 0)
                m_trace.freeRngState(m_rngKey[function]);  // P22: nothing saved holds it
            stashRngStateBefore(k + 1);
        }
    }

    // P7 in the forward: what a (no-grad) function computes goes with its last reader there, and so
    // does what nothing holds in regular training (`unsaved`: the value's, or one tensor's, P52).
    bool goesWithLastReader(VertexIndex u, bool unsaved) const
    {
        return !heldByStep(u) && (!m_isCheckpoint[u] || (unsaved && heldByAutograd(u)));
    }

    // P44: the statics v reads first and later vertices read too. apply_plan makes one copy for the
    // readers that run plainly and one in each checkpointed function, each just before the first of
    // its readers, and lets it go after the last of them; inside the first one's forward its measured
    // workspace counts it (P20), after it the copy is held. A copy with one reader outlives no phase.
    // What v's own backward keeps of the plain copy its saved extras count while v runs plainly; what
    // another group's first reader keeps of its copy, its own (P47, P49).
    void findStaticValueHolds()
    {
        for (VertexIndex v = 0; v < m_graph.vertexCount(); ++v)
            for (const StaticValue& value : m_graph.vertex(v).autograd->staticValues)
                if (value.bytes > 0)
                    findCopies(v, value);
    }

    void findCopies(VertexIndex v, const StaticValue& value)
    {
        std::map<int, std::pair<VertexIndex, VertexIndex>> groups;  // function (-1: plain) -> first, last
        auto reader = [&](VertexIndex w) {
            const int group = m_checkpointFunctions ? m_functionOf[w] : -1;
            auto& [first, last] = groups.try_emplace(group, w, w).first->second;
            if (m_runAt[w] < m_runAt[first])
                first = w;
            if (m_runAt[w] > m_runAt[last])
                last = w;
        };
        reader(v);
        for (const std::string& id : value.readers)
            reader(*m_graph.find(id));
        for (const auto& [function, readers] : groups) {
            // P47: a plain first reader after v, which runs in a function, makes the statics again and
            // keeps what they save, and what it saves of the values (as v would), to its backward; so
            // does the first reader in another function, in its re-forward (P49), and its forward makes
            // them too, saving nothing.
            const bool remadeByPlainReader = function < 0 && readers.first != v && savesInItsForward(readers.first);
            const bool copiedByFunction = function >= 0 && readers.first != v;
            if (copiedByFunction)
                m_makesStaticCopy[readers.first] = true;
            if (remadeByPlainReader || copiedByFunction)
                m_remadeSaved[readers.first] += value.remadeSavedBytes + value.savedBytes;
            const bool savedByV = function < 0 && readers.first == v && savesInItsForward(v);
            const std::int64_t bytes = value.bytes - (savedByV || remadeByPlainReader ? value.savedBytes : 0);
            if (readers.first != readers.second && bytes > 0) {
                m_staticValueMadeAt[readers.first].emplace_back(v, bytes);
                m_staticValueFreedAt[readers.second].emplace_back(v, -bytes);
            }
        }
    }

    // P6: only regular training (nothing to recompute) records autograd in the forward, and under
    // apply_plan every vertex computed outside the checkpointed functions (P12).
    // P13: ckptx-torch's executor runs this step (a plan that recomputes; its regular step is the engine's).
    bool rootedPlanStep() const { return m_rootedExecutor && !m_plan.segments.empty(); }
    bool rootedRegularStep() const { return m_rootedExecutor && m_plan.segments.empty(); }

    bool savesInItsForward(VertexIndex v) const
    {
        return m_plan.segments.empty() || (m_checkpointFunctions && m_functionOf[v] < 0);
    }

    // P44: a copy of v's statics made (bytes > 0) or let go.
    void changeStaticValueCopies(VertexIndex v, std::int64_t bytes)
    {
        m_staticValueCopyBytes[v] += bytes;
        if (m_trace.hasStaticValue(v))
            m_trace.freeStaticValue(v);
        if (m_staticValueCopyBytes[v] > 0)
            m_trace.allocStaticValue(v, m_staticValueCopyBytes[v]);
    }

    // P22: a function stashes the state before its first vertex runs, in the phase before (the
    // previous vertex's, after its frees).
    void stashRngStateBefore(std::size_t k)
    {
        if (m_rngStateBytes <= 0 || k >= m_order.size())
            return;
        const VertexIndex next = m_order[k];
        const int function = m_functionOf[next];
        if (function >= 0 && m_rngKey[function] == next)
            m_trace.allocRngState(next, m_rngStateBytes);
    }

    // P22: each checkpointed function stashes the CPU random-number state before its first vertex
    // runs (the phase before that vertex's ends with it, but for the step's first); the hooks of the
    // tensors it saves hold it (torch.utils.checkpoint's unpack closure), so it goes with the
    // backward of the function's first member that saved (P12's release) — at the end of the
    // function's forward where none did, at its trigger's backward where savers are unknown (P9).
    void findRngStates()
    {
        const std::size_t functions = m_plan.segments.size();
        m_rngKey.assign(functions, -1);
        m_rngLast.assign(functions, -1);
        m_rngReleasedBy.assign(m_graph.vertexCount(), {});
        for (std::size_t s = 0; s < functions; ++s) {
            for (const auto* part : {&m_plan.segments[s].vertices, &m_plan.segments[s].exits})
                for (VertexIndex w : *part) {
                    if (m_rngKey[s] < 0 || m_runAt[w] < m_runAt[m_rngKey[s]])
                        m_rngKey[s] = w;
                    if (m_rngLast[s] < 0 || m_runAt[w] > m_runAt[m_rngLast[s]])
                        m_rngLast[s] = w;
                }
            if (const VertexIndex holder = rngHolder(static_cast<int>(s)); holder >= 0)
                m_rngReleasedBy[holder].push_back(static_cast<int>(s));
        }
    }

    // P22: whose backward frees function s's state, -1 where nothing it saved holds it.
    VertexIndex rngHolder(int s) const { return m_release[s] >= 0 ? m_release[s] : m_trigger[s]; }

    // P7: the backward phase after which autograd no longer keeps each tensor — that of its
    // first holder to run (P18), the last of them the backward runs: a vertex whose backward saved
    // it (`Vertex::savedBy`). P12: a checkpoint that checkpointed functions run beside (P9) is held
    // by the savers computed outside every function (one inside packs it as a placeholder) and by
    // each function it enters until that function's first member that saved anything has run its
    // backward (the re-forward reads it until then); with no holder it goes in the forward.
    void findSavers()
    {
        std::vector<std::vector<int>> entered(m_graph.vertexCount());
        for (std::size_t s = 0; m_checkpointFunctions && s < m_plan.segments.size(); ++s)
            for (VertexIndex c : m_plan.segments[s].entries)
                entered[c].push_back(static_cast<int>(s));
        for (VertexIndex u = 0; u < m_graph.vertexCount(); ++u) {
            const auto& savers = m_graph.vertex(u).autograd->savedBy;
            if (!savers)
                continue;
            const bool besideFunctions = m_checkpointFunctions && m_isCheckpoint[u] && !m_plan.segments.empty();
            VertexIndex first = -1;
            auto holder = [&](VertexIndex w) {
                if (first < 0 || m_runAt[w] < m_runAt[first])
                    first = w;
            };
            for (VertexIndex w : m_saversOf[u])
                if (!besideFunctions || m_functionOf[w] < 0)
                    holder(w);
            for (int s : entered[u])
                if (m_release[s] >= 0)
                    holder(m_release[s]);
            if (first >= 0)
                m_lastSaverOf[first].push_back(u);
            else
                m_unsaved[u] = true;
            // P52: each tensor read or saved apart has holders of its own among them: its savers, and
            // the functions its readers run in. One that outlives none of them goes before the rest.
            for (std::size_t k = 0; k < m_tensorsOf[u].size() && first >= 0; ++k) {
                const ResolvedTensor& tensor = m_tensorsOf[u][k];
                VertexIndex firstOfTensor = -1;
                auto tensorHolder = [&](VertexIndex w) {
                    if (firstOfTensor < 0 || m_runAt[w] < m_runAt[firstOfTensor])
                        firstOfTensor = w;
                };
                for (VertexIndex w : tensor.savers)
                    if (!besideFunctions || m_functionOf[w] < 0)
                        tensorHolder(w);
                for (int s : entered[u])
                    if (m_release[s] >= 0 && std::any_of(tensor.readers.begin(), tensor.readers.end(),
                                                         [&](VertexIndex r) { return m_functionOf[r] == s; }))
                        tensorHolder(m_release[s]);
                if (firstOfTensor < 0)
                    m_tensorUnsaved[u][k] = true;
                else if (firstOfTensor != first)
                    m_tensorsReleasedBy[firstOfTensor].emplace_back(u, static_cast<int>(k));
            }
        }
    }

    // P52 (a Python export): the tensors of each vertex read or saved apart, resolved once.
    void resolveTensors()
    {
        for (VertexIndex u = 0; u < m_graph.vertexCount(); ++u) {
            for (const OutputTensor& tensor : m_graph.vertex(u).autograd->tensors) {
                ResolvedTensor resolved{tensor.bytes, {}, {}};
                for (const std::string& id : tensor.readBy)
                    resolved.readers.push_back(*m_graph.find(id));
                for (const std::string& id : tensor.savedBy)
                    resolved.savers.push_back(*m_graph.find(id));
                m_tensorsOf[u].push_back(std::move(resolved));
            }
            m_tensorUnsaved[u].assign(m_tensorsOf[u].size(), false);
            m_tensorReleased[u].assign(m_tensorsOf[u].size(), false);
            m_tensorReadersLeft[u] = readersPerTensor(u);
        }
    }

    std::vector<int> readersPerTensor(VertexIndex u) const
    {
        std::vector<int> counts;
        for (const ResolvedTensor& tensor : m_tensorsOf[u])
            counts.push_back(static_cast<int>(tensor.readers.size()));
        return counts;
    }

    static bool reads(VertexIndex reader, const ResolvedTensor& tensor)
    {
        return std::find(tensor.readers.begin(), tensor.readers.end(), reader) != tensor.readers.end();
    }

    // P52: one of u's tensors goes while the others stay; once per value computed.
    void releaseTensor(VertexIndex u, std::size_t k)
    {
        if (!m_trace.hasValue(u) || m_tensorReleased[u][k])
            return;
        m_tensorReleased[u][k] = true;
        m_trace.releaseApart(u, m_tensorsOf[u][k].bytes);
    }

    // Every value the simulation computes, with all its tensors (P52).
    void allocValue(VertexIndex v)
    {
        m_trace.allocValue(v);
        std::fill(m_tensorReleased[v].begin(), m_tensorReleased[v].end(), false);
    }

    // P7 applies to the tensors only autograd holds: in regular training every tensor but the
    // input and the output (the training loop keeps those). With recomputation by ckptx-torch each
    // vertex's backward is its own phase, so the checkpointing keeps every tensor until then (P1);
    // under torch.utils.checkpoint functions (P9, P12) only autograd and the functions hold any.
    bool heldByAutograd(VertexIndex u) const
    {
        if (heldByStep(u) || u == m_graph.sink())
            return false;
        return m_plan.segments.empty() || m_checkpointFunctions;
    }

    // The training loop holds the input, and under the pytorch model every input of a step given
    // several (P21): none is freed, recomputed or given a gradient.
    bool heldByStep(VertexIndex u) const
    {
        return u == m_graph.source() || (m_model == MemoryModel::PyTorch && m_graph.isInput(u));
    }

    // P38: the loss the model returns (a Python export's sink of no dimension) is the training
    // loop's `loss`, held through `loss.backward()`; torch 1.13's mse_loss returns it as a view of its
    // elementwise buffer, so it holds all of that.
    bool heldAsLoss(VertexIndex v) const
    {
        const Vertex& vertex = m_graph.vertex(v);
        return m_checkpointFunctions && v == m_graph.sink() && !vertex.isVirtual && vertex.shape && vertex.shape->empty();
    }

    // Re-forwards, whole and in topological order, every segment holding a tensor the backward
    // of v needs (v and its inputs) that is not live; returns the segments re-forwarded.
    std::vector<int> reforwardNeeded(VertexIndex v)
    {
        std::vector<int> done;
        auto need = [&](VertexIndex u) {
            if (m_trace.hasValue(u) || m_segmentOf[u] < 0)
                return;
            reforward(m_segmentOf[u]);
            done.push_back(m_segmentOf[u]);
        };
        if (m_checkpointFunctions) {
            // P9: a checkpointed function is re-forwarded once, when the first backward that
            // unpacks one of its saved tensors runs; what it dropped no backward needs.
            for (int s : m_triggeredBy[v])
                if (!m_reforwarded[s]) {
                    m_reforwarded[s] = true;
                    reforward(s);
                    done.push_back(s);
                }
            return done;
        }
        need(v);
        for (VertexIndex u : m_graph.predecessors(v))
            need(u);
        return done;
    }

    void reforward(int s)
    {
        const auto& segment = m_plan.segments[s];
        if (!m_checkpointFunctions) {
            for (VertexIndex w : segment.vertices) {
                if (heldByStep(w))
                    continue;
                allocValue(w);
                allocSaved(w);
                forwardWorkspace(w);
            }
            return;
        }
        std::vector<int> consumersLeft;
        for (VertexIndex w : segment.vertices)
            consumersLeft.push_back(static_cast<int>(m_graph.successors(w).size()));
        std::vector<std::vector<int>> tensorReadersLeft;  // P52
        for (VertexIndex w : segment.vertices)
            tensorReadersLeft.push_back(readersPerTensor(w));
        auto consumed = [&](VertexIndex p, VertexIndex reader) {
            if (m_segmentOf[p] != s)
                return;
            if (m_unsaved[p] && --consumersLeft[m_memberIndex[p]] == 0)
                m_trace.freeValue(p);
            for (std::size_t k = 0; k < m_tensorsOf[p].size(); ++k)
                if (reads(reader, m_tensorsOf[p][k]) && --tensorReadersLeft[m_memberIndex[p]][k] == 0 &&
                    m_tensorUnsaved[p][k])
                    releaseTensor(p, k);
        };
        // P9: the function runs again as a whole, its exits at their places among the members; an
        // exit is a second copy of a tensor already kept, dropped when the re-forward returns
        // unless a backward still to run saved it there (P32). With early stop (torch 2.x) the run
        // ends at the pack of the last saved tensor: inputs are packed before their operation runs,
        // outputs after.
        std::vector<VertexIndex> order = segment.vertices;
        order.insert(order.end(), segment.exits.begin(), segment.exits.end());
        std::sort(order.begin(), order.end(), [this](VertexIndex a, VertexIndex b) {
            return m_graph.topologicalPosition(a) < m_graph.topologicalPosition(b);
        });
        const VertexIndex trigger = m_trigger[s];
        const int last = m_graph.topologicalPosition(trigger);
        std::vector<VertexIndex> copies;
        if (m_rngStateBytes > 0)  // P22: fork_rng keeps the backward's own state while it runs
            m_trace.allocRngFork(m_rngStateBytes);
        for (VertexIndex w : order) {
            const int position = m_graph.topologicalPosition(w);
            if (m_earlyStop && (position > last || (w == trigger && !savesAfterRunning(w))))
                break;
            if (m_segmentOf[w] == s) {
                allocValue(w);
            } else if (!m_trace.hasCopy(w)) {  // segments sharing an exit run as one function
                m_trace.allocCopy(w);
                copies.push_back(w);
            }
            if (position <= last)
                allocSaved(w);
            forwardWorkspace(w);
            for (VertexIndex p : m_graph.predecessors(w))
                consumed(p, w);
        }
        m_trace.freeRngFork();
        for (VertexIndex e : copies) {
            const VertexIndex holder = copyHolder(s, e, last);
            if (holder < 0)
                m_trace.freeCopy(e);
            else if (holder != e)  // e's own backward frees a copy it saved itself
                m_copiesReleasedBy[holder].push_back(e);
        }
    }

    // P32: the checkpoint's storage keeps what the re-forward packed for a backward that has not
    // run, so the copy of exit e lives until the last backward to run of the function's vertices
    // that saved it there (computed up to the trigger); -1 where none did.
    VertexIndex copyHolder(int s, VertexIndex e, int last) const
    {
        VertexIndex holder = -1;
        for (VertexIndex w : m_saversOf[e])
            if (m_functionOf[w] == s && m_graph.topologicalPosition(w) <= last
                && (holder < 0 || m_runAt[w] < m_runAt[holder]))
                holder = w;
        return holder;
    }

    // What w's backward saves of its own run: its output, or extras such as a dropout mask.
    bool savesAfterRunning(VertexIndex w) const
    {
        return m_savesOwnOutput[w] || m_graph.vertex(w).autograd->savedBytes > 0;
    }

    // P9: the vertex whose backward re-forwards each function — the topologically last of its
    // members and exits whose backward unpacks a tensor saved in the function (it saves an input,
    // its output or extras); the last exit when the graph does not say. A function that saved
    // nothing is never re-forwarded. P12: the topologically first of them releases the function.
    void findTriggers()
    {
        bool known = true;
        for (VertexIndex u = 0; u < m_graph.vertexCount(); ++u) {
            const Vertex& vertex = m_graph.vertex(u);
            known = known && (vertex.autograd->savedBy.has_value() || u == m_graph.source() || vertex.isVirtual);
            for (VertexIndex w : m_saversOf[u]) {
                m_saves[w] = true;
                m_savesOwnOutput[u] = m_savesOwnOutput[u] || w == u;
            }
            m_saves[u] = m_saves[u] || vertex.autograd->savedBytes > 0 || vertex.autograd->savesOther;
        }
        m_triggeredBy.assign(m_graph.vertexCount(), {});
        m_trigger.assign(m_plan.segments.size(), -1);
        m_release.assign(m_plan.segments.size(), -1);
        m_functionOf.assign(m_graph.vertexCount(), -1);
        for (std::size_t s = 0; s < m_plan.segments.size(); ++s) {
            const auto& segment = m_plan.segments[s];
            VertexIndex first = -1, last = -1;
            for (const auto* part : {&segment.vertices, &segment.exits})
                for (VertexIndex w : *part) {
                    m_functionOf[w] = static_cast<int>(s);
                    if (!m_saves[w])
                        continue;
                    if (first < 0 || m_graph.topologicalPosition(w) < m_graph.topologicalPosition(first))
                        first = w;
                    if (last < 0 || m_graph.topologicalPosition(w) > m_graph.topologicalPosition(last))
                        last = w;
                }
            if (!known)
                last = segment.exits.back();
            if (last < 0)
                continue;
            m_triggeredBy[last].push_back(static_cast<int>(s));
            m_trigger[s] = last;
            m_release[s] = known ? first : -1;
        }
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
        if (heldByStep(v))  // P21: nothing computes an input, so it has no backward
            return;
        if (m_checkpointFunctions || m_rootedExecutor) {
            ownGradientsBackward(v);
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
            if (!m_plan.segments.empty())
                forwardWorkspace(v);
        }
        for (VertexIndex u : m_graph.predecessors(v))
            if (!heldByStep(u) && m_graph.successors(u).size() > 1 && !m_trace.hasGradient(u))
                m_trace.allocGradient(u);
        weightGradients(v);
        // P8: the backward's scratch memory on top of everything it reads and forms.
        m_trace.touchWorkspace(v, m_graph.vertex(v).autograd->backwardWorkspaceBytes);
        endBackward(v);
    }

    // P10: the loss reads the output and its backward forms the output's gradient before the output's
    // own backward starts, in the last forward phase as the profilers mark it (a phase begins when its
    // vertex's gradient is complete). What the loss function keeps is not the model's, so the output
    // goes then, unless its own operation holds it (P41: a final sigmoid, tanh or softmax saved it
    // outside every checkpointed function; inside one the hooks packed none). Not where the output is
    // the loss the model returns (P38): its backward is its own phase, whose gradient is the model's.
    void lossBackward()
    {
        const VertexIndex sink = m_graph.sink();
        if (!m_graph.vertex(sink).autograd->savedBy || m_unsaved[sink])
            m_trace.freeValue(sink);
        m_trace.allocGradient(sink);
    }

    // P10, P13: each gradient is a tensor of its own instead of Hong's buffer: the output's from the
    // loss, each input's from the first backward that forms it, each until the end of its tensor's
    // own backward. P10, a step autograd's engine runs (a Python export): within v's backward, in
    // the order measured traces show, v's own saved output goes (P16: unless the workspace counted
    // saw it go), v's weight gradients come, the scratch memory (P8) peaks with v's gradient live,
    // then what the backward frees goes and the inputs' gradients are formed (P16). P13,
    // ckptx-torch's checkpointed step: it back-propagates each vertex from a root of its own, holding
    // v's gradient until that backward returns; a checkpoint is recomputed with autograd first, and
    // the inputs' gradients it forms (new or added into existing ones) peak beside the workspace,
    // which its importer measures without the gradients a backward leaves (the Python exporter's
    // measure holds them).
    void ownGradientsBackward(VertexIndex v)
    {
        // P13: ckptx-torch drops a checkpoint's stored tensor before it re-forwards what the
        // checkpoint's backward needs, then recomputes the checkpoint with autograd, which saves its
        // extras again (P6: an in-place ReLU6's copy of its input, max-pool indices) until its
        // backward ends.
        const bool recomputesCheckpoint = rootedPlanStep() && m_isCheckpoint[v];
        // P13, P38: the sink's gradient comes from the loss, held until this backward returns. The
        // executor's loss is formed from the recomputed output and back-propagated with nothing else
        // holding that output (the loss's mean saves none of it): its gradient comes after it is gone
        // (an LM's logits are one tensor there, not two).
        const bool sinkGradientFromRecomputedLoss = (recomputesCheckpoint || rootedRegularStep()) && v == m_graph.sink();
        if (v == m_graph.sink() && !sinkGradientFromRecomputedLoss && !m_trace.hasGradient(v))
            m_trace.allocGradient(v);
        if (recomputesCheckpoint)
            m_trace.freeValue(v);
        reforwardNeeded(v);
        if (recomputesCheckpoint) {
            allocValue(v);
            allocSaved(v);
            forwardWorkspace(v);
        }
        if (sinkGradientFromRecomputedLoss) {
            if (!m_savesOwnOutput[v])
                m_trace.freeValue(v);
            if (!m_trace.hasGradient(v))
                m_trace.allocGradient(v);
        }
        if (!tracked(v)) {  // P19: no backward to run; its tensors go as P7 and P12 say
            endBackward(v);
            return;
        }
        // The operation that made v runs its backward first: where it saved v itself (an in-place
        // ReLU, a softmax), the copy a re-forward made of v for it (P9) is gone before the rest of
        // v's backward, and so is v where nothing later holds it. The workspace measured with v
        // freed as autograd frees it (P16) has seen that happen: there v goes at the end.
        const BackwardMeasure measure = backwardMeasure(v);
        if (lastSliceGoesAfterFirstNode(v)) {
            m_trace.touchWorkspace(v, std::max<std::int64_t>(0, *m_graph.vertex(v).autograd->engineFirstNodeBytes -
                                                                    gradientBytes(m_graph.vertex(v))));
            m_trace.freeGradient(v);
            releaseSlice(v);
        }
        if (m_savesOwnOutput[v] && measure == BackwardMeasure::Held) {
            // P39: that first node forms its gradient beside what it saved (a ReLU's, of v's size), a
            // peak the released measure saw (it frees v after it, as here); later nodes peak without.
            // P43: that measure up to the first node's end where the exporter took it apart, before
            // the weight gradients the whole measure subtracts.
            const bool freesValue =
                heldByAutograd(v) && std::count(m_lastSaverOf[v].begin(), m_lastSaverOf[v].end(), v) == 1;
            const AutogradFacts& facts = *m_graph.vertex(v).autograd;
            if (const auto& first = facts.firstBackwardNodeBytes ? facts.firstBackwardNodeBytes
                                                                 : facts.backwardWorkspaceReleasedBytes;
                first && (freesValue || m_trace.hasCopy(v)))
                m_trace.touchWorkspace(v, *first);
            m_trace.freeCopy(v);
            if (freesValue)
                m_trace.freeValue(v);
        }
        const std::optional<std::int64_t> riseFirst = riseBeforeWeightGradients(v, measure);
        if (!riseFirst)
            weightGradients(v);
        std::vector<VertexIndex> formed;
        std::int64_t formedBytes = 0;  // P13: those it accumulates too, formed before they are added in (P72: made)
        const std::vector<VertexIndex> keepers = leavesKeepingViews(v);
        for (VertexIndex u : m_graph.predecessors(v))
            if (!heldByStep(u) && tracked(u) && sendsGradient(m_graph, v, u)) {
                if (!engineHandsOwnGradient(v, u) && !addsHandedGradientInPlace(v, u) &&
                    std::find(keepers.begin(), keepers.end(), u) == keepers.end())
                    formedBytes += gradientBytes(m_graph.vertex(u));
                if (!m_trace.hasGradient(u))
                    formed.push_back(u);
            }
        m_trace.touchWorkspace(v, riseFirst             ? *riseFirst
                                  : rootedRegularStep() ? engineBackwardWorkspace(v, formedBytes)
                                                        : backwardWorkspace(v, measure) + (m_rootedExecutor ? formedBytes : 0));
        // P27: the slices of v's gradient formed below keep the tensor it is (or is a slice of)
        // alive past v's backward; not where it is another's tensor (P15).
        m_sliceTarget[v] = m_sliceOf[v] >= 0 ? m_sliceOf[v] : m_trace.sharesGradient(v) ? -1 : v;
        for (VertexIndex u : formed)
            if (m_sliceTarget[v] >= 0 && slicesGradient(v, u))
                ++m_slicesLeft[m_sliceTarget[v]];
        // P62: so do the statics' gradients that are slices of it, until their nodes run (P20).
        if (m_checkpointFunctions && m_graph.vertex(v).autograd->slicesGradientToStatics && m_sliceTarget[v] >= 0) {
            m_staticSliceOf[v] = m_sliceTarget[v];
            ++m_slicesLeft[m_sliceTarget[v]];
        }
        // v's backward has taken its gradient: if it shares a tensor, it no longer holds it, but
        // what it passes on (P15) is that tensor still.
        const VertexIndex holder = m_trace.sharesGradient(v) && m_sliceOf[v] < 0 ? m_holderOf[v] : -1;
        if (m_trace.sharesGradient(v)) {
            m_trace.freeGradient(v);
            releaseSlice(v);
        }
        const bool sumsAnew = rootedRegularStep() && !m_engineAddsInPlace;
        OutOfPlaceSums sums;
        if (sumsAnew && m_trace.hasGradient(v) && !m_trace.sharesGradient(v))
            sums.ownBytes = gradientBytes(m_graph.vertex(v));
        for (VertexIndex u : m_graph.predecessors(v))
            if (!heldByStep(u) && sendsGradient(m_graph, v, u) && m_trace.hasGradient(u) &&
                std::find(formed.begin(), formed.end(), u) == formed.end()) {
                if (sumsAnew)
                    sums.sums.push_back(outOfPlaceSum(v, u));
                accumulateIntoShared(u);
            }
        // P16: under autograd's engine the inputs' gradients come out of v's last backward node,
        // after the nodes before it released what they saved and v's gradient; where they meet
        // those (one node, as a linear layer's), the measured workspace above held them all. P70:
        // so in ckptx-torch's regular step; its plans' steps hold v's gradient to the end (P13).
        VertexIndex takenBy;
        if (runsEngine() || riseFirst) {
            endBackward(v);
            if (riseFirst)
                weightGradients(v);
            takenBy = formGradients(v, formed, holder, keepers);
        } else {
            takenBy = formGradients(v, formed, holder, keepers);
            endBackward(v);
        }
        touchOutOfPlaceSums(v, sums);
        handOverSharedGradient(v, takenBy);
    }

    // P19: autograd tracks the tensor (a Python export says which it does not).
    bool tracked(VertexIndex v) const { return !m_checkpointFunctions || m_graph.vertex(v).requiresGrad; }

    // P15 is autograd's engine (P10): ckptx-torch's executor (P13) gives each vertex a root of its own.
    bool runsEngine() const { return m_checkpointFunctions || rootedRegularStep(); }
    bool passesGradient(VertexIndex v, VertexIndex u) const { return runsEngine() && passesOwnGradient(m_graph, v, u); }

    // P27, from Python exports as P15: v's backward forms u's gradient as a slice of v's.
    bool slicesGradient(VertexIndex v, VertexIndex u) const { return runsEngine() && slicesOwnGradient(m_graph, v, u); }

    // Either: u gets v's gradient tensor or a view of it.
    bool engineHandsOwnGradient(VertexIndex v, VertexIndex u) const
    {
        return runsEngine() && handsOwnGradient(m_graph, v, u);
    }

    // P72: the executor's leaf u adds what v's operation hands it, v's gradient or a view of it (P15,
    // P27), into the gradient u holds, in place: nothing is formed.
    bool addsHandedGradientInPlace(VertexIndex v, VertexIndex u) const
    {
        return rootedPlanStep() && m_trace.hasGradient(u) && handsOwnGradient(m_graph, v, u);
    }

    // P79: the executor's leaf u, holding no gradient yet, keeps the view of v's gradient that v's
    // operation hands it (a permute back to u's layout): a tensor object no one else holds, laid out
    // as u, which AccumulateGrad takes as it is; v's gradient itself, which the executor still holds,
    // it copies (P72). P86: every input handed such a view keeps it (an add that reads a convolution
    // through a flatten and a transpose, and a linear layer through a transpose: both views of one
    // storage). The first to run first (it owns the storage from here on).
    std::vector<VertexIndex> leavesKeepingViews(VertexIndex v) const
    {
        std::vector<VertexIndex> keepers;
        if (!rootedPlanStep())
            return keepers;
        for (const std::string& id : m_graph.vertex(v).autograd->passesGradientViewTo) {
            const VertexIndex u = *m_graph.find(id);
            if (!heldByStep(u) && tracked(u) && !m_trace.hasGradient(u))
                keepers.push_back(u);
        }
        std::sort(keepers.begin(), keepers.end(), [this](VertexIndex a, VertexIndex b) { return m_runAt[a] < m_runAt[b]; });
        return keepers;
    }

    // P15: an input v passes its gradient to gets v's gradient tensor itself; the first of them to run
    // (the last the backward reaches, P18) owns it from here, the others share it. Where v's gradient
    // was itself shared, the tensor is its holder's while the holder keeps it (a residual stream's
    // gradient, passed on along a chain of out-of-place `index_add`s in a mixture of experts): they
    // all share it, and where the holder's backward comes first it hands the tensor on
    // (handOverSharedGradient; P58). P27: an input v hands a slice of its gradient holds no bytes of
    // its own; the tensor sliced (m_sliceTarget) stays until its last slice goes. P79: the leaf that
    // keeps a view of v's gradient (the first of `keepers`) takes its storage over, and the others
    // share it (P86). Returns the input that took v's
    // own tensor over, or -1.
    VertexIndex formGradients(VertexIndex v, const std::vector<VertexIndex>& formed, VertexIndex holder,
                              const std::vector<VertexIndex>& keepers)
    {
        // The first to run of the inputs that get one tensor: v's gradient (P15), or one tensor v's
        // backward forms for a group of them (P53).
        auto firstToRun = [&](auto sameTensor) {
            VertexIndex first = -1;
            for (VertexIndex u : formed)
                if (sameTensor(u) && (first < 0 || m_runAt[u] < m_runAt[first]))
                    first = u;
            return first;
        };
        const VertexIndex owner = firstToRun([&](VertexIndex u) { return passesGradient(v, u); });
        const bool held = owner >= 0 && holder >= 0 && m_trace.hasGradient(holder);
        VertexIndex takenBy = -1;
        for (VertexIndex u : formed) {
            if (m_sliceTarget[v] >= 0 && slicesGradient(v, u)) {
                m_trace.shareGradient(u);
                m_sliceOf[u] = m_sliceTarget[v];
            } else if ((u == owner && !held) || (!keepers.empty() && u == keepers.front())) {
                m_trace.freeGradient(v);
                m_trace.allocGradient(u);
                takenBy = u;
            } else if (std::find(keepers.begin(), keepers.end(), u) != keepers.end()) {
                shareGradientOf(u, keepers.front());
            } else if (owner >= 0 && passesGradient(v, u)) {
                shareGradientOf(u, held ? holder : owner);
            } else if (const int group = gradientGroup(v, u); group >= 0) {
                const VertexIndex first = firstToRun([&](VertexIndex w) { return gradientGroup(v, w) == group; });
                if (u == first)
                    m_trace.allocGradient(u);
                else
                    shareGradientOf(u, first);
            } else {
                m_trace.allocGradient(u);
            }
        }
        return takenBy;
    }

    // P58: gradients still sharing v's tensor keep it past v's backward. It goes to the input that
    // took it over (`takenBy`), else to the sharer that runs first (the last the backward reaches):
    // in a fixed-step ODE solver's `k1 + 2*k2 + 2*k3 + k4` the adds hand k4's gradient to k1, whose
    // own backward comes after k4's; counted as a tensor of k1's besides, every step read one
    // state's size high until k4's backward.
    void handOverSharedGradient(VertexIndex v, VertexIndex takenBy)
    {
        std::vector<VertexIndex>& sharers = m_sharersOf[v];
        std::erase_if(sharers, [this](VertexIndex w) { return !m_trace.sharesGradient(w); });
        if (sharers.empty())
            return;
        VertexIndex heir = takenBy;
        if (heir < 0) {
            if (!m_trace.hasGradient(v) || m_trace.sharesGradient(v))
                return;
            heir = *std::min_element(sharers.begin(), sharers.end(),
                                     [this](VertexIndex a, VertexIndex b) { return m_runAt[a] < m_runAt[b]; });
            std::erase(sharers, heir);
            m_trace.freeGradient(v);
            m_trace.freeGradient(heir);
            m_trace.allocGradient(heir);
        }
        for (VertexIndex w : sharers) {
            m_holderOf[w] = heir;
            m_sharersOf[heir].push_back(w);
        }
        sharers.clear();
    }

    // P58: v owns a gradient tensor that others still share.
    bool heldBySharers(VertexIndex v) const
    {
        return !m_trace.sharesGradient(v) && std::any_of(m_sharersOf[v].begin(), m_sharersOf[v].end(),
                                                          [this](VertexIndex w) { return m_trace.sharesGradient(w); });
    }

    void shareGradientOf(VertexIndex u, VertexIndex holder)
    {
        m_trace.shareGradient(u);
        m_holderOf[u] = holder;
        m_sharersOf[holder].push_back(u);
    }

    // P53, as P15: the group of v's inputs, if any, whose gradients v's backward forms as one tensor.
    int gradientGroup(VertexIndex v, VertexIndex u) const
    {
        if (!runsEngine())
            return -1;
        const auto& groups = m_graph.vertex(v).autograd->formsOneGradientFor;
        for (std::size_t k = 0; k < groups.size(); ++k)
            if (std::find(groups[k].begin(), groups[k].end(), m_graph.vertex(u).id) != groups[k].end())
                return static_cast<int>(k);
        return -1;
    }

    // P69: LibTorch 1.13's engine adds a term into a gradient that exists out of place (InputBuffer's
    // `old_var + var`), after v's last node returned and released what it saved: each sum is a new
    // tensor, made while the old sum, the terms not yet added and the gradients v formed anew are
    // live, and v's own gradient while a term is a slice or a pass of it; then the old sum and the
    // term go. Where the old sum was shared (P15), the model has made the new one already.
    struct OutOfPlaceSum {
        std::int64_t newBytes = 0, termBytes = 0;
        bool handsOwn = false;  // the term is v's gradient or a slice of it
    };
    struct OutOfPlaceSums {
        std::vector<OutOfPlaceSum> sums;
        std::int64_t ownBytes = 0;
    };

    // v's term for u, read before u's gradient is added into (accumulateIntoShared).
    OutOfPlaceSum outOfPlaceSum(VertexIndex v, VertexIndex u) const
    {
        const bool handsOwn = engineHandsOwnGradient(v, u);
        const std::int64_t bytes = gradientBytes(m_graph.vertex(u));
        return {m_trace.sharesGradient(u) ? 0 : bytes, handsOwn ? 0 : bytes, handsOwn};
    }

    void touchOutOfPlaceSums(VertexIndex v, const OutOfPlaceSums& sums)
    {
        std::int64_t terms = 0;
        std::size_t lastOwn = 0;  // one past the last sum whose term is v's gradient or a slice of it
        for (std::size_t k = 0; k < sums.sums.size(); ++k) {
            terms += sums.sums[k].termBytes;
            if (sums.sums[k].handsOwn)
                lastOwn = k + 1;
        }
        const std::int64_t own = m_trace.hasGradient(v) ? 0 : sums.ownBytes;
        for (std::size_t k = 0; k < sums.sums.size(); ++k) {
            m_trace.touchWorkspace(v, terms + sums.sums[k].newBytes + (k < lastOwn ? own : 0));
            terms -= sums.sums[k].termBytes;
        }
    }

    // P15: adding a gradient into a tensor that another gradient still shares makes a new tensor
    // (autograd accumulates in place only into a tensor nothing else holds): a sharer gets one of
    // its own; when it is the owner, a sharer keeps the old one. P27: so does adding into a slice (a
    // concatenation's slice along the channels is no dense tensor, which adding in place needs).
    void accumulateIntoShared(VertexIndex u)
    {
        auto ownTensor = [this](VertexIndex w) {
            m_trace.freeGradient(w);
            m_trace.allocGradient(w);
        };
        if (m_trace.sharesGradient(u)) {
            ownTensor(u);
            releaseSlice(u);
            return;
        }
        std::vector<VertexIndex>& sharers = m_sharersOf[u];
        std::erase_if(sharers, [this](VertexIndex w) { return !m_trace.sharesGradient(w); });
        if (sharers.empty())
            return;
        const VertexIndex heir = sharers.front();
        ownTensor(heir);
        m_sharersOf[heir].assign(sharers.begin() + 1, sharers.end());
        for (VertexIndex w : m_sharersOf[heir])
            m_holderOf[w] = heir;
        sharers.clear();
    }

    // P77: in ckptx-torch's regular step the engine lets v's gradient, a slice, go once v's first node
    // has read it; where it is the last slice of its tensor (a concatenation's gradient, whose first
    // branch runs last) and v's backward hands none of it on, the whole tensor goes then, before the
    // later nodes form what they form (Inception-v3's and ShuffleNet-V2's batch norm under an in-place
    // ReLU). That first node's peak is measured with the slice in it.
    bool lastSliceGoesAfterFirstNode(VertexIndex v) const
    {
        if (!rootedRegularStep() || !m_graph.vertex(v).autograd->engineFirstNodeBytes)
            return false;
        if (const VertexIndex storage = m_sliceOf[v]; storage < 0 || m_slicesLeft[storage] != 1)
            return false;
        const auto inputs = m_graph.predecessors(v);
        return std::none_of(inputs.begin(), inputs.end(), [&](VertexIndex u) { return engineHandsOwnGradient(v, u); });
    }

    // P27: u's slice is gone; the tensor sliced goes with its last slice.
    void releaseSlice(VertexIndex u)
    {
        const VertexIndex storage = m_sliceOf[u];
        if (storage < 0)
            return;
        m_sliceOf[u] = -1;
        if (--m_slicesLeft[storage] == 0)
            m_trace.freeGradient(storage);
    }

    // P8 under autograd's engine (P10) or ckptx-torch's executor (P13): P14/P16's or P48's measure
    // where `measure` says; P24's where the executor's inputs are leaves.
    std::int64_t backwardWorkspace(VertexIndex v, BackwardMeasure measure) const
    {
        const AutogradFacts& f = *m_graph.vertex(v).autograd;
        const std::int64_t measured =
            measure == BackwardMeasure::Released         ? *f.backwardWorkspaceReleasedBytes
            : measure == BackwardMeasure::PartlyReleased ? *f.backwardWorkspacePartlyReleasedBytes
            : m_rootedExecutor ? f.leafInputsBackwardWorkspaceBytes.value_or(f.backwardWorkspaceBytes)
                               : f.backwardWorkspaceBytes;
        // P59: the first reader's gradient is the sum (held, weightGradients), no sum is made beside
        // it. The owner forms its own beside its output's gradient, and adds it in once that is gone
        // (endBackward).
        if (m_beginsSumOf[v] >= 0)
            return std::max<std::int64_t>(0, measured - f.sharedWeightGradientBytes - f.sharedWeightSumBytes);
        if (const VertexIndex first = m_sumBegunBy[v]; first >= 0)
            return measured + m_graph.vertex(first).autograd->sharedWeightGradientBytes;
        return measured;
    }

    // P25, P70: the measure made v's gradient inside it, which the step holds already, and left out the
    // inputs' gradients, which the step forms: the backward's rise is the measure plus those less v's.
    // P73: where v's backward is the last to hold every input it saved, the step frees each once the
    // node that saved it has run, before the last node forms what it forms: the measure taken so
    // holds the inputs' gradients as they came, and v's, which the step holds already.
    std::int64_t engineBackwardWorkspace(VertexIndex v, std::int64_t formedBytes) const
    {
        const AutogradFacts& f = *m_graph.vertex(v).autograd;
        if (f.engineBackwardWorkspaceReleasedBytes && freesEverySavedInput(v))
            return std::max<std::int64_t>(0, *f.engineBackwardWorkspaceReleasedBytes - gradientBytes(m_graph.vertex(v)));
        if (!f.engineBackwardWorkspaceBytes)
            return f.backwardWorkspaceBytes + formedBytes;
        return std::max<std::int64_t>(0, *f.engineBackwardWorkspaceBytes + formedBytes - gradientBytes(m_graph.vertex(v)));
    }

    // P81, P82: a measure read whole is the backward's rise with the weights' gradients in it. Where
    // it is below them, they came once the nodes before had let go of what they saved (a linear
    // layer's addmm, its node the last, after an in-place hardswish freed the copy of its input and
    // an in-place dropout its mask): the phase peaks at the rise, touched before the weights'
    // gradients, which come after what the backward frees, and before the inputs' gradients. P81,
    // autograd's engine: P14's measure (a Python export's steps) where it stands, or P73's
    // (ckptx-torch's regular step), v's gradient (made inside it, held by the step already) left
    // out. P82, ckptx-torch's plan steps: P24's, v's gradient the executor's; not where the backward
    // hands its inputs v's gradient or slices of it (P15, P27, P53, P79), which the executor holds to
    // the end, nor where v saved itself (P39 lets it go first) or is the output (its loss's gradient comes
    // after it is gone, P66). Neither where the weights are another's to sum (P59), tied or added
    // into the kept ones (P33), or statics' (P20): those are held as they are formed.
    std::optional<std::int64_t> riseBeforeWeightGradients(VertexIndex v, BackwardMeasure measure) const
    {
        const AutogradFacts& f = *m_graph.vertex(v).autograd;
        if (m_accumulates || m_beginsSumOf[v] >= 0 || m_sumBegunBy[v] >= 0 || !f.tiedParameterUntil.empty() ||
            f.staticGradientBytes > 0)
            return std::nullopt;
        std::optional<std::int64_t> rise;
        if (m_checkpointFunctions && measure == BackwardMeasure::Released && f.backwardReleasedRiseBytes)
            rise = *f.backwardReleasedRiseBytes - gradientBytes(m_graph.vertex(v));
        else if (rootedRegularStep() && f.engineBackwardReleasedRiseBytes && f.engineBackwardWorkspaceReleasedBytes &&
            freesEverySavedInput(v))
            rise = *f.engineBackwardReleasedRiseBytes - gradientBytes(m_graph.vertex(v));
        else if (rootedPlanStep() && f.leafInputsBackwardRiseBytes && f.passesGradientTo.empty() &&
                 f.slicesGradientTo.empty() && f.formsOneGradientFor.empty() && !m_savesOwnOutput[v] &&
                 v != m_graph.sink())
            rise = *f.leafInputsBackwardRiseBytes;
        if (!rise || *rise >= f.parameterBytes)
            return std::nullopt;
        return std::max<std::int64_t>(0, *rise);
    }

    // u goes with v's backward: autograd alone holds it, and v is the last of its holders to run.
    bool freedByBackward(VertexIndex v, VertexIndex u) const
    {
        return heldByAutograd(u) && std::find(m_lastSaverOf[v].begin(), m_lastSaverOf[v].end(), u) != m_lastSaverOf[v].end();
    }

    // Calls `outlives` with each input v saved that outlives v's backward (not the step's, not freed
    // there); false where an input's savers are unknown.
    template <typename Outlives>
    bool visitSavedInputsOutliving(VertexIndex v, Outlives outlives) const
    {
        const std::string& id = m_graph.vertex(v).id;
        for (VertexIndex u : m_graph.predecessors(v)) {
            const auto& savers = m_graph.vertex(u).autograd->savedBy;
            if (!savers)
                return false;
            if (!freedByBackward(v, u) && !heldByStep(u) && std::find(savers->begin(), savers->end(), id) != savers->end())
                outlives(u);
        }
        return true;
    }

    bool freesEverySavedInput(VertexIndex v) const
    {
        bool any = false;
        return visitSavedInputsOutliving(v, [&](VertexIndex) { any = true; }) && !any;
    }

    // P14, P16: where v's backward is what frees every tensor it saved (its inputs, and its output
    // or the copy of it where it saved that), the workspace the exporter measured with those freed as autograd frees
    // them (after the operation that read them, before the rest of v's backward); P48: where the
    // inputs that outlive it are those the exporter held in its third measure, that one; otherwise
    // the one measured with them all held.
    BackwardMeasure backwardMeasure(VertexIndex v) const
    {
        const Vertex& vertex = m_graph.vertex(v);
        const AutogradFacts& f = *vertex.autograd;
        if (!f.backwardWorkspaceReleasedBytes)
            return BackwardMeasure::Held;
        // The output v's backward saved is the re-forward's copy where there is one (P9).
        if (m_savesOwnOutput[v] && !m_trace.hasCopy(v) && !freedByBackward(v, v))
            return BackwardMeasure::Held;
        // The inputs that outlive v's backward, and whether each is one the exporter's third measure held.
        const auto& held = f.backwardWorkspaceHeldInputs;
        std::size_t outliving = 0;
        bool allHeld = true;
        // P37: a step's input (P21) is held by the step, not freed here, but the released measure
        // frees it only as the node that saved it ends: the node of v's first operation, which
        // reads it and runs last in v's backward.
        if (!visitSavedInputsOutliving(v, [&](VertexIndex u) {
                ++outliving;
                allHeld = allHeld && std::find(held.begin(), held.end(), m_graph.vertex(u).id) != held.end();
            }))
            return BackwardMeasure::Held;
        if (outliving == 0)
            return BackwardMeasure::Released;
        return f.backwardWorkspacePartlyReleasedBytes && allHeld && outliving == held.size()
                   ? BackwardMeasure::PartlyReleased
                   : BackwardMeasure::Held;
    }

    void endBackward(VertexIndex v)
    {
        if (!heldByStep(v) && !heldAsLoss(v))
            m_trace.freeValue(v);
        m_trace.freeCopy(v);
        for (VertexIndex e : m_copiesReleasedBy[v])
            m_trace.freeCopy(e);
        if (m_slicesLeft[v] == 0 && !heldBySharers(v))  // P27: otherwise its slices hold it; P58
            m_trace.freeGradient(v);
        m_trace.freeSaved(v);
        // P59: the owner's gradient added into the sum another reader began, out of place on torch
        // 1.13, after its first node let its output's gradient go (a slice of a stack of every step's
        // logits: gone with the last slice).
        if (const VertexIndex first = m_sumBegunBy[v]; first >= 0) {
            const AutogradFacts& reader = *m_graph.vertex(first).autograd;
            m_trace.touchWorkspace(v, reader.sharedWeightGradientBytes + reader.sharedWeightSumBytes);
        }
        if (m_accumulates) {  // P33: AccumulateGrad has added them into the kept gradients
            m_trace.freeParameterGradient(v);
            for (VertexIndex u : m_tiedGradientsUntil[v])
                m_trace.freeTiedGradient(u);
            // One formed after its first reader's backward (a plan ran them in another order, P18) is
            // the last the node waited for: it goes with v's own, as P20 has it for statics.
            if (const std::string& until = m_graph.vertex(v).autograd->tiedParameterUntil;
                !until.empty() && m_backwardDone[*m_graph.find(until)] && m_sumBegunBy[v] < 0)
                m_trace.freeTiedGradient(v);
        }
        for (VertexIndex u : m_lastSaverOf[v])
            if (heldByAutograd(u))
                m_trace.freeValue(u);
        for (const auto& [u, k] : m_tensorsReleasedBy[v])
            if (heldByAutograd(u))
                releaseTensor(u, k);
        if (m_rngStateBytes > 0)
            for (int s : m_rngReleasedBy[v])
                m_trace.freeRngState(m_rngKey[s]);
        releaseStaticGradientsAt(v);
    }

    // P20: a static's node runs once its first reader's backward is done, where the gradients its
    // other readers formed go; one formed after that (a plan ran the readers in another order) goes
    // with its own backward.
    void releaseStaticGradientsAt(VertexIndex v)
    {
        m_backwardDone[v] = true;
        for (VertexIndex u : m_staticGradientsUntil[v])
            releaseStaticGradient(u);
        const std::string& until = m_graph.vertex(v).autograd->staticGradientUntil;
        if (!heldForItsFirstReader(v) || (!until.empty() && m_backwardDone[*m_graph.find(until)]))
            releaseStaticGradient(v);
    }

    // P20: the gradients v's backward formed for statics go; P62: those that were slices of v's own
    // gradient let it go.
    void releaseStaticGradient(VertexIndex v)
    {
        if (m_trace.hasStaticGradient(v))
            m_trace.freeStaticGradient(v);
        if (const VertexIndex storage = m_staticSliceOf[v]; storage >= 0) {
            m_staticSliceOf[v] = -1;
            if (--m_slicesLeft[storage] == 0 && m_backwardDone[storage] && !heldBySharers(storage))
                m_trace.freeGradient(storage);
        }
    }

    // Once per vertex: an exit two segments share is recomputed by each of their re-forwards (P9).
    // An input ran no operation, so it saved nothing (P21: it has no backward either, which would free it).
    // P47: with what statics it makes again for a checkpointed first reader's values.
    void allocSaved(VertexIndex v)
    {
        const std::int64_t bytes = m_graph.vertex(v).autograd->savedBytes + m_remadeSaved[v];
        if (m_model == MemoryModel::PyTorch && !m_graph.isInput(v) && bytes > 0 && !m_trace.hasSaved(v))
            m_trace.allocSaved(v, bytes);
    }

    // P8: the forward's scratch memory, right after its output (and saved extras) exist.
    void forwardWorkspace(VertexIndex v)
    {
        if (m_model == MemoryModel::PyTorch)
            m_trace.touchWorkspace(v, m_graph.vertex(v).autograd->forwardWorkspaceBytes);
    }

    // P17: a checkpointed function's forward keeps nothing autograd saves, so what the recorded
    // run kept for the backward is scratch there.
    // P49: the copy of an earlier vertex's statics that v's function makes just before v, in its forward.
    void checkpointedForwardWorkspace(VertexIndex v)
    {
        const AutogradFacts& f = *m_graph.vertex(v).autograd;
        if (m_makesStaticCopy[v] && f.copiedStaticsForwardWorkspaceBytes)
            m_trace.touchWorkspace(v, *f.copiedStaticsForwardWorkspaceBytes);
        else
            m_trace.touchWorkspace(v, f.checkpointedForwardWorkspaceBytes.value_or(f.forwardWorkspaceBytes));
    }

    // P5, P20: what v's backward forms for its weights, and for what they alone compute. P33: in an
    // accumulation step the tied weights' part waits apart, for their first reader's backward.
    // P59: where v's backward begins the sum of a weight's readers' gradients, that sum waits in the
    // owner's place from here; the owner's own backward then forms no more of it than what it adds.
    void weightGradients(VertexIndex v)
    {
        const AutogradFacts& f = *m_graph.vertex(v).autograd;
        if (const VertexIndex owner = m_beginsSumOf[v]; owner >= 0)
            m_trace.allocTiedGradient(owner, f.sharedWeightGradientBytes);
        const VertexIndex first = m_sumBegunBy[v];
        const std::int64_t tied = m_accumulates && !f.tiedParameterUntil.empty() ? f.tiedParameterBytes : 0;
        const std::int64_t waiting =
            first >= 0 ? std::max(tied, m_graph.vertex(first).autograd->sharedWeightGradientBytes) : tied;
        if (f.parameterBytes - waiting > 0)
            m_trace.allocParameterGradient(v, f.parameterBytes - waiting);
        if (tied > 0 && first < 0)
            m_trace.allocTiedGradient(v);
        if (f.staticGradientBytes > 0)
            m_trace.allocStaticGradient(v);
    }

    // P59: apply_plan's order (P18) may run a weight's owner (P5, its topologically last reader)
    // before its other readers (P23), as a function that holds the owner and feeds them (a decoder's
    // output layer at every step, all but the last plain); autograd's engine then reaches the owner's
    // backward after theirs. The first reader's backward to run begins the sum, with no sum to add
    // into; the owner adds its own later. In an accumulation step (P33) the sum goes into the kept
    // gradients after the last of them.
    void findWeightGradientSums()
    {
        const int count = m_graph.vertexCount();
        std::vector<VertexIndex> first(count, -1), last(count, -1);
        for (VertexIndex r = 0; r < count; ++r) {
            const std::string& owner = m_graph.vertex(r).autograd->addsWeightGradientTo;
            if (owner.empty() || !m_graph.vertex(r).autograd->sharedWeightGradientBytes || !tracked(r) || heldByStep(r))
                continue;
            const VertexIndex o = *m_graph.find(owner);
            if (!tracked(o) || heldByStep(o))  // P19, P21: no backward forms its weights' gradients
                continue;
            if (first[o] < 0)
                first[o] = last[o] = o;
            if (m_runAt[r] > m_runAt[first[o]])
                first[o] = r;
            if (m_runAt[r] < m_runAt[last[o]])
                last[o] = r;
        }
        for (VertexIndex o = 0; o < count; ++o) {
            if (first[o] < 0 || first[o] == o)
                continue;
            m_beginsSumOf[first[o]] = o;
            m_sumBegunBy[o] = first[o];
            if (m_accumulates) {
                if (const AutogradFacts& f = *m_graph.vertex(o).autograd; f.tiedParameterBytes > 0 && !f.tiedParameterUntil.empty())
                    std::erase(m_tiedGradientsUntil[*m_graph.find(f.tiedParameterUntil)], o);
                m_tiedGradientsUntil[last[o]].push_back(o);
            }
        }
    }

    // P20 beside checkpointed functions: apply_plan gives each function its own copy of a static and
    // the plain vertices one, and each copy's node runs after the backward of the first of its own
    // readers. v's gradient waits for its static's first reader only where that reader runs in v's
    // copy's group; otherwise v's copy takes it on at the end of v's backward (where the group has
    // other readers it waits for the first of them: not modeled, the graph names no group's readers).
    bool heldForItsFirstReader(VertexIndex v) const
    {
        const std::string& until = m_graph.vertex(v).autograd->staticGradientUntil;
        return !m_checkpointFunctions || until.empty() || m_functionOf[v] == m_functionOf[*m_graph.find(until)];
    }

    void afterTraining()
    {
        for (VertexIndex v = 0; v < m_graph.vertexCount(); ++v)
            if (!heldByStep(v))
                m_trace.freeValue(v);
        m_trace.freeBuffer();
    }

    // P20: graphs that name no first reader (exported before apply_plan made statics where they are
    // read) hold the gradients to the last vertex's backward phase (the profilers mark the step's
    // end once backward() returns).
    void releaseStaticGradients()
    {
        for (VertexIndex v = 0; v < m_graph.vertexCount(); ++v)
            releaseStaticGradient(v);
    }

    const Graph& m_graph;
    const MemoryModel m_model;
    const bool m_checkpointFunctions;                // P9
    const std::optional<AppliedPlan> m_applied;  // P12, P18: the plan as apply_plan runs it
    const PlanEvaluation& m_plan;
    MemoryTrace m_trace;
    std::vector<bool> m_isCheckpoint;
    std::vector<int> m_segmentOf;
    std::vector<int> m_memberIndex;  // position in its segment's vertex list
    std::vector<bool> m_reforwarded;  // per segment (P9)
    std::vector<std::vector<int>> m_triggeredBy;  // per vertex: the segments its backward re-forwards (P9)
    std::vector<bool> m_unsaved;                     // savedBy known and empty (P7)
    std::vector<std::vector<VertexIndex>> m_lastSaverOf;  // per vertex: tensors P7 frees after its backward
    std::vector<std::vector<VertexIndex>> m_copiesReleasedBy;  // per vertex: re-forward copies its backward frees (P32)
    const std::vector<std::vector<VertexIndex>> m_saversOf;    // per vertex: its savedBy, resolved (pytorch model)
    const bool m_earlyStop;                          // P9: torch.utils.checkpoint stops its re-forward early
    const bool m_rootedExecutor;                     // P13: ckptx-torch's executor runs the plans
    const bool m_engineAddsInPlace;                  // P69: its LibTorch's engine adds into a gradient in place
    const std::int64_t m_rngStateBytes;              // P22: stashed per checkpointed function
    const bool m_accumulates;                        // P33: the weights' gradients exist before the step
    std::vector<std::vector<VertexIndex>> m_tiedGradientsUntil;  // P33: per first reader, whose tied part it ends
    std::vector<VertexIndex> m_beginsSumOf;  // P59: per reader, the owner whose readers' sum its backward begins
    std::vector<VertexIndex> m_sumBegunBy;   // P59: per owner, that reader, or -1
    std::vector<VertexIndex> m_trigger;              // per segment: the vertex whose backward re-forwards it (P9)
    std::vector<bool> m_savesOwnOutput;              // the vertex is in its own savedBy (P9)
    std::vector<bool> m_saves;                       // its backward unpacks something it saved (P9)
    std::vector<std::vector<VertexIndex>> m_sharersOf;  // P15: per owner, the gradients sharing its tensor
    std::vector<VertexIndex> m_holderOf;                // P15: per gradient sharing a tensor, its owner
    std::vector<VertexIndex> m_sliceOf;  // P27: per gradient that is a slice, whose tensor it slices
    std::vector<int> m_slicesLeft;       // P27: per gradient tensor, the slices of it still held
    std::vector<VertexIndex> m_sliceTarget;  // P27: per vertex, the tensor its backward's slices slice
    std::vector<VertexIndex> m_staticSliceOf;  // P62: per vertex, the tensor its statics' slices hold
    std::vector<VertexIndex> m_release;              // per function: its first member that saved (P12)
    std::vector<int> m_functionOf;                   // per vertex: the function computing it, or -1 (P12)
    const std::vector<VertexIndex> m_order;          // P18: the order the vertices run in
    std::vector<int> m_runAt;                        // per vertex: its place in m_order
    std::vector<VertexIndex> m_rngKey;               // per function: its first vertex to run (P22)
    std::vector<VertexIndex> m_rngLast;              // per function: its last vertex to run (P22)
    std::vector<std::vector<int>> m_rngReleasedBy;   // per vertex: the functions its backward frees
    // P44: per reader, the copies of statics it makes (bytes > 0) and lets go (bytes < 0).
    std::vector<std::vector<std::pair<VertexIndex, std::int64_t>>> m_staticValueMadeAt, m_staticValueFreedAt;
    std::vector<std::int64_t> m_staticValueCopyBytes;  // P44: per first reader, its statics' live copies
    std::vector<std::int64_t> m_remadeSaved;  // P47: per plain reader, what it keeps of statics made again
    std::vector<bool> m_makesStaticCopy;  // P49: v's function makes its copy of an earlier vertex's statics
    std::vector<std::vector<ResolvedTensor>> m_tensorsOf;  // P52: per vertex, its tensors read or saved apart
    std::vector<std::vector<bool>> m_tensorUnsaved;       // P52: no holder of its own: goes with its readers
    std::vector<std::vector<bool>> m_tensorReleased;      // P52: gone before the value
    std::vector<std::vector<int>> m_tensorReadersLeft;    // P52: readers still to run in the forward
    std::vector<std::vector<std::pair<VertexIndex, int>>> m_tensorsReleasedBy;  // P52: per holder, what its backward ends
    std::vector<std::vector<VertexIndex>> m_staticGradientsUntil;  // P20: per first reader, who holds till its end
    std::vector<bool> m_backwardDone;                              // P20
};

}  // namespace

bool stepAccumulatesGradients(const Graph& graph)
{
    return graph.metadataIs("accumulate_gradients", "true");
}

MemoryProfile simulatePlanMemory(const Graph& graph, const PlanEvaluation& plan, MemoryModel model,
                                 bool recordLive, CudaCachingAllocator* allocator)
{
    return PlanSimulation(graph, plan, model, recordLive, allocator).run();
}

}  // namespace ckpt
