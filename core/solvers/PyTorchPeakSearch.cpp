#include "solvers/PyTorchPeakSearch.h"

#include "graph/GradientFlow.h"
#include "memory/PlanMemory.h"
#include "theory/CheckpointFunctions.h"
#include "theory/RecomputeCost.h"

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>

namespace ckpt {

namespace {

using Clock = std::chrono::steady_clock;

// Recompute sums are compared with this relative slack: they are sums of doubles in varying order.
bool lessRecompute(double a, double b)
{
    return a < b - 1e-9 * std::max({1.0, std::abs(a), std::abs(b)});
}

// What every plan but the regular step holds, per phase, whatever its checkpoints
// (docs/MEMORY-MODEL.md: F2, S2, P1, P3, P5, P8). The regular step (every vertex a checkpoint)
// frees tensors earlier (P7) and is evaluated on its own.
struct PhaseFloors {
    // The largest forward phase: vertex j, every tensor computed before it that a vertex from j
    // on still reads, the step's inputs (P21), and j's workspace.
    std::int64_t forward = 0;
    // Per vertex v (not an input), at the moment of v's backward workspace: v, its operands and
    // the step's inputs, the accumulated gradients (P3) then live, the weight gradients formed so far
    // (P5) and the workspace. Every checkpoint before v that is none of these adds its bytes.
    // Under P9/P10 (a Python export) less: ownRunFloors.
    std::vector<std::int64_t> backward;
};

// The least scratch memory a vertex's forward may take in some plan: recorded by autograd (P8) or
// in a checkpointed function (P17), there with a copy of earlier statics made first (P49); and its
// backward's in a plan that recomputes: with its saved tensors held, not (P14) or in part (P48), on
// ckptx-torch's executor the one measured on leaves (P24).
std::int64_t leastForwardWorkspace(const Vertex& v)
{
    const AutogradFacts& f = *v.autograd;
    const std::int64_t recorded = f.forwardWorkspaceBytes;
    return std::min({recorded, f.checkpointedForwardWorkspaceBytes.value_or(recorded),
                     f.copiedStaticsForwardWorkspaceBytes.value_or(recorded)});
}

std::int64_t leastBackwardWorkspace(const Vertex& v, bool rootedExecutor)
{
    const AutogradFacts& f = *v.autograd;
    const std::int64_t held =
        rootedExecutor ? f.leafInputsBackwardWorkspaceBytes.value_or(f.backwardWorkspaceBytes) : f.backwardWorkspaceBytes;
    const std::int64_t least =
        std::min({held, f.backwardWorkspaceReleasedBytes.value_or(held), f.backwardWorkspacePartlyReleasedBytes.value_or(held)});
    // P59: a reader of another's weights whose backward comes first makes no sum.
    return std::max<std::int64_t>(0, least - f.sharedWeightGradientBytes - f.sharedWeightSumBytes);
}

VertexIndex lastSuccessor(const Graph& g, VertexIndex u)
{
    const auto succ = g.successors(u);
    return succ.empty() ? -1 : succ.back();  // successors are in ascending topological position
}

// u's successors whose backward sends u a gradient, in topological order.
std::vector<VertexIndex> gradientSenders(const Graph& g, VertexIndex u)
{
    std::vector<VertexIndex> senders;
    for (VertexIndex w : g.successors(u))
        if (sendsGradient(g, w, u))
            senders.push_back(w);
    return senders;
}

// Of u's bytes, those of the tensors that `holds` picks; all of them where u is one tensor, or its
// tensors are read and saved alike (P52: the others may be gone).
template <typename Holds>
std::int64_t tensorBytes(const Graph& g, VertexIndex u, Holds holds)
{
    const auto& tensors = g.vertex(u).autograd->tensors;
    if (tensors.empty())
        return g.bytes(u);
    std::int64_t bytes = 0;
    for (const OutputTensor& tensor : tensors)
        if (holds(tensor))
            bytes += tensor.bytes;
    return bytes;
}

bool named(const std::vector<std::string>& ids, const std::string& id)
{
    return std::find(ids.begin(), ids.end(), id) != ids.end();
}

// The bytes of v's operands but the graph's inputs (counted on their own: the step holds them, P21):
// of each, the tensors v reads (P52).
std::int64_t operandBytes(const Graph& g, VertexIndex v)
{
    const std::string& id = g.vertex(v).id;
    std::int64_t bytes = 0;
    for (VertexIndex u : g.predecessors(v))
        if (!g.isInput(u))
            bytes += tensorBytes(g, u, [&id](const OutputTensor& tensor) { return named(tensor.readBy, id); });
    return bytes;
}

// P5, P20 under P18: per vertex v, the weight gradients (and those of what weights alone compute) of
// v's tracked descendants. Whatever order a plan runs in, it is a topological one, so they run after
// v and their backwards before v's, and nothing frees a weight's gradient within the step (but an
// accumulation step, which adds each into the kept one at once, P33: there none count); a static's
// gradient only where its first reader (whose backward's end frees it) is v or comes before v in
// every order, and beside checkpointed functions only one held to the backward's end (P44: whether it
// waits for its first reader depends on the plan). Zeros above kDescendantsLimit vertices, where the
// sets would cost V²/8 bytes.
constexpr int kDescendantsLimit = 8192;

std::vector<std::int64_t> descendantsWeightGradients(const Graph& g)
{
    const int count = g.vertexCount();
    std::vector<std::int64_t> sums(count, 0);
    if (count > kDescendantsLimit)
        return sums;
    const bool accumulates = stepAccumulatesGradients(g);
    const std::size_t words = (static_cast<std::size_t>(count) + 63) / 64;
    std::vector<std::uint64_t> below(static_cast<std::size_t>(count) * words, 0);  // per vertex, a bit set
    const auto& topo = g.topologicalOrder();
    for (auto it = topo.rbegin(); it != topo.rend(); ++it) {
        std::uint64_t* mine = &below[static_cast<std::size_t>(*it) * words];
        for (VertexIndex s : g.successors(*it)) {
            const std::uint64_t* theirs = &below[static_cast<std::size_t>(s) * words];
            for (std::size_t w = 0; w < words; ++w)
                mine[w] |= theirs[w];
            mine[s / 64] |= std::uint64_t(1) << (s % 64);
        }
    }
    const bool functions = runsCheckpointFunctions(g);
    auto heldAt = [&](const Vertex& d, VertexIndex v) {
        if (d.autograd->staticGradientUntil.empty())
            return true;  // to the backward's end
        if (functions)  // P44: only where the plan runs d and its first reader in one group
            return false;
        const VertexIndex until = *g.find(d.autograd->staticGradientUntil);
        return until == v || ((below[static_cast<std::size_t>(until) * words + v / 64] >> (v % 64)) & 1) != 0;
    };
    for (VertexIndex v = 0; v < count; ++v) {
        const std::uint64_t* mine = &below[static_cast<std::size_t>(v) * words];
        for (std::size_t w = 0; w < words; ++w)
            for (std::uint64_t bits = mine[w]; bits != 0; bits &= bits - 1) {
                const Vertex& d = g.vertex(static_cast<VertexIndex>(w * 64 + std::countr_zero(bits)));
                if (d.requiresGrad)
                    sums[v] += (accumulates ? 0 : d.autograd->parameterBytes) +
                               (heldAt(d, v) ? d.autograd->staticGradientBytes : 0);
            }
    }
    return sums;
}

// What v's backward node holds from its start whatever the plan: its extras (P6) and the operands it
// saved (savedBy). Made in the forward or by the re-forward its unpacking set off (P9), they go only
// as the backward runs, and the workspaces are measured on top of them (P8, P14). Only where every
// vertex's savers are known: otherwise P12 holds a function's inputs for nothing.
bool saversKnown(const Graph& g)
{
    for (VertexIndex u = 0; u < g.vertexCount(); ++u)
        if (!g.vertex(u).autograd->savedBy && u != g.source() && !g.vertex(u).isVirtual)
            return false;
    return true;
}

std::int64_t savedOperandBytes(const Graph& g, VertexIndex v)
{
    const Vertex& vertex = g.vertex(v);
    std::int64_t bytes = vertex.autograd->savedBytes;
    for (VertexIndex u : g.predecessors(v)) {
        const auto& savers = g.vertex(u).autograd->savedBy;
        if (!g.isInput(u) && savers && named(*savers, vertex.id))
            bytes += tensorBytes(g, u, [&vertex](const OutputTensor& tensor) { return named(tensor.savedBy, vertex.id); });
    }
    return bytes;
}

// P9/P10 (a Python export): a plan's steps may run in another order than the topological one
// (P18), so only what v's own run holds: in the forward its operands, v, the step's inputs and the workspace;
// at its backward the step's inputs, v's gradient (the loss's of the output at the sink's; none where an add
// may pass it on, P15, or a reader may form it as one tensor with another input's, P53), its weight
// gradients and its descendants' and the workspace, none of it where no backward runs (P19).
PhaseFloors ownRunFloors(const Graph& g)
{
    const int count = g.vertexCount();
    PhaseFloors floors;
    floors.backward.assign(count, 0);
    const std::vector<std::int64_t> later = descendantsWeightGradients(g);
    const std::int64_t held = g.inputBytes();  // P21
    const bool known = saversKnown(g);
    std::vector<bool> mayShare(count, false);
    for (VertexIndex v = 0; v < count; ++v) {
        for (const std::string& id : g.vertex(v).autograd->passesGradientTo)
            mayShare[*g.find(id)] = true;
        for (const std::string& id : g.vertex(v).autograd->slicesGradientTo)  // P27: a slice holds no bytes of its own
            mayShare[*g.find(id)] = true;
        for (const auto& group : g.vertex(v).autograd->formsOneGradientFor)  // P53: all but the first to run share
            for (const std::string& id : group)
                mayShare[*g.find(id)] = true;
    }
    for (VertexIndex v = 0; v < count; ++v) {
        if (g.isInput(v))
            continue;
        const Vertex& vertex = g.vertex(v);
        const std::int64_t inputs = operandBytes(g, v);
        floors.forward = std::max(floors.forward, held + inputs + g.bytes(v) +
                                                      leastForwardWorkspace(vertex));
        floors.backward[v] = held;
        // v's gradient exists at its backward only where the loss or a tracked successor forms it
        // (P19: behind untracked vertices alone, v's backward runs for its weights without one).
        const auto senders = gradientSenders(g, v);
        const bool getsGradient = v == g.sink() || std::any_of(senders.begin(), senders.end(), [&g](VertexIndex w) {
                                      return g.vertex(w).requiresGrad;
                                  });
        // P81: where the released measure's whole rise, less v's gradient, is below v's weights'
        // gradients, they come after the backward's frees and the phase may peak at that alone.
        std::int64_t backward = vertex.autograd->parameterBytes + leastBackwardWorkspace(vertex, false);
        if (const auto& rise = vertex.autograd->backwardReleasedRiseBytes)
            backward = std::min(backward, std::max<std::int64_t>(0, *rise - gradientBytes(vertex)));
        if (vertex.requiresGrad)
            floors.backward[v] += ((mayShare[v] && v != g.sink()) || !getsGradient ? 0 : gradientBytes(vertex)) +
                                  later[v] + backward + (known ? savedOperandBytes(g, v) : 0);
    }
    return floors;
}

PhaseFloors phaseFloors(const Graph& g)
{
    if (runsCheckpointFunctions(g))
        return ownRunFloors(g);
    const int count = g.vertexCount();
    const auto& topo = g.topologicalOrder();
    const std::int64_t held = g.inputBytes();  // P21
    PhaseFloors floors;
    floors.backward.assign(count, 0);
    // P13: ckptx-torch's executor keeps each gradient as a tensor of its own, from the backward that
    // forms it first to its vertex's own, the output's from the loss; the gradients v's backward
    // forms for its inputs peak beside its workspace (those formed first there are in `accumulated`).
    // Alg. 4 keeps a gradient of its own only for a tensor several consumers send one (the buffer
    // holds the others: hongBuffers).
    const bool rooted = runsRootedExecutor(g);
    const std::int64_t lossGradient = rooted ? gradientBytes(g.vertex(g.sink())) : 0;
    std::vector<VertexIndex> accumulatesFrom(count, -1);  // the first sender to run
    // Difference arrays over topological positions.
    std::vector<std::int64_t> waiting(count + 1, 0), accumulated(count + 1, 0);
    for (VertexIndex u = 0; u < count; ++u) {
        const VertexIndex last = lastSuccessor(g, u);
        if (g.isInput(u) || last < 0)
            continue;
        const int from = g.topologicalPosition(u), to = g.topologicalPosition(last);
        // u waits from after it to its last consumer: in the forward (F2 frees it there, a
        // checkpoint later still), and at the backward of every vertex in between whatever the plan
        // (a checkpoint until its own backward; recomputed, re-forwarded at the latest at that
        // consumer's backward, which needs it, and kept to its own) — v's operands among them.
        waiting[from + 1] += g.bytes(u);
        waiting[to + 1] -= g.bytes(u);
        // Its gradient accumulates from the last successor whose backward sends it one (P13: one
        // that reads u for its shape alone sends none).
        const auto sending = gradientSenders(g, u);
        if (sending.size() > (rooted ? 0u : 1u)) {
            accumulatesFrom[u] = sending.back();
            const std::int64_t gradient = gradientBytes(g.vertex(u));
            accumulated[from] += gradient;
            accumulated[g.topologicalPosition(sending.back()) + 1] -= gradient;
        }
    }
    // P5: the weight gradients of every vertex from p on; P33: in an accumulation step p's alone (the
    // tied weights' wait is left out: a floor may be low).
    const bool accumulates = stepAccumulatesGradients(g);
    std::int64_t weights = 0;
    for (int p = 1; p < count; ++p)
        if (!g.isInput(topo[p]) && !accumulates)  // P21: an input has no backward
            weights += g.vertex(topo[p]).autograd->parameterBytes;
    std::int64_t wait = 0, grads = 0;
    for (int p = 0; p < count; ++p) {
        wait += waiting[p];
        grads += accumulated[p];
        const VertexIndex v = topo[p];
        if (g.isInput(v))
            continue;
        const Vertex& vertex = g.vertex(v);
        floors.forward = std::max(floors.forward, held + wait + g.bytes(v) +
                                                      leastForwardWorkspace(vertex));
        std::int64_t formed = 0, formedFirst = 0;  // the latter in `grads`
        if (rooted) {
            for (VertexIndex u : g.predecessors(v))
                if (!g.isInput(u) && sendsGradient(g, v, u) && !handsOwnGradient(g, v, u))
                    (accumulatesFrom[u] == v ? formedFirst : formed) += gradientBytes(g.vertex(u));
            // P79: an input that keeps a view of v's gradient as its first holds v's storage, counted once.
            for (const std::string& id : vertex.autograd->passesGradientViewTo)
                if (const VertexIndex u = *g.find(id); accumulatesFrom[u] == v)
                    formed -= gradientBytes(g.vertex(u));
        }
        // P13, P6: ckptx-torch's executor re-forwards or recomputes v with autograd before v's backward,
        // which so holds v's saved extras.
        const std::int64_t own = accumulates ? vertex.autograd->parameterBytes : 0;
        // P66: the loss's gradient of the output comes once nothing but what saved it holds the output.
        const std::int64_t ownTensor = rooted && v == g.sink() ? lossGradient : g.bytes(v);
        // P82: where the executor's measure, read whole, is below v's weights' gradients, they come
        // after the backward's frees and the phase may peak at that rise alone, the gradients v
        // forms in it.
        const std::int64_t mine = accumulates ? 0 : vertex.autograd->parameterBytes;
        std::int64_t backward = mine + formedFirst + formed + leastBackwardWorkspace(vertex, rooted);
        if (const auto& rise = vertex.autograd->leafInputsBackwardRiseBytes; rooted && rise)
            backward = std::min(backward, std::max<std::int64_t>(0, *rise));
        floors.backward[v] = held + ownTensor + wait + grads - formedFirst + weights - mine + own + backward +
                             (rooted ? vertex.autograd->savedBytes : 0);
        weights -= accumulates ? 0 : vertex.autograd->parameterBytes;
    }
    return floors;
}

// Per vertex, the least gradient buffer Alg. 4 allocates at its backward when it is a checkpoint of
// a plan that recomputes: its inputs' largest (the segments it re-forwards may add more). The buffer
// lives until the backward of the next checkpoint, the topologically previous one.
std::vector<std::int64_t> hongBuffers(const Graph& g)
{
    std::vector<std::int64_t> buffers(g.vertexCount(), 0);
    for (VertexIndex v = 0; v < g.vertexCount(); ++v)
        for (VertexIndex u : g.predecessors(v))
            buffers[v] = std::max(buffers[v], g.bytes(u));
    return buffers;
}

// A free vertex whose recompute costs something and which holds bytes: what PeakSearch::leastRecomputeLeft
// weighs, at its topological position and its last reader's.
struct KeepCandidate {
    int position = 0, lastUse = 0;
    double bytes = 0, compute = 0;
};

// Every such vertex, the most compute per byte first: the order in which a plan under a memory cap
// would keep them.
std::vector<KeepCandidate> byComputePerByte(const Graph& g)
{
    std::vector<KeepCandidate> candidates;
    for (VertexIndex v = 0; v < g.vertexCount(); ++v)
        if (v != g.source() && v != g.sink() && forwardCompute(g, v) > 0 && g.bytes(v) > 0) {
            const VertexIndex last = lastSuccessor(g, v);
            candidates.push_back({g.topologicalPosition(v), g.topologicalPosition(last < 0 ? v : last),
                                  static_cast<double>(g.bytes(v)), forwardCompute(g, v)});
        }
    std::stable_sort(candidates.begin(), candidates.end(), [](const KeepCandidate& a, const KeepCandidate& b) {
        return a.compute * b.bytes > b.compute * a.bytes;
    });
    return candidates;
}

// The most free vertices branch and bound visits every checkpoint set of (2^20 plans).
constexpr int kEnumerableVertices = 20;

class PeakSearch {
public:
    PeakSearch(const Graph& graph, const PeakSearchSettings& settings, const SolverOptions& options)
        : m_g(graph), m_settings(settings), m_options(options),
          m_deadline(Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                        std::chrono::duration<double>(std::max(0.0, settings.seconds)))),
          m_floors(phaseFloors(graph)), m_checkpointFunctions(runsCheckpointFunctions(graph)),
          m_gradientBuffer(!m_checkpointFunctions && !runsRootedExecutor(graph)),
          // Zeros where plans run otherwise (P9, P13: a gradient tensor per vertex, in the floors).
          m_hongBuffer(m_gradientBuffer ? hongBuffers(graph) : std::vector<std::int64_t>(graph.vertexCount(), 0)),
          m_byComputePerByte(byComputePerByte(graph))
    {
    }

