#pragma once
// The linear problem under a fixed max term C (Feng & Huang §4, Alg. 1 steps 2–5): on a
// chain x_0 -> x_1 -> ... -> x_k whose links are member IS, choose checkpoints among
// x_1..x_{k-1} of least total bytes such that every segment between adjacent checkpoints
// costs at most C. The paper builds the accessibility graph (an edge p -> q when the
// segment between them fits C) and runs a shortest path on it; because segment costs grow
// with q, the admissible p form a sliding window and the shortest path is an O(k)
// sliding-window minimum (monotone deque).
#include <cstdint>
#include <vector>

namespace ckpt {

class ConstrainedChain {
public:
    // vertexBytes: k+1 bytes of x_0..x_k. memberCost[m]: the interior bytes of the member
    // between x_m and x_{m+1}. memberSegmentCost[m]: the largest segment that member leaves
    // when x_m and x_{m+1} are both checkpoints (its cost, or its largest branch).
    ConstrainedChain(std::vector<std::int64_t> vertexBytes, std::vector<std::int64_t> memberCost,
                     std::vector<std::int64_t> memberSegmentCost);

    int length() const { return static_cast<int>(m_memberCost.size()); }
    // Cost of the segment between checkpoints x_p and x_q (p < q) with nothing between.
    std::int64_t segmentCost(int p, int q) const;
    // segmentCost(p, q) for every q > p, appended to `out` (not deduplicated).
    void appendSegmentCostsFrom(int p, std::vector<std::int64_t>& out) const;

    struct Solution {
        std::vector<int> chosen;       // positions strictly between from and to, descending
        std::int64_t bytes = 0;        // their bytes
        std::int64_t maxSegment = 0;   // largest segment left
    };
    // Buffers reused between calls (a sweep calls solve thousands of times).
    struct Workspace {
        std::vector<std::int64_t> best;
        std::vector<int> prev, window;
        Solution solution;
    };
    // x_from and x_to are checkpoints already; every member between them must have
    // memberSegmentCost <= c (the caller breaks the others down first). The result lives in
    // work.solution until the next call.
    const Solution& solve(int from, int to, std::int64_t c, Workspace& work) const;

private:
    std::vector<std::int64_t> m_bytes;
    std::vector<std::int64_t> m_memberCost;
    std::vector<std::int64_t> m_memberSegmentCost;
    std::vector<std::int64_t> m_prefix;  // m_prefix[x] = bytes(x_0..x_x) + cost(members before x_x)
};

}  // namespace ckpt
