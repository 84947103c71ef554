#include "TreeDisplayBuilder.h"

#include "theory/IndependentSegment.h"
#include "util/Units.h"

#include <QObject>

#include <algorithm>
#include <utility>

namespace ckpt::ui {

namespace {

QString name(const Graph& g, VertexIndex v)
{
    const Vertex& x = g.vertex(v);
    return QString::fromStdString(x.name.empty() ? x.id : x.name);
}

QString names(const Graph& g, const std::vector<VertexIndex>& vs, std::size_t limit = 10)
{
    QStringList list;
    for (std::size_t i = 0; i < vs.size() && i < limit; ++i)
        list << name(g, vs[i]);
    if (vs.size() > limit)
        list << QObject::tr("… %1 more").arg(vs.size() - limit);
    return list.join(QStringLiteral(", "));
}

TreeDisplay::Kind kindOf(SegmentType type)
{
    switch (type) {
    case SegmentType::Linear: return TreeDisplay::Kind::Linear;
    case SegmentType::Branch: return TreeDisplay::Kind::Branch;
    case SegmentType::Complicate: return TreeDisplay::Kind::Complicate;
    case SegmentType::Leaf: break;
    }
    return TreeDisplay::Kind::Leaf;
}

QString memberList(const Graph& g, const DivisionTree& tree, const DivisionNode& node, std::size_t limit = 8)
{
    QStringList list;
    for (std::size_t i = 0; i < node.children.size() && i < limit; ++i) {
        const DivisionNode& m = tree.node(node.children[i]);
        list << QStringLiteral("%1 → %2").arg(name(g, m.source), name(g, m.target));
    }
    if (node.children.size() > limit)
        list << QObject::tr("… %1 more").arg(node.children.size() - limit);
    return list.join(QStringLiteral("; "));
}

// A Linear IS's splitting vertices: where its members meet.
std::vector<VertexIndex> splittingVertices(const DivisionTree& tree, const DivisionNode& node)
{
    std::vector<VertexIndex> out;
    for (std::size_t i = 0; i + 1 < node.children.size(); ++i)
        out.push_back(tree.node(node.children[i]).target);
    return out;
}

// Why the IS has its type (Feng & Huang Def. 3-6), from what the core found.
QString explanation(const Graph& g, const DivisionTree& tree, const DivisionNode& node)
{
    const DivisionNode& s = node;
    const QString st = QStringLiteral("%1 → %2").arg(name(g, s.source), name(g, s.target));
    switch (node.type) {
    case SegmentType::Linear:
        return QObject::tr("Linear (Def. 3): every path from %1 to %2 passes through its linear splitting vertices "
                           "%3 (Def. 2). Cutting there divides it into %4 IS in a row: %5.")
            .arg(name(g, s.source), name(g, s.target), names(g, splittingVertices(tree, node)))
            .arg(node.children.size())
            .arg(memberList(g, tree, node));
    case SegmentType::Branch:
        return QObject::tr("Branch (Def. 4): no vertex lies on every path from %1 to %2, and its interior falls "
                           "apart into %3 branches that share only %1 and %2: %4. Each branch is re-forwarded on its "
                           "own, so its segment cost is the largest branch's.")
            .arg(name(g, s.source), name(g, s.target))
            .arg(node.children.size())
            .arg(memberList(g, tree, node));
    case SegmentType::Complicate:
        return QObject::tr("Complicate (Def. 5): %1 has no linear splitting vertex, and its paths cross, so it does "
                           "not fall apart into branches. It divides into its %2 maximal proper member IS (Def. 6): %3.")
            .arg(st)
            .arg(node.children.size())
            .arg(memberList(g, tree, node));
    case SegmentType::Leaf: break;
    }
    return QObject::tr("A single edge %1: the smallest IS, nothing to divide.").arg(st);
}

// Sorting each node's children by (source, target) finds the parallel ones in O(k log k): a root
// Linear IS of a 100k-vertex residual net has 50k children, too many to compare pairwise.
void markParallelSiblings(TreeDisplay& display)
{
    std::vector<int> order;
    for (const TreeDisplay::Node& parent : display.nodes) {
        order = parent.children;
        const auto ends = [&display](int c) {
            const TreeDisplay::Node& n = display.nodes[std::size_t(c)];
            return std::pair(n.source, n.target);
        };
        std::sort(order.begin(), order.end(), [&](int a, int b) { return ends(a) < ends(b); });
        for (std::size_t i = 1; i < order.size(); ++i)
            if (ends(order[i - 1]) == ends(order[i]))
                display.nodes[std::size_t(order[i - 1])].parallel = display.nodes[std::size_t(order[i])].parallel = true;
    }
}

}  // namespace

TreeDisplay makeTreeDisplay(const Graph& graph, const DivisionTree& tree)
{
    TreeDisplay display;
    display.nodes.reserve(std::size_t(tree.size()));
    for (int index = 0; index < tree.size(); ++index) {
        const DivisionNode& n = tree.node(index);
        TreeDisplay::Node d;
        d.kind = kindOf(n.type);
        d.source = n.source;
        d.target = n.target;
        const auto held = tree.held(index);
        d.held.assign(held.begin(), held.end());
        d.interiorSize = n.interiorSize;
        d.cost = n.cost;
        d.segmentCost = n.segmentCost;
        d.parent = n.parent;
        d.children = n.children;
        d.explanation = explanation(graph, tree, n);
        display.nodes.push_back(std::move(d));
    }
    // Children come after their parent: the first interior vertex is found bottom up.
    auto earlier = [&graph](VertexIndex a, VertexIndex b) {
        return b < 0 || (a >= 0 && graph.topologicalPosition(a) < graph.topologicalPosition(b));
    };
    for (int index = tree.size() - 1; index >= 0; --index) {
        TreeDisplay::Node& d = display.nodes[std::size_t(index)];
        for (VertexIndex v : d.held)
            if (earlier(v, d.firstInterior))
                d.firstInterior = v;
        for (int c : d.children)
            if (earlier(display.nodes[std::size_t(c)].firstInterior, d.firstInterior))
                d.firstInterior = display.nodes[std::size_t(c)].firstInterior;
    }
    markParallelSiblings(display);
    return display;
}

}  // namespace ckpt::ui