    PeakSearchResult run(const std::vector<std::vector<VertexIndex>>& starts)
    {
        const auto& topo = m_g.topologicalOrder();
        consider(evaluatePyTorchPeak(m_g, topo));  // the regular step
        for (const auto& s : starts)
            consider(evaluatePyTorchPeak(m_g, s));
        std::vector<PeakCandidate> seeds = m_seeds;
        std::sort(seeds.begin(), seeds.end(), [this](const PeakCandidate& a, const PeakCandidate& b) {
            return better(a, b);
        });
        // The best plan trades too, after the first seed (on DenseNet-121 the seeds' descents take
        // 15 s, the first gives the least peak in 2) and after the last.
        for (const PeakCandidate& seed : seeds)
            if (m_settings.localSearch && !expired() && !enoughFound()) {
                localSearch(seed);
                if (&seed == &seeds.front())
                    trade();
            }
        trade();
        const int free = m_g.vertexCount() - 2;
        // Under torch.utils.checkpoint functions the peak's bounds cannot use a partial plan (P12),
        // so for the least peak branch and bound would visit every checkpoint set: only where they
        // are few. (On the Python exports at batch 8 ten seconds of it never bettered the local
        // search; the budget form prunes by recompute and keeps it.)
        const bool enumerates = m_checkpointFunctions && !m_settings.budget;
        const int exactVertices = enumerates ? std::min(m_settings.exactVertices, kEnumerableVertices)
                                             : m_settings.exactVertices;
        PeakSearchResult result;
        result.method = "local search from " + std::to_string(seeds.size()) + " plans";
        bool complete = false, settled = false;
        if (enoughFound()) {
            result.method += ", stopped at a plan within " + std::to_string(*m_settings.enough) + " bytes";
        } else if (free <= exactVertices && !expired()) {
            if (!m_checkpointFunctions)
                peakFloors();
            // The least peak first, pruning every partial plan that cannot go below it; then, among the
            // plans of that peak, the least recompute. Apart, the first often finishes where the two at
            // once would not (MobileNet_512: 0.2 s against over 10 s).
            complete = branchAndBound(m_settings.budget ? Goal::Question : Goal::LeastPeak);
            m_firstPassSeconds = std::chrono::duration<double>(Clock::now() - m_started).count();
            settled = complete && !m_settings.enough &&
                      (m_settings.budget || branchAndBound(Goal::LeastRecomputeAtPeak));
            result.method += ", then branch and bound" + outcome(complete, settled);
        } else if (free > exactVertices) {
            const int kicked = kicks();
            if (kicked > 0) {
                result.method += ", " + std::to_string(kicked) + " kicks";
                trade();  // the least recompute at a peak the kicks lowered
            }
            result.method += "; branch and bound skipped (" + std::to_string(free) + " free vertices > " +
                             std::to_string(exactVertices) +
                             (enumerates ? ": beside torch.utils.checkpoint functions its bounds are the plan-independent ones, "
                                           "so it would visit every checkpoint set)"
                                         : ")");
        }
        result.best = m_best;
        result.fits = !m_settings.budget || m_best.peak <= *m_settings.budget;
        const std::int64_t bound =
            std::min(m_seeds.front().peak, std::max(staticBound(), m_suffixFloor.empty() ? 0 : m_suffixFloor[1]));
        result.proven = (complete && !m_settings.enough) || (!m_settings.budget && m_best.peak <= bound);
        result.settled = settled;
        result.exhausted = complete && !enoughFound();
        result.lowerBound = result.proven && !m_settings.budget ? m_best.peak : std::min(bound, m_best.peak);
        if (m_settings.budget ? result.proven : result.settled)
            result.recomputeLowerBound = m_best.recomputed;
        else if ((m_settings.budget ? result.fits : result.proven) && !m_checkpointFunctions &&
                 m_g.vertexCount() <= kDescendantsLimit)
            result.recomputeLowerBound = recomputeFloor(m_settings.budget ? *m_settings.budget : m_best.peak);
        result.evaluations = m_evaluations;
        return result;
    }

