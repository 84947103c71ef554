#include "theory/ConstrainedChain.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace ckpt {

ConstrainedChain::ConstrainedChain(std::vector<std::int64_t> vertexBytes, std::vector<std::int64_t> memberCost,
                                   std::vector<std::int64_t> memberSegmentCost)
    : m_bytes(std::move(vertexBytes)), m_memberCost(std::move(memberCost)),
      m_memberSegmentCost(std::move(memberSegmentCost))
{
    if (m_bytes.size() != m_memberCost.size() + 1 || m_memberCost.size() != m_memberSegmentCost.size())
        throw std::invalid_argument("ConstrainedChain: k+1 vertices and k members expected");
    m_prefix.resize(m_bytes.size());
    std::int64_t sum = 0;
    for (std::size_t x = 0; x < m_bytes.size(); ++x) {
        if (x > 0)
            sum += m_memberCost[x - 1];
        sum += m_bytes[x];
        m_prefix[x] = sum;  // bounded by the graph's total bytes, which the builder checked
    }
}

std::int64_t ConstrainedChain::segmentCost(int p, int q) const
{
    if (q == p + 1)
        return m_memberSegmentCost[p];
    return m_prefix[q] - m_bytes[q] - m_prefix[p];
}

void ConstrainedChain::appendSegmentCostsFrom(int p, std::vector<std::int64_t>& out) const
{
    for (int q = p + 1; q <= length(); ++q)
        out.push_back(segmentCost(p, q));
}

const ConstrainedChain::Solution& ConstrainedChain::solve(int from, int to, std::int64_t c, Workspace& work) const
{
    Solution& s = work.solution;
    s.chosen.clear();
    s.bytes = 0;
    // The whole run fits C: no checkpoint needed (Alg. 5 step 1 for the run).
    if (const std::int64_t whole = segmentCost(from, to); whole <= c) {
        s.maxSegment = whole;
        return s;
    }
    constexpr std::int64_t unreachable = std::numeric_limits<std::int64_t>::max();
    const int n = to - from + 1;
    // best[q]: least bytes of checkpoints in (from, q] with x_q a checkpoint; prev: argmin.
    auto& best = work.best;
    auto& prev = work.prev;
    best.assign(n, unreachable);
    prev.assign(n, -1);
    best[0] = 0;
    // Candidates p (local) in [lo, q-2] with best[] increasing: a monotone deque kept in
    // window[head, tail).
    auto& window = work.window;
    window.resize(n);
    int head = 0, tail = 0, lo = 0;
    for (int q = 1; q < n; ++q) {
        if (q >= 2 && best[q - 2] != unreachable) {
            while (tail > head && best[window[tail - 1]] >= best[q - 2])
                --tail;
            window[tail++] = q - 2;
        }
        // Segments from p to q (q >= p + 2) fit C iff prefix[p] >= prefix[q] - bytes[q] - C;
        // the left bound only moves right as q grows.
        const std::int64_t need = m_prefix[from + q] - m_bytes[from + q] - c;
        while (lo < q && m_prefix[from + lo] < need)
            ++lo;
        while (tail > head && window[head] < lo)
            ++head;
        std::int64_t b = unreachable;
        int arg = -1;
        if (tail > head) {
            b = best[window[head]];
            arg = window[head];
        }
        if (m_memberSegmentCost[from + q - 1] <= c && best[q - 1] < b) {
            b = best[q - 1];
            arg = q - 1;
        }
        if (arg < 0)
            continue;
        best[q] = b + (q == n - 1 ? 0 : m_bytes[from + q]);
        prev[q] = arg;
    }
    if (best[n - 1] == unreachable)
        throw std::logic_error("ConstrainedChain: a member exceeds C");
    s.bytes = best[n - 1];
    s.maxSegment = 0;
    for (int q = n - 1; q > 0; q = prev[q]) {
        s.maxSegment = std::max(s.maxSegment, segmentCost(from + prev[q], from + q));
        if (prev[q] > 0)
            s.chosen.push_back(from + prev[q]);
    }
    return s;
}

}  // namespace ckpt
