#include "solvers/HongDynamicSolver.h"

#include "solvers/HongDynamicQuadraticSolver.h"

#include <algorithm>

namespace ckpt {

namespace {

// U(i, j) = s(i, j) + d_j (Eq. 15) in O(log n): prefix sums for the sum, and for
// max_{i<=t<j} e_t with e_t = max(d_t, gapMax_{t+1}) a stack of the prefix maxima of e from i.
class SegmentTerms {
public:
    explicit SegmentTerms(const CandidateChain& chain) : m_chain(chain), m_prefix(chain.size(), 0)
    {
        for (int t = 0; t < chain.size(); ++t)
            m_prefix[t] = (t ? m_prefix[t - 1] : 0) + chain.bytes[t] + chain.gapBytes[t];
    }

    // Makes i the new left end (i decreases by one each time).
    void extendLeft(int i)
    {
        const std::int64_t e = element(i);
        while (!m_maxima.empty() && element(m_maxima.back()) <= e)
            m_maxima.pop_back();
        m_maxima.push_back(i);
        m_left = i;
    }

    std::int64_t u(int j)
    {
        ++m_evaluations;
        const std::int64_t between = m_prefix[j - 1] - m_prefix[m_left] + m_chain.gapBytes[j];
        // m_maxima holds descending indices; the max over [i, j-1] is at the first index <= j-1.
        auto it = std::lower_bound(m_maxima.begin(), m_maxima.end(), j - 1,
                                   [](int index, int bound) { return index > bound; });
        return between + element(*it) + m_chain.bytes[j];
    }

    std::int64_t evaluations() const { return m_evaluations; }

private:
    std::int64_t element(int t) const { return std::max(m_chain.bytes[t], m_chain.gapMax[t + 1]); }

    const CandidateChain& m_chain;
    std::vector<std::int64_t> m_prefix;
    std::vector<int> m_maxima;
    int m_left = 0;
    std::int64_t m_evaluations = 0;
};

}  // namespace

ChainSelection hongDynamicLinear(const CandidateChain& chain, const SolverOptions& options)
{
    const int m = chain.size() - 1;
    std::vector<std::int64_t> best(m + 1, 0);
    std::vector<int> next(m + 1, m);
    best[m] = chain.bytes[m];
    SegmentTerms terms(chain);
    // The queue Q of Lemma 2 as a vector whose back is the head (smallest index, largest M).
    std::vector<int> queue{m};
    std::size_t at = 0;  // position of j in `queue`; starts at j* of the previous i (line 4)
    for (int i = m - 1; i >= 0; --i) {
        if ((i & 4095) == 0)
            options.checkCancelled();
        terms.extendLeft(i);
        // Lines 8-12: move towards the head while U(i, j) >= M(j).
        while (at + 1 < queue.size() && terms.u(queue[at]) >= best[queue[at]])
            ++at;
        // Line 13-14: j or the queue element after it (towards larger indices).
        std::size_t choice = at;
        std::int64_t value = std::max(best[queue[at]], terms.u(queue[at]));
        if (at > 0) {
            const std::int64_t after = std::max(best[queue[at - 1]], terms.u(queue[at - 1]));
            if (after <= value) {
                value = after;
                choice = at - 1;
            }
        }
        best[i] = chain.bytes[i] + value;
        next[i] = queue[choice];
        at = choice;
        // Lines 15-16.
        while (!queue.empty() && best[queue.back()] >= best[i])
            queue.pop_back();
        queue.push_back(i);
        at = std::min(at, queue.size() - 1);
    }
    ChainSelection out;
    out.value = best[0];
    out.work = terms.evaluations();
    for (int i = 0;; i = next[i]) {
        out.positions.push_back(i);
        if (i == m)
            break;
    }
    return out;
}

Plan HongDynamicSolver::solve(const Graph& graph, const SolverOptions& options) const
{
    return hongDynamicPlan(graph, *this, options, &hongDynamicLinear);
}

}  // namespace ckpt