    std::int64_t staticBound() const
    {
        std::int64_t b = m_floors.forward;
        for (VertexIndex v = 0; v < m_g.vertexCount(); ++v)
            if (!m_g.isInput(v))
                b = std::max(b, m_floors.backward[v]);
        return b;
    }

private:
    // The least recompute of a plan whose peak is at most `cap`, by leastRecomputeLeft() with nothing
    // decided: what an unfinished search reports as its gap. The regular step recomputes nothing and
    // is outside the floors (PhaseFloors), so where it fits, nothing more is known.
    double recomputeFloor(std::int64_t cap)
    {
        if (m_seeds.front().peak <= cap)
            return 0;
        if (m_suffixFloor.empty())  // branch and bound did not run: no floors per suffix, none needed
            m_suffixFloor.assign(m_g.vertexCount(), 0);
        resetBranchState();
        const auto undo = forwardPhase(1);
        bound(1);  // what the decided positions (none but the ends) add to each phase: m_added
        const double least = leastRecomputeLeft(1, cap, std::numeric_limits<double>::infinity());
        undoForwardPhase(1, undo);
        return least;
    }

    // What run()'s branch and bound established, in plain words.
    std::string outcome(bool complete, bool settled) const
    {
        if (!complete)
            return " (stopped at the time limit)";
        if (m_settings.enough)
            return enoughFound() ? ", stopped at a plan within the bytes asked"
                                 : ": no checkpoint set is within the bytes asked";
        char seconds[32];
        std::snprintf(seconds, sizeof seconds, "%.2f", m_firstPassSeconds);
        return settled ? " over every checkpoint set"
                       : std::string(": the least peak proven (") + seconds +
                             " s into the search), the least recompute at it not (stopped at the time limit)";
    }

