#include "solvers/HongDpSolver.h"

#include "solvers/ChainCandidates.h"

#include <algorithm>
#include <deque>
#include <limits>

namespace ckpt {

namespace {

constexpr std::int64_t kInfinite = std::numeric_limits<std::int64_t>::max() / 4;

// Minimal checkpoint memory with every segment <= s (Eq. 7-8); parents for the positions.
std::int64_t minimalCheckpointMemory(const CandidateChain& chain, const std::vector<std::int64_t>& prefix,
                                     std::int64_t s, std::vector<int>* parent)
{
    const int m = chain.size() - 1;
    // segment(j, i): bytes strictly between candidates j and i, gaps included.
    auto segment = [&](int j, int i) { return prefix[i] - prefix[j] - chain.bytes[i]; };
    std::vector<std::int64_t> f(m + 1, kInfinite);
    f[0] = chain.bytes[0];
    std::deque<int> queue;  // increasing j, increasing f
    int l = 0;
    for (int i = 1; i <= m; ++i) {
        const int j = i - 1;
        if (f[j] < kInfinite) {
            while (!queue.empty() && f[queue.back()] >= f[j])
                queue.pop_back();
            queue.push_back(j);
        }
        while (l < i && segment(l, i) > s)
            ++l;
        while (!queue.empty() && queue.front() < l)
            queue.pop_front();
        if (queue.empty())
            continue;
        f[i] = chain.bytes[i] + f[queue.front()];
        if (parent)
            (*parent)[i] = queue.front();
    }
    return f[m];
}

}  // namespace

ChainSelection hongCheckpointSelection(const CandidateChain& chain, const SolverOptions& options)
{
    const int m = chain.size() - 1;
    std::vector<std::int64_t> prefix(m + 1, 0);  // prefix[t] = sum_{u<=t} d_u + gap_u
    for (int t = 0; t <= m; ++t)
        prefix[t] = (t ? prefix[t - 1] : 0) + chain.bytes[t] + chain.gapBytes[t];
    std::vector<std::int64_t> bounds;
    for (int i = 1; i <= m; ++i)
        for (int j = 0; j < i; ++j)
            bounds.push_back(prefix[i] - prefix[j] - chain.bytes[i]);
    std::sort(bounds.begin(), bounds.end());
    bounds.erase(std::unique(bounds.begin(), bounds.end()), bounds.end());

    std::int64_t best = kInfinite, bestBound = 0, work = 0;
    for (std::int64_t s : bounds) {
        if (s >= best)
            break;  // s + c_s >= s cannot improve any more
        options.checkCancelled();
        const std::int64_t c = minimalCheckpointMemory(chain, prefix, s, nullptr);
        work += m;
        if (c < kInfinite && s + c < best) {
            best = s + c;
            bestBound = s;
        }
    }
    ChainSelection out;
    out.value = best;
    out.work = work;
    if (m == 0) {
        out.positions = {0};
        out.value = chain.bytes[0];
        return out;
    }
    std::vector<int> parent(m + 1, -1);
    minimalCheckpointMemory(chain, prefix, bestBound, &parent);
    for (int i = m; i > 0; i = parent[i])
        out.positions.push_back(i);
    out.positions.push_back(0);
    std::reverse(out.positions.begin(), out.positions.end());
    return out;
}

Plan HongDpSolver::solve(const Graph& graph, const SolverOptions& options) const
{
    std::vector<std::string> notes;
    const CandidateChain chain = hongChain(graph, notes);
    const ChainSelection selection = hongCheckpointSelection(chain, options);
    Plan plan = makePlan(graph, *this, options, chainVertices(chain, selection.positions));
    plan.notes = std::move(notes);
    plan.notes.push_back("Eq. 6 optimum on the chain: " + std::to_string(selection.value) + " bytes");
    return plan;
}

}  // namespace ckpt
