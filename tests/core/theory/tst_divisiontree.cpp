// Independent Segments, their types and divisions, and the division tree (Feng & Huang
// §5.1–5.3) on the paper's examples and on random graphs.
#include "PaperNetworks.h"
#include "RandomGraphs.h"
#include "TestData.h"
#include "io/GraphJson.h"
#include "theory/DivisionTree.h"
#include "theory/IndependentSegment.h"

#include <QtTest>

#include <cstdlib>
#include <set>

using namespace ckpt;

namespace {

Graph example(const char* name)
{
    return readGraphFile(test::sourcePath(QStringLiteral("resources/examples/%1.json").arg(name)).toStdString());
}

VertexIndex at(const Graph& g, const char* id) { return *g.find(id); }

std::string endsOf(const Graph& g, const IndependentSegment& s)
{
    return g.vertex(s.source).id + "-" + g.vertex(s.target).id;
}

using EdgeSet = std::set<std::pair<VertexIndex, VertexIndex>>;

EdgeSet edgesOf(const Graph& g, const IndependentSegment& s)
{
    std::set<VertexIndex> in(s.vertices.begin(), s.vertices.end());
    EdgeSet out;
    for (VertexIndex v : s.vertices)
        for (VertexIndex w : g.successors(v))
            if (in.count(w) && (v != s.source || w != s.target || s.hasDirectEdge))
                out.insert({v, w});
    return out;
}

// small ⊆ big (vertices and edges); `strictly`: and small != big.
bool inside(const Graph& g, const IndependentSegment& small, const IndependentSegment& big, bool strictly)
{
    const EdgeSet a = edgesOf(g, small), b = edgesOf(g, big);
    const std::set<VertexIndex> va(small.vertices.begin(), small.vertices.end()),
        vb(big.vertices.begin(), big.vertices.end());
    return std::includes(vb.begin(), vb.end(), va.begin(), va.end()) &&
           std::includes(b.begin(), b.end(), a.begin(), a.end()) && (!strictly || a != b || va != vb);
}

// Def. 2 / Alg. 2 step 2–3 verbatim: v splits s_ij iff its ancestors and descendants inside
// s_ij cover the rest, do not overlap, and have no edge between them.
std::vector<VertexIndex> splittingByDefinition(const Graph& g, const IndependentSegment& s)
{
    const EdgeSet edges = edgesOf(g, s);
    std::vector<VertexIndex> out;
    for (VertexIndex v : s.vertices) {
        if (v == s.source || v == s.target)
            continue;
        std::set<VertexIndex> in, outSet;
        // Closures over the IS's own edges.
        auto close = [&](VertexIndex start, bool forward) {
            std::set<VertexIndex> seen;
            std::vector<VertexIndex> stack{start};
            while (!stack.empty()) {
                VertexIndex x = stack.back();
                stack.pop_back();
                for (auto [a, b] : edges) {
                    const VertexIndex next = forward ? (a == x ? b : -1) : (b == x ? a : -1);
                    if (next >= 0 && seen.insert(next).second)
                        stack.push_back(next);
                }
            }
            return seen;
        };
        in = close(v, false);
        outSet = close(v, true);
        bool ok = in.size() + outSet.size() + 1 == s.vertices.size();
        for (VertexIndex x : in)
            ok = ok && !outSet.count(x);
        for (auto [a, b] : edges)
            ok = ok && !(in.count(a) && outSet.count(b));
        if (ok)
            out.push_back(v);
    }
    return out;
}

// Every structural promise of the tree, checked from the definitions.
void checkTree(const Graph& g, const DivisionTree& tree, const QByteArray& where)
{
    QVERIFY2(tree.segment(0).vertices.size() == static_cast<std::size_t>(g.vertexCount()), where);
    for (int index = 0; index < tree.size(); ++index) {
        const DivisionNode& node = tree.node(index);
        const IndependentSegment s = tree.segment(index);
        QVERIFY2(isIndependentSegment(g, s.vertices, s.source, s.target), where);
        // The sizes kept for members that were never read (the smaller-half rule) are exact.
        std::int64_t cost = 0;
        for (std::size_t k = 1; k + 1 < s.vertices.size(); ++k)
            cost += g.bytes(s.vertices[k]);
        QVERIFY2(node.cost == cost && node.interiorSize + 2 == static_cast<int>(s.vertices.size()), where);
        QVERIFY2(node.hasDirectEdge == s.hasDirectEdge && node.source == s.source && node.target == s.target, where);
        // The division is the one Alg. 2-4 give for this IS on its own.
        const Division reference = divide(g, s);
        QVERIFY2(reference.type == node.type && reference.members.size() == node.children.size(), where);
        for (std::size_t m = 0; m < node.children.size(); ++m) {
            const IndependentSegment member = tree.segment(node.children[m]);
            QVERIFY2(member.vertices == reference.members[m].vertices &&
                         member.hasDirectEdge == reference.members[m].hasDirectEdge,
                     where + " member " + QByteArray::number(int(m)));
        }
        if (node.type == SegmentType::Leaf) {
            QVERIFY2(s.isSingleEdge() && s.hasDirectEdge && node.children.empty(), where);
            continue;
        }
        QVERIFY2(node.children.size() >= 2, where);
        // The members' edges partition the node's edges.
        EdgeSet all;
        std::size_t count = 0;
        for (int c : node.children) {
            const EdgeSet e = edgesOf(g, tree.segment(c));
            count += e.size();
            all.insert(e.begin(), e.end());
        }
        QVERIFY2(all == edgesOf(g, s) && count == all.size(), where);
        const auto splits = linearSplittingVertices(g, s);
        QVERIFY2(splits == splittingByDefinition(g, s), where);
        if (node.type == SegmentType::Linear) {
            QVERIFY2(splits.size() + 1 == node.children.size(), where);
            VertexIndex expect = s.source;
            for (int c : node.children) {
                QVERIFY2(tree.node(c).source == expect, where);
                expect = tree.node(c).target;
            }
            QVERIFY2(expect == s.target, where);
            continue;
        }
        QVERIFY2(splits.empty(), where);
        if (node.type == SegmentType::Branch) {
            for (int c : node.children)
                QVERIFY2(tree.node(c).source == s.source && tree.node(c).target == s.target, where);
            continue;
        }
        // Complicate (Def. 5, 6): one branch, and the members are exactly the maximal
        // proper IS: none lies strictly inside another proper IS, and every proper IS lies
        // inside a member.
        QVERIFY2(!s.hasDirectEdge, where);
        std::vector<IndependentSegment> proper;
        for (VertexIndex p : s.vertices)
            for (VertexIndex q : s.vertices)
                if ((p != s.source || q != s.target) && g.topologicalPosition(p) < g.topologicalPosition(q))
                    if (auto is = largestIndependentSegment(g, p, q))
                        proper.push_back(*is);
        for (int c : node.children) {
            const IndependentSegment m = tree.segment(c);
            for (const IndependentSegment& other : proper)
                QVERIFY2(!inside(g, m, other, true), where + " member " + endsOf(g, m).c_str());
        }
        for (const IndependentSegment& other : proper) {
            bool covered = false;
            for (int c : node.children)
                covered = covered || inside(g, other, tree.segment(c), false);
            QVERIFY2(covered, where + " IS " + endsOf(g, other).c_str() + " is in no member");
        }
    }
}

std::multiset<std::string> memberEnds(const Graph& g, const DivisionTree& tree, int node)
{
    std::multiset<std::string> out;
    for (int c : tree.node(node).children)
        out.insert(endsOf(g, tree.segment(c)));
    return out;
}

}  // namespace

class DivisionTreeTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void fig3IndependentSegment()
    {
        const Graph g = example("fig3");
        // v_i and v_t form an IS (its interior v_k depends on nothing outside) ...
        const auto it = largestIndependentSegment(g, at(g, "i"), at(g, "t"));
        QVERIFY(it);
        QCOMPARE(it->vertices, (std::vector<VertexIndex>{at(g, "i"), at(g, "k"), at(g, "t")}));
        QVERIFY(it->hasDirectEdge);
        QCOMPARE(it->cost, 6);
        // ... v_k and v_j cannot: v_t depends on v_i.
        QVERIFY(!largestIndependentSegment(g, at(g, "k"), at(g, "j")));
        QVERIFY(!isIndependentSegment(g, {at(g, "k"), at(g, "t"), at(g, "j")}, at(g, "k"), at(g, "j")));
        QCOMPARE(linearSplittingVertices(g, *largestIndependentSegment(g, at(g, "i"), at(g, "j"))),
                 std::vector<VertexIndex>{at(g, "t")});
    }

    void fig4Columns()
    {
        {  // Linear IS s_ij, division {s_ik, s_kj}.
            const Graph g = example("fig4-linear");
            const DivisionTree t = DivisionTree::build(g);
            QCOMPARE(t.node(0).type, SegmentType::Linear);
            QCOMPARE(memberEnds(g, t, 0), (std::multiset<std::string>{"i-k", "k-j"}));
            for (int c : t.node(0).children)
                QCOMPARE(t.node(c).type, SegmentType::Branch);
        }
        {  // Branch IS, division into its three branches.
            const Graph g = example("fig4-branch");
            const DivisionTree t = DivisionTree::build(g);
            QCOMPARE(t.node(0).type, SegmentType::Branch);
            QCOMPARE(memberEnds(g, t, 0), (std::multiset<std::string>{"i-j", "i-j", "i-j"}));
            QCOMPARE(t.node(0).segmentCost, 9);  // the largest branch (b, c) = 4 + 5
            QCOMPARE(t.node(0).cost, 23);
        }
        {  // Complicate IS, division {s_ik, s_it, s_kt, s_kj, s_tj} (Def. 6).
            const Graph g = example("fig4-complicate");
            const DivisionTree t = DivisionTree::build(g);
            QCOMPARE(t.node(0).type, SegmentType::Complicate);
            QCOMPARE(memberEnds(g, t, 0), (std::multiset<std::string>{"i-k", "i-t", "k-t", "k-j", "t-j"}));
            checkTree(g, t, "fig4-complicate");
            // divide() on its own gives the same division; the member s_kj is {k, d, j}.
            const Division d = divide(g, t.segment(0));
            QCOMPARE(d.type, SegmentType::Complicate);
            QCOMPARE(d.members.size(), 5u);
            QCOMPARE(d.members[3].vertices, (std::vector<VertexIndex>{at(g, "k"), at(g, "d"), at(g, "j")}));
            QCOMPARE(d.members[3].cost, 9);
        }
    }

    void blocks()
    {
        {  // Residual: a Linear chain of Branch IS (skip edge + body, or projection + body).
            const Graph g = example("residual");
            const DivisionTree t = DivisionTree::build(g);
            QCOMPARE(t.node(0).type, SegmentType::Linear);
            QCOMPARE(memberEnds(g, t, 0),
                     (std::multiset<std::string>{"input-conv1", "conv1-block1.add", "block1.add-block2.add",
                                                 "block2.add-block3.add", "block3.add-pool", "pool-fc"}));
            checkTree(g, t, "residual");
            QVERIFY(!t.hasComplicate());
        }
        {  // Inception: a Branch IS of four branches, then the next layer.
            const Graph g = example("inception");
            const DivisionTree t = DivisionTree::build(g);
            QCOMPARE(t.node(0).type, SegmentType::Linear);
            const int module = t.node(0).children[0];
            QCOMPARE(t.node(module).type, SegmentType::Branch);
            QCOMPARE(t.node(module).children.size(), 4u);
            checkTree(g, t, "inception");
        }
        {  // Dense block: the input->transition edge is a branch; the rest is a Complicate
           // IS whose only proper IS are its single edges.
            const Graph g = example("dense-block");
            const DivisionTree t = DivisionTree::build(g);
            QCOMPARE(t.node(0).type, SegmentType::Branch);
            const int dense = t.node(0).children[1];
            QCOMPARE(t.node(dense).type, SegmentType::Complicate);
            QCOMPARE(t.node(dense).children.size(), 14u);
            for (int c : t.node(dense).children)
                QCOMPARE(t.node(c).type, SegmentType::Leaf);
            checkTree(g, t, "dense-block");
        }
    }

    void twoVertexGraphIsOneLeaf()
    {
        const Graph g = test::makeChain({1, 2});
        const DivisionTree t = DivisionTree::build(g);
        QCOMPARE(t.size(), 1);
        QCOMPARE(t.node(0).type, SegmentType::Leaf);
    }

    void nestedComplicate()
    {
        // Fig. 4's Complicate IS with its member s_kj replaced by another Complicate IS: the
        // outer division keeps s_kj whole (it is maximal), and s_kj divides again.
        const Graph g = test::makeGraph(
            {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13},
            {{0, 1}, {1, 2}, {0, 3}, {3, 4}, {2, 5}, {5, 4}, {4, 6}, {6, 12},
             // s_kj with k = 2, j = 12, Complicate: 2 -> 7 -> 8, 2 -> 9 -> 10, 8 -> 11 -> 10, 8 -> ... -> 12
             {2, 7}, {7, 8}, {2, 9}, {9, 10}, {8, 11}, {11, 10}, {8, 12}, {10, 12}});
        const DivisionTree t = DivisionTree::build(g);
        checkTree(g, t, "nested complicate");
        QCOMPARE(t.node(0).type, SegmentType::Complicate);
        int complicate = 0;
        for (const DivisionNode& n : t.nodes())
            complicate += n.type == SegmentType::Complicate;
        QCOMPARE(complicate, 2);
    }

    // Nested skips v_i -> v_(n-1-i): Branch and Linear IS alternate all the way down, each
    // holding all but two vertices of its parent (the case the smaller-half rule is for).
    void nestedRainbow()
    {
        const int n = 61;
        const Graph g = test::makeRainbow(n);
        const DivisionTree t = DivisionTree::build(g);
        checkTree(g, t, "rainbow");
        int depth = 0;
        for (int node = 0; !t.node(node).children.empty(); ++depth) {
            const DivisionNode& x = t.node(node);
            QCOMPARE(x.type, depth % 2 == 0 ? SegmentType::Branch : SegmentType::Linear);
            node = x.children[1];  // the Branch's path beside its direct edge; the Linear's middle member
        }
        QCOMPARE(depth, n - 1);  // 30 skips, each a Branch over a Linear
    }

    void randomTrees()
    {
        const int count = std::getenv("CKPT_LONG") ? 50000 : 1400;
        for (int k = 0; k < count; ++k) {
            std::mt19937_64 rng(5000 + k);
            const auto shape = static_cast<test::RandomShape>(k % test::kRandomShapeCount);
            const test::RandomGraphSpec spec = test::randomGraph(shape, 14, rng);
            const Graph g = test::makeGraph(spec.bytes, spec.edges);
            const DivisionTree t = DivisionTree::build(g);
            checkTree(g, t, QByteArray(test::shapeName(shape).c_str()) + ": " + spec.describe().c_str());
            if (shape == test::RandomShape::SeriesParallel || shape == test::RandomShape::Chain ||
                shape == test::RandomShape::ResidualChain || shape == test::RandomShape::Inception)
                QVERIFY(!t.hasComplicate());
        }
    }
};

QTEST_GUILESS_MAIN(DivisionTreeTest)
#include "tst_divisiontree.moc"