    // The order both questions rank plans by (PyTorchPeakSearch.h).
    bool better(const PeakCandidate& a, const PeakCandidate& b) const
    {
        if (m_settings.budget) {
            const bool fitsA = a.peak <= *m_settings.budget, fitsB = b.peak <= *m_settings.budget;
            if (fitsA != fitsB)
                return fitsA;
            if (fitsA) {
                if (lessRecompute(a.recomputed, b.recomputed) || lessRecompute(b.recomputed, a.recomputed))
                    return lessRecompute(a.recomputed, b.recomputed);
                return a.peak < b.peak;
            }
        }
        if (a.peak != b.peak)
            return a.peak < b.peak;
        return lessRecompute(a.recomputed, b.recomputed);
    }

    void consider(PeakCandidate c)
    {
        ++m_evaluations;
        if (m_seeds.empty() || better(c, m_best))
            m_best = c;
        m_seeds.push_back(std::move(c));
    }

    // The least-peak form's early stop (PeakSearchSettings::enough).
    bool enoughFound() const
    {
        return !m_settings.budget && m_settings.enough && m_best.peak <= *m_settings.enough;
    }

    bool expired()
    {
        m_options.checkCancelled();
        return Clock::now() >= m_deadline;
    }

    // The mask evaluateMask reads: 1 at each of `checkpoints`.
    std::vector<char> maskOf(const std::vector<VertexIndex>& checkpoints) const
    {
        std::vector<char> mask(m_g.vertexCount(), 0);
        for (VertexIndex c : checkpoints)
            mask[c] = 1;
        return mask;
    }

    PeakCandidate evaluateMask(const std::vector<char>& mask)
    {
        ++m_evaluations;
        std::vector<VertexIndex> set;
        for (VertexIndex v : m_g.topologicalOrder())
            if (mask[v])
                set.push_back(v);
        return evaluatePyTorchPeak(m_g, std::move(set));
    }

    // better() as a comparator, for descend().
    auto byQuestion()
    {
        return [this](const PeakCandidate& a, const PeakCandidate& b) { return better(a, b); };
    }

    // Flips single vertices in or out of the checkpoint set, keeping every flip that helps, by the
    // question's own order. The least-peak form also descends from the seed by (peak, memory held
    // over the step) and then by its order: by (peak, recompute) alone every flip that drops a
    // checkpoint off the peak's phase costs recompute and is refused, so that descent drifts to plans
    // that keep almost everything (DenseNet-121: 285 of 310 vertices, 7 % above the Eq. 2 optimum's
    // plan); neither descent ends lower on every graph (vgg_unet: the plain one, by 3 %).
    void localSearch(const PeakCandidate& seed)
    {
        const auto byOrder = byQuestion();
        descend(seed, byOrder);
        if (!m_settings.budget)
            descend(descend(seed, [](const PeakCandidate& a, const PeakCandidate& b) {
                        return a.peak != b.peak ? a.peak < b.peak : a.held < b.held;
                    }),
                    byOrder);
    }

    // The best plan's descent with trades, unless it already ran on that plan.
    void trade()
    {
        if (!m_settings.localSearch || expired() || enoughFound() || m_best.checkpoints == m_traded)
            return;
        descend(m_best, byQuestion(), true);
        m_traded = m_best.checkpoints;
    }

    // `trades`: where no flip and no move along an edge helps, also keep a non-checkpoint and drop a
    // checkpoint that costs less compute anywhere in the graph, the most compute kept first (what
    // lowers the recompute at an unchanged peak: keeping the one alone raises the peak, dropping
    // the other alone costs recompute).
    template <typename Better>
    PeakCandidate descend(PeakCandidate current, Better improves, bool trades = false)
    {
        std::vector<char> mask = maskOf(current.checkpoints);
        auto fixed = [this](VertexIndex v) { return v == m_g.source() || v == m_g.sink(); };
        std::vector<VertexIndex> byCompute;  // trades: the free vertices, the most compute first
        if (trades) {
            byCompute = m_g.topologicalOrder();
            std::erase_if(byCompute, fixed);
            std::stable_sort(byCompute.begin(), byCompute.end(), [this](VertexIndex a, VertexIndex b) {
                return forwardCompute(m_g, a) > forwardCompute(m_g, b);
            });
        }
        // Applies `change` to the mask and keeps it where the plan improves; undoes it otherwise.
        auto tryChange = [&](auto change) {
            change();
            PeakCandidate next = evaluateMask(mask);
            if (!improves(next, current)) {
                change();
                return false;
            }
            current = std::move(next);
            if (better(current, m_best))
                m_best = current;
            return true;
        };
        for (bool improved = true; improved;) {
            improved = false;
            for (VertexIndex v : m_g.topologicalOrder()) {
                if (fixed(v))
                    continue;
                if (expired() || enoughFound())
                    return current;
                improved |= tryChange([&] { mask[v] ^= 1; });
            }
            if (improved)
                continue;
            // No single flip helps: move a checkpoint along an edge, to a neighbour that is none
            // (DenseNet-121: the peak of a dense layer's backward falls 4 % when its conv2 is kept
            // instead of its conv1, and dropping or adding either alone raises it).
            for (VertexIndex c : m_g.topologicalOrder()) {
                if (!mask[c] || fixed(c))
                    continue;
                for (const auto& neighbours : {m_g.predecessors(c), m_g.successors(c)})
                    for (VertexIndex w : neighbours) {
                        if (expired() || enoughFound())
                            return current;
                        if (mask[c] && !mask[w] && !fixed(w) && tryChange([&] { mask[c] ^= 1, mask[w] ^= 1; }))
                            improved = true;
                    }
            }
            if (improved)
                continue;
            for (VertexIndex keep : byCompute)
                for (auto drop = byCompute.rbegin(); drop != byCompute.rend() && !mask[keep]; ++drop) {
                    if (expired() || enoughFound())
                        return current;
                    if (!lessRecompute(forwardCompute(m_g, *drop), forwardCompute(m_g, keep)))
                        break;
                    if (mask[*drop] && tryChange([&] { mask[keep] ^= 1, mask[*drop] ^= 1; }))
                        improved = true;
                }
        }
        return current;
    }

    // Iterated local search (Lourenço, Martin & Stützle) where branch and bound does not run. A
    // descent stops at the first plan no single change betters, and the seeds' best can lie far from
    // the least peak: on python.profile.straight_through's autoencoder (21 free vertices) the seeds
    // descend to 6.12 MiB with 13 checkpoints, where the least over all 2^21 sets is 5.14 MiB with 3.
    // So each kick either flips two or three vertices of the best plan or starts from a random sparse
    // one (a vertex kept with probability 1/2, 1/4, 1/8 or 1/16), and descends again; the best plan
    // is kept. Bounded by evaluations, not time, with a fixed seed, so that a graph gets the same plan
    // on every machine: at most twice as many as the search made before (at least kKickEvaluations),
    // and none once kFruitlessKicks kicks in a row bettered nothing. Returns the kicks made.
    int kicks()
    {
        constexpr long long kKickEvaluations = 5000;
        constexpr int kFruitlessKicks = 100;
        if (!m_settings.localSearch || !m_settings.kicks)
            return 0;
        std::vector<VertexIndex> free;
        for (VertexIndex v : m_g.topologicalOrder())
            if (v != m_g.source() && v != m_g.sink())
                free.push_back(v);
        const long long last = m_evaluations + std::max(2 * m_evaluations, kKickEvaluations);
        std::mt19937_64 random(0x636b7074);  // "ckpt"
        int made = 0;
        for (int fruitless = 0;
             fruitless < kFruitlessKicks && m_evaluations < last && free.size() >= 2 && !expired() && !enoughFound();
             ++made) {
            std::vector<char> mask(m_g.vertexCount(), 0);
            if (made % 2 == 0) {
                mask = maskOf(m_best.checkpoints);
                const int flips = 2 + static_cast<int>(random() % 2);
                for (int i = 0; i < flips; ++i)
                    mask[free[random() % free.size()]] ^= 1;
            } else {
                const unsigned density = 2u << (random() % 4);  // keep 1 in 2, 4, 8 or 16
                for (VertexIndex v : free)
                    mask[v] = random() % density == 0;
            }
            const PeakCandidate before = m_best;
            localSearch(evaluateMask(mask));
            fruitless = better(m_best, before) ? 0 : fruitless + 1;
        }
        return made;
    }

    // What branch and bound looks for: the question's own order (PyTorchPeakSearch.h), only a
    // smaller peak, or, the least peak known, less recompute at it.
    enum class Goal { Question, LeastPeak, LeastRecomputeAtPeak };

    // Depth-first over the free vertices in topological order; returns false when stopped by
    // the deadline. Sound because the pruning bound (bound()) never exceeds the pytorch peak of
    // any completion but the regular step, which run() evaluated first.
    bool branchAndBound(Goal goal)
    {
        m_goal = goal;
        resetBranchState();
        const auto undo = forwardPhase(1);
        branch(1);
        undoForwardPhase(1, undo);
        return !m_stopped;
    }

    // No free vertex decided; the sink a checkpoint with its buffer (Alg. 4).
    void resetBranchState()
    {
        const int count = m_g.vertexCount();
        m_mask.assign(count, 0);
        m_mask[m_g.source()] = m_mask[m_g.sink()] = 1;
        m_extra.assign(count, 0);
        m_left.assign(count, 0);
        m_component.assign(count, 0);
        m_segment.assign(count, {});
        m_buffer.assign(count, 0);
        m_live.assign(count + 1, 0);
        m_candidateBytes.assign(count + 1, 0);
        m_room.assign(count, 0);
        m_added.assign(count, 0);
        for (VertexIndex v = 0; v < count; ++v)
            m_left[v] = static_cast<int>(m_g.successors(v).size());
        m_forwardLive = m_g.inputBytes();
        m_forwardPeak = 0;
        m_recomputed = 0;
        m_nodes = 0;
        m_stopped = false;
        m_staticBound = staticBound();
        m_suffixStart = 1;
        addCheckpoint(m_g.sink(), +1);
    }

    // Branch and bound's suffix floors, m_suffixFloor, by Russian doll search (Verfaillie, Lemaitre
    // & Schiex, AAAI 1996): per position s, the least segmentBound()'s phases from s on hold in any
    // plan, counting only what the positions from s on decide (those before s are taken as
    // checkpoints that hold nothing). Suffixes are searched shortest first, each pruned by the
    // shorter ones' floors and trying the least plan of the one before first (the best plan's
    // choices before that); one stopped by the time limit keeps the next shorter one's floor, which
    // never exceeds its own. Branch and bound adds what the decided positions hold at every later
    // phase to the floor of the rest (ResNet50_256: the checkpoints kept so far against the least
    // the layers left must hold). The longest suffix's plan is evaluated: where the simulator meets
    // the floor, as on ResNet50_256, it is the least-peak plan.
    void peakFloors()
    {
        const int count = m_g.vertexCount(), last = count - 1;
        const auto& topo = m_g.topologicalOrder();
        m_suffixFloor.assign(count, 0);
        resetBranchState();
        std::fill(m_mask.begin(), m_mask.end(), 1);
        m_bestMask = maskOf(m_best.checkpoints);
        // At most a quarter of what is left: branch and bound, which the floors only speed up,
        // keeps the rest (inception_v3, where they stop short of the first positions: the least
        // peak proven at 4.1 s so, at 5.9 s with half, at 2.2 s without them).
        m_dollDeadline = Clock::now() + (m_deadline - Clock::now()) / 4;
        for (int s = last - 1; s >= 1; --s) {
            m_suffixStart = s;
            m_mask[topo[s]] = 0;
            m_suffixFloor[s] = s + 1 < last ? m_suffixFloor[s + 1] : 0;
            if (m_stopped)
                continue;
            m_suffixLeast = std::numeric_limits<std::int64_t>::max();
            leastSuffixPeak(s);
            if (!m_stopped)
                m_suffixFloor[s] = m_suffixLeast;
        }
        m_suffixStart = 1;
        std::vector<char> plan = m_bestMask;
        plan[m_g.source()] = plan[m_g.sink()] = 1;
        PeakCandidate c = evaluateMask(plan);
        if (better(c, m_best))
            m_best = std::move(c);
    }

    void leastSuffixPeak(int r)
    {
        if (++m_nodes % 256 == 0 && (Clock::now() >= m_dollDeadline || expired()))
            m_stopped = true;
        if (m_stopped)
            return;
        const std::int64_t b = segmentBound(r);
        if (b >= m_suffixLeast)
            return;
        const auto& topo = m_g.topologicalOrder();
        const int last = m_g.vertexCount() - 1;
        if (r == last) {
            m_suffixLeast = b;
            for (int q = m_suffixStart; q < last; ++q)  // the next, longer suffix tries it first
                m_bestMask[topo[q]] = m_mask[topo[q]];
            return;
        }
        const VertexIndex v = topo[r];
        for (char keep : {m_bestMask[v], char(1 - m_bestMask[v])}) {
            m_mask[v] = keep;
            if (keep)
                addCheckpoint(v, +1);
            leastSuffixPeak(r + 1);
            if (keep)
                addCheckpoint(v, -1);
            m_mask[v] = 0;
        }
    }

    struct ForwardUndo {
        std::int64_t live, peak;
    };

    // Forward phase p (F2, P8) of a plan that recomputes: needs the status of positions < p only.
    // Not under P9/P10, whose plans run in an order of their own (P18): the floors stand for it.
    ForwardUndo forwardPhase(int p)
    {
        const ForwardUndo undo{m_forwardLive, m_forwardPeak};
        if (m_checkpointFunctions)
            return undo;
        const VertexIndex x = m_g.topologicalOrder()[p];
        if (!m_g.isInput(x))  // P21: the inputs are live from the start
            m_forwardLive += m_g.bytes(x);
        m_forwardPeak = std::max(m_forwardPeak, m_forwardLive + leastForwardWorkspace(m_g.vertex(x)));
        for (VertexIndex u : m_g.predecessors(x))
            if (--m_left[u] == 0 && !m_mask[u] && !m_g.isInput(u))
                m_forwardLive -= m_g.bytes(u);
        return undo;
    }

    void undoForwardPhase(int p, const ForwardUndo& undo)
    {
        if (!m_checkpointFunctions)
            for (VertexIndex u : m_g.predecessors(m_g.topologicalOrder()[p]))
                ++m_left[u];
        m_forwardLive = undo.live;
        m_forwardPeak = undo.peak;
    }

    // A checkpoint c stays live in the backward phase of every later vertex; up to its last
    // consumer PhaseFloors::backward counts it (as an operand or crossing), after it m_extra does.
    // Not beside torch.utils.checkpoint functions (P12): there
    // a checkpoint lives only as long as what holds it, which the later vertices' choices decide
    // (it may even be computed inside a function and not returned), so it adds nothing to the
    // bounds, in the forward neither.
    void addCheckpoint(VertexIndex c, int sign)
    {
        if (m_checkpointFunctions || m_g.isInput(c))  // the floors hold every input (P21)
            return;
        m_extra[c] += sign * m_hongBuffer[c];
        const auto& topo = m_g.topologicalOrder();
        for (int q = lastUsePosition(c) + 1; q < m_g.vertexCount(); ++q)
            m_extra[topo[q]] += sign * m_g.bytes(c);
    }

    // The position of u's last consumer (u's own where it has none).
    int lastUsePosition(VertexIndex u) const
    {
        const VertexIndex last = lastSuccessor(m_g, u);
        return m_g.topologicalPosition(last < 0 ? u : last);
    }

    // p: the first position not yet decided.
    // segmentBound() counts each vertex's floor and m_extra (no checkpoint adds any under P9).
    std::int64_t bound(int p) const
    {
        const std::int64_t b = std::max(m_forwardPeak, m_staticBound);
        return m_checkpointFunctions ? b : std::max(b, segmentBound(p));
    }

    VertexIndex root(VertexIndex v) const
    {
        while (m_component[v] != v)
            v = m_component[v] = m_component[m_component[v]];
        return v;
    }

    // What the segments of the decided positions (components of their non-checkpoints; later
    // vertices only join them, so each is part of a final one) add at the backward of any v:
    //  - A re-forward allocates its segment whole (PlanMemory's reforward()), at the latest at the
    //    backward of the last vertex that needs it (a member, or a member's consumer), and each member
    //    goes at its own backward: a member before v, of a segment needed at v or after, is live at
    //    v's backward beside what PhaseFloors::backward (v's operands, what crosses v) and m_extra
    //    (the checkpoints before v past their last consumer) count, and so are the extras the
    //    re-forward saved for each member (P6) and v.
    //  - Alg. 4's gradient buffer (hongBuffers): at a checkpoint's backward also as large as the
    //    members and entries of a segment it re-forwards — one no vertex after it reads, which so
    //    nothing re-forwarded before and nothing can join; at a recomputed v's, the buffer of the
    //    nearest decided checkpoint after v.
    // Not beside torch.utils.checkpoint functions: there a re-forward drops what nothing saved (P9).
    //
    // In a suffix search (peakFloors()) the positions before m_suffixStart are checkpoints that hold
    // nothing, and only the phases from it on count. A segment with an entry among them may join
    // members there in a plan, which then need it later: it adds no gradient buffer.
    std::int64_t segmentBound(int p) const
    {
        const auto& topo = m_g.topologicalOrder();
        const int count = m_g.vertexCount();
        const int decided = p == count - 1 ? p + 1 : p;  // the sink, once its inputs are
        // An input left out of the checkpoints joins segments (evaluate()) but is never recomputed,
        // so its consumers do not need the segment.
        auto member = [&](VertexIndex u) { return !m_mask[u]; };
        auto recomputed = [&](VertexIndex u) { return !m_mask[u] && !m_g.isInput(u); };
        for (int q = 1; q < decided; ++q) {
            const VertexIndex v = topo[q];
            if (!member(v))
                continue;
            m_component[v] = v;
            m_segment[v] = {};
            for (VertexIndex u : m_g.predecessors(v))
                if (member(u))
                    m_component[root(u)] = root(v);
        }
        // Only a suffix search has a prefix to enter from (the main search's is the source alone).
        for (int q = m_suffixStart; m_suffixStart > 1 && q < decided; ++q) {
            const VertexIndex v = topo[q];
            if (member(v))
                for (VertexIndex u : m_g.predecessors(v))
                    if (u != m_g.source() && m_g.topologicalPosition(u) < m_suffixStart)
                        m_segment[root(v)].entersFromPrefix = true;
        }
        for (int q = 1; q < decided; ++q) {
            const VertexIndex v = topo[q];
            if (!member(v))
                continue;
            SegmentSoFar& segment = m_segment[root(v)];
            const int lastPosition = lastUsePosition(v);
            segment.joinableUntil = std::max(segment.joinableUntil, lastPosition);
            if (!recomputed(v))
                continue;
            segment.neededUntil = std::max(segment.neededUntil, lastPosition);
            segment.largest = std::max(segment.largest, m_g.bytes(v));
            for (VertexIndex u : m_g.predecessors(v))
                if (!member(u))
                    segment.largest = std::max(segment.largest, m_g.bytes(u));
        }
        std::int64_t buffer = 0;
        for (int q = decided - 1; q >= 1; --q) {
            const VertexIndex v = topo[q];
            if (recomputed(v) || m_g.isInput(v)) {
                m_buffer[v] = buffer;
                continue;
            }
            std::int64_t own = m_hongBuffer[v];
            if (m_gradientBuffer)
                for (VertexIndex u : m_g.predecessors(v))
                    if (recomputed(u) && m_segment[root(u)].joinableUntil == q && !m_segment[root(u)].entersFromPrefix)
                        own = std::max(own, m_segment[root(u)].largest);
            m_buffer[v] = own - m_hongBuffer[v];  // the rest is in m_extra
            buffer = own;
        }
        // Members live at each position's backward, by a difference array: the extras the re-forward
        // saved (P6) from the member on, the member itself after its last consumer (up to there
        // PhaseFloors::backward counts it).
        std::fill(m_live.begin(), m_live.end(), 0);
        for (int q = 1; q < decided; ++q) {
            const VertexIndex v = topo[q];
            if (!recomputed(v))
                continue;
            const int neededUntil = m_segment[root(v)].neededUntil;
            m_live[q + 1] += m_g.vertex(v).autograd->savedBytes;
            m_live[neededUntil + 1] -= m_g.vertex(v).autograd->savedBytes;
            m_live[lastUsePosition(v) + 1] += m_g.bytes(v);  // neededUntil counts v's last consumer
            m_live[neededUntil + 1] -= m_g.bytes(v);
        }
        std::int64_t b = 0, live = 0;
        for (int q = 1; q < count; ++q) {
            live += m_live[q];
            const VertexIndex v = topo[q];
            m_added[q] = std::numeric_limits<std::int64_t>::max();
            if (m_g.isInput(v) || q < m_suffixStart)
                continue;
            const std::int64_t own =  // v's extras are in the floors on ckptx-torch's executor (P13)
                q < decided ? m_buffer[v] + (recomputed(v) && m_gradientBuffer ? m_g.vertex(v).autograd->savedBytes : 0)
                            : 0;
            m_added[q] = m_extra[v] + live + own;
            b = std::max(b, m_floors.backward[v] + m_added[q]);
        }
        // The suffix floors: for every k from the first undecided position on, the phases from k hold
        // at least the floor of the positions from k on and what the decided ones add to each of them
        // (the undecided positions before k add nothing less than none).
        std::int64_t least = m_added[count - 1] - m_hongBuffer[m_g.sink()];  // every floor counts the buffer
        for (int k = count - 2; k >= decided; --k) {
            if (!m_g.isInput(topo[k]))
                least = std::min(least, m_added[k]);
            b = std::max(b, least + m_suffixFloor[k]);
        }
        return b;
    }

    bool pruned(int p)
    {
        const std::int64_t b = bound(p);
        if (m_settings.budget) {
            if (b > *m_settings.budget)
                return true;
            if (m_best.peak > *m_settings.budget)
                return false;
            if (lessRecompute(m_best.recomputed, m_recomputed))
                return true;
            const double least =
                m_recomputed + leastRecomputeLeft(p, *m_settings.budget, m_best.recomputed - m_recomputed);
            return lessRecompute(m_best.recomputed, least) ||
                   (!lessRecompute(least, m_best.recomputed) && b >= m_best.peak);
        }
        if (m_goal == Goal::LeastPeak)
            return b >= m_best.peak || (m_settings.enough && b > *m_settings.enough);
        if (m_goal == Goal::LeastRecomputeAtPeak)  // no plan has a smaller peak than the best's
            return b > m_best.peak || !lessRecompute(m_recomputed, m_best.recomputed) ||
                   !lessRecompute(m_recomputed + leastRecomputeLeft(p, m_best.peak, m_best.recomputed - m_recomputed),
                                  m_best.recomputed);
        return b > m_best.peak || (b == m_best.peak && !lessRecompute(m_recomputed, m_best.recomputed));
    }

    // A lower bound on what the undecided vertices (positions from p on) recompute in any plan whose
    // peak is at most `cap`; it stops once it reaches `enough` (the pruning needs no more). At the
    // backward of the vertex at position q, each checkpoint before q past its last reader is live (P1)
    // on top of the phase's floor and what the decided positions add to it (m_added, from the
    // segmentBound() that ran before: their checkpoints, and their recomputed members a re-forward
    // holds), so the undecided ones kept there must fit in what is left; those dropped are
    // recomputed, each at its compute (S2). Keeping the most compute under every phase's room at
    // once is a knapsack with one constraint per phase; a candidate is in every phase after its last
    // reader, so the constraints nest (a chain), and the fractional relaxation of nested capacities
    // is a polymatroid, on which keeping greedily by compute per byte, each candidate as much as
    // every phase it is in still has room for, is optimal (Edmonds 1970). Its dropped compute bounds
    // the plan's. Not beside torch.utils.checkpoint functions, where a checkpoint adds nothing
    // certain (P12).
    double leastRecomputeLeft(int p, std::int64_t cap, double enough)
    {
        if (m_checkpointFunctions)
            return 0;
        const auto& topo = m_g.topologicalOrder();
        const int count = m_g.vertexCount();
        // The room per phase; first whether keeping every undecided candidate overflows any.
        std::fill(m_candidateBytes.begin(), m_candidateBytes.end(), 0);
        for (const KeepCandidate& c : m_byComputePerByte)
            if (c.position >= p)
                m_candidateBytes[c.lastUse + 1] += static_cast<std::int64_t>(c.bytes);
        std::int64_t kept = 0;
        bool overflows = false;
        for (int q = p + 1; q < count; ++q) {
            kept += m_candidateBytes[q];
            const VertexIndex w = topo[q];
            m_room[q] = m_g.isInput(w) ? std::numeric_limits<double>::infinity()
                                       : static_cast<double>(cap - m_floors.backward[w] - m_added[q]);
            overflows |= static_cast<double>(kept) > m_room[q];
        }
        if (!overflows)
            return 0;
        double dropped = 0;
        for (const KeepCandidate& c : m_byComputePerByte) {
            if (c.position < p)
                continue;
            double keep = c.bytes;
            for (int q = c.lastUse + 1; q < count; ++q)
                keep = std::min(keep, m_room[q]);
            keep = std::max(keep, 0.0);
            if (keep > 0)
                for (int q = c.lastUse + 1; q < count; ++q)
                    m_room[q] -= keep;
            dropped += c.compute * (1 - keep / c.bytes);
            if (dropped >= enough)
                break;
        }
        return dropped;
    }

    void branch(int p)
    {
        if (m_stopped || enoughFound())
            return;
        if (++m_nodes % 256 == 0 && expired()) {
            m_stopped = true;
            return;
        }
        if (pruned(p))
            return;
        const int last = m_g.vertexCount() - 1;  // the sink's position
        if (p == last) {
            PeakCandidate c = evaluateMask(m_mask);
            if (better(c, m_best))
                m_best = std::move(c);
            return;
        }
        const VertexIndex v = m_g.topologicalOrder()[p];
        // Little recompute first where that is the question, otherwise few checkpoints.
        const char first = m_settings.budget ? 1 : 0;
        for (char keep : {first, char(1 - first)}) {
            m_mask[v] = keep;
            if (keep)
                addCheckpoint(v, +1);
            else
                m_recomputed += forwardCompute(m_g, v);
            const auto undo = forwardPhase(p + 1);
            branch(p + 1);
            undoForwardPhase(p + 1, undo);
            if (keep)
                addCheckpoint(v, -1);
            else
                m_recomputed -= forwardCompute(m_g, v);
            m_mask[v] = 0;
        }
    }

    const Graph& m_g;
    const PeakSearchSettings& m_settings;
    const SolverOptions& m_options;
    const Clock::time_point m_started = Clock::now();
    const Clock::time_point m_deadline;
    const PhaseFloors m_floors;
    const bool m_checkpointFunctions;  // P9: plans run as torch.utils.checkpoint functions
    const bool m_gradientBuffer;  // Alg. 4's output-gradient buffer (not P9, P13)
    const std::vector<std::int64_t> m_hongBuffer;
    const std::vector<KeepCandidate> m_byComputePerByte;
    std::vector<PeakCandidate> m_seeds;  // the regular step first
    PeakCandidate m_best;
    std::vector<VertexIndex> m_traded;  // the checkpoints trade() last ended on
    long long m_evaluations = 0;

    // Branch-and-bound state.
    Goal m_goal = Goal::Question;
    double m_firstPassSeconds = 0;  // from the search's start to the end of branch and bound's first pass
    std::vector<char> m_mask;
    std::vector<std::int64_t> m_extra;
    std::vector<int> m_left;
    mutable std::vector<VertexIndex> m_component;  // segmentBound's union-find
    struct SegmentSoFar {
        int neededUntil = 0;       // the topological position of the last recomputed member's consumer
        int joinableUntil = 0;     // the same of every member's (inputs left out of the checkpoints too)
        std::int64_t largest = 0;  // the largest recomputed member or entry
        bool entersFromPrefix = false;  // peakFloors(): a member reads a position before the suffix
    };
    mutable std::vector<SegmentSoFar> m_segment;  // per component root
    mutable std::vector<std::int64_t> m_buffer;   // per vertex: the gradient buffer beyond m_extra
    mutable std::vector<std::int64_t> m_live;  // segmentBound's difference array
    std::vector<std::int64_t> m_candidateBytes;  // leastRecomputeLeft's
    std::vector<double> m_room;                  // leastRecomputeLeft's, per position
    mutable std::vector<std::int64_t> m_added;  // per position, what the decided ones add to its phase
    std::int64_t m_forwardLive = 0, m_forwardPeak = 0, m_staticBound = 0;
    // peakFloors()'s state.
    int m_suffixStart = 1;                     // the first position a suffix search decides
    std::vector<std::int64_t> m_suffixFloor;  // per position (empty until computed)
    std::int64_t m_suffixLeast = 0;            // the least peak a suffix search found so far
    // Its first choice per vertex: the least plan of the longest suffix searched, the best plan's before.
    std::vector<char> m_bestMask;
    Clock::time_point m_dollDeadline;
    double m_recomputed = 0;
    long long m_nodes = 0;
    bool m_stopped = false;
};

}  // namespace

PeakCandidate evaluatePyTorchPeak(const Graph& graph, std::vector<VertexIndex> checkpoints)
{
    const PlanEvaluation plan = evaluate(graph, std::move(checkpoints));
    PeakCandidate c;
    const MemoryProfile profile = simulatePlanMemory(graph, plan, MemoryModel::PyTorch, false);
    c.peak = profile.peakBytes;
    for (const PhaseMemory& phase : profile.phases)
        c.held += phase.endBytes;
    c.recomputed = recomputeCost(graph, plan).recomputed;
    c.checkpoints = plan.checkpoints;
    return c;
}

std::int64_t pytorchPeakLowerBound(const Graph& graph)
{
    const PeakSearchSettings settings;
    const SolverOptions options;
    const std::int64_t regular = evaluatePyTorchPeak(graph, graph.topologicalOrder()).peak;
    return std::min(regular, PeakSearch(graph, settings, options).staticBound());
}

PeakSearchResult searchPyTorchPeak(const Graph& graph, const std::vector<std::vector<VertexIndex>>& starts,
                                   const PeakSearchSettings& settings, const SolverOptions& options)
{
    return PeakSearch(graph, settings, options).run(starts);
}

}  // namespace ckpt
