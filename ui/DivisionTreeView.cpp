#include "DivisionTreeView.h"

#include "Palette.h"
#include "util/Units.h"

#include <QFontMetricsF>
#include <QGraphicsRectItem>
#include <QGraphicsScene>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QWheelEvent>
#include <QPainter>
#include <QStaticText>

#include <algorithm>
#include <map>
#include <map>
#include <cmath>
#include <functional>

namespace ckpt::ui {

namespace {

constexpr double nodeWidth = 170;
constexpr double nodeHeight = 52;
constexpr double markerSize = 14;  // the "+" / "−" box in a node's bottom-right corner
constexpr double hGap = 14;
constexpr double vGap = 34;

QColor kindFill(TreeDisplay::Kind kind)
{
    switch (kind) {
    case TreeDisplay::Kind::Linear: return palette::linearFill();
    case TreeDisplay::Kind::Branch: return palette::branchFill();
    case TreeDisplay::Kind::Complicate: return palette::complicateFill();
    case TreeDisplay::Kind::Leaf: break;
    }
    return palette::leafFill();
}

QRectF markerRect(const QRectF& node)
{
    return QRectF(node.right() - markerSize - 3, node.bottom() - markerSize - 3, markerSize, markerSize);
}

// A vertex as the tree names it: its name, else its id.
QString vertexLabel(const Graph& graph, VertexIndex v)
{
    const Vertex& x = graph.vertex(v);
    return QString::fromStdString(x.name.empty() ? x.id : x.name);
}

// One tree node's box; it paints its own label so elision and emphasis stay consistent.
class TreeNodeItem : public QGraphicsRectItem {
public:
    enum class Marker { None, Expand, Collapse };
    TreeNodeItem(const QRectF& r, const QStringList& lines, QColor fill, bool selected, bool exceeding, Marker marker)
        : QGraphicsRectItem(r), m_fill(fill), m_selected(selected), m_exceeding(exceeding), m_marker(marker)
    {
        // Elided and laid out once: painting static text is cheap.
        m_font.setPointSizeF(8.5);
        m_bold = m_font;
        m_bold.setBold(true);
        m_lineSpacing = QFontMetricsF(m_font).lineSpacing();
        const double width = r.width() - 10;
        for (int i = 0; i < lines.size(); ++i) {
            const QFont& f = i == 0 ? m_bold : m_font;
            // One name per line, each given the full width; a name too long for it keeps its end
            // (where layer names differ: "…block1_add").
            QStaticText text(QFontMetricsF(f).elidedText(lines[i], Qt::ElideLeft, width));
            text.setTextFormat(Qt::PlainText);
            text.prepare(QTransform(), f);
            m_lines.push_back(text);
        }
    }
    // Marks change often (sweep steps, selection): repaint this item, not the whole tree.
    void setMarks(bool selected, bool exceeding)
    {
        if (selected == m_selected && exceeding == m_exceeding)
            return;
        m_selected = selected;
        m_exceeding = exceeding;
        update();
    }
    void paint(QPainter* p, const QStyleOptionGraphicsItem*, QWidget*) override
    {
        QPen pen(palette::edge(), 1);
        if (m_exceeding)
            pen = QPen(palette::nonIndependentBorder(), 2.5, Qt::DashLine);
        if (m_selected)
            pen = QPen(palette::highlight(), 4);
        p->setPen(pen);
        p->setBrush(m_fill);
        p->drawRoundedRect(rect(), 5, 5);
        p->setPen(palette::text());
        const double top = rect().center().y() - m_lineSpacing * double(m_lines.size()) / 2;
        for (std::size_t i = 0; i < m_lines.size(); ++i) {
            p->setFont(i == 0 ? m_bold : m_font);
            p->drawStaticText(QPointF(rect().center().x() - m_lines[i].size().width() / 2, top + double(i) * m_lineSpacing),
                              m_lines[i]);
        }
        if (m_marker != Marker::None) {
            const QRectF box = markerRect(rect());
            p->setPen(palette::edge());
            p->setBrush(Qt::white);
            p->drawRect(box);
            p->setFont(m_bold);
            p->setPen(palette::text());
            p->drawText(box, Qt::AlignCenter, m_marker == Marker::Expand ? QStringLiteral("+") : QStringLiteral("−"));
        }
    }

private:
    QFont m_font{QStringLiteral("DejaVu Sans")};
    QFont m_bold;
    std::vector<QStaticText> m_lines;
    double m_lineSpacing = 0;
    QColor m_fill;
    bool m_selected, m_exceeding;
    Marker m_marker;
};

}  // namespace

QString kindName(TreeDisplay::Kind kind)
{
    switch (kind) {
    case TreeDisplay::Kind::Linear: return QStringLiteral("Linear");
    case TreeDisplay::Kind::Branch: return QStringLiteral("Branch");
    case TreeDisplay::Kind::Complicate: return QStringLiteral("Complicate");
    case TreeDisplay::Kind::Leaf: break;
    }
    return QStringLiteral("leaf");
}

int TreeDisplay::smallestContaining(const std::vector<VertexIndex>& vertices) const
{
    // One vertex: the smallest IS around it (a single edge merely touching it says nothing), so
    // it must be interior; several: the smallest IS holding them all, endpoints included. The
    // graph's source and sink are interior to no IS: they fall back to endpoints. A node's
    // interior is its subtree's held vertices: a preorder numbering tells subtrees apart.
    const int count = int(nodes.size());
    std::vector<int> first(std::size_t(count), 0), last(std::size_t(count), 0);
    std::map<VertexIndex, int> holder;
    int clock = 0;
    for (std::vector<std::pair<int, bool>> pending{{0, false}}; count > 0 && !pending.empty();) {
        const auto [node, done] = pending.back();
        pending.pop_back();
        if (done) {
            last[std::size_t(node)] = clock;
            continue;
        }
        first[std::size_t(node)] = clock++;
        for (VertexIndex v : nodes[std::size_t(node)].held)
            holder[v] = node;
        pending.push_back({node, true});
        for (auto c = nodes[std::size_t(node)].children.rbegin(); c != nodes[std::size_t(node)].children.rend(); ++c)
            pending.push_back({*c, false});
    }
    auto inside = [&](VertexIndex v, int node) {
        const auto h = holder.find(v);
        return h != holder.end() && first[std::size_t(node)] <= first[std::size_t(h->second)] &&
               first[std::size_t(h->second)] < last[std::size_t(node)];
    };
    auto search = [&](bool interiorOnly) {
        int best = -1;
        int bestSize = 0;
        for (int i = 0; i < count; ++i) {
            const Node& n = nodes[std::size_t(i)];
            auto holds = [&](VertexIndex v) {
                return (!interiorOnly && (v == n.source || v == n.target)) || inside(v, i);
            };
            if (!vertices.empty() && std::all_of(vertices.begin(), vertices.end(), holds) &&
                (best < 0 || n.interiorSize <= bestSize)) {  // ties: the deeper node
                best = i;
                bestSize = n.interiorSize;
            }
        }
        return best;
    };
    const int around = vertices.size() == 1 ? search(true) : -1;
    return around >= 0 ? around : search(false);
}

std::vector<VertexIndex> TreeDisplay::interior(int node) const
{
    std::vector<VertexIndex> out;
    for (std::vector<int> pending{node}; !pending.empty();) {
        const Node& n = nodes.at(std::size_t(pending.back()));
        pending.pop_back();
        out.insert(out.end(), n.held.begin(), n.held.end());
        pending.insert(pending.end(), n.children.begin(), n.children.end());
    }
    return out;
}

DivisionTreeView::DivisionTreeView(QWidget* parent) : QGraphicsView(parent)
{
    setObjectName(QStringLiteral("divisionTreeView"));
    setScene(new QGraphicsScene(this));
    scene()->setBackgroundBrush(Qt::white);
    setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
    setDragMode(ScrollHandDrag);
    setTransformationAnchor(AnchorUnderMouse);
    setFocusPolicy(Qt::StrongFocus);
    // The legend is drawn in view coordinates: a scroll that moved pixels would smear copies of it.
    setViewportUpdateMode(FullViewportUpdate);
}

void DivisionTreeView::setTree(std::shared_ptr<const Graph> graph, TreeDisplay tree)
{
    m_graph = std::move(graph);
    m_tree = std::move(tree);
    // Every node with children starts collapsed; the tree is then opened breadth-first only while it
    // stays about a screen wide: a deep or wide tree (a transformer's Linear IS has hundreds of members)
    // starts as its top levels, and each "+" opens one level more. Runs of single edges stay folded
    // away: a Linear node (not the root) whose children are all leaves shows "+".
    auto foldsAway = [this](std::size_t node) {
        const auto& children = m_tree.nodes[node].children;
        return node != 0 && m_tree.nodes[node].kind == TreeDisplay::Kind::Linear &&
               std::all_of(children.begin(), children.end(),
                           [this](int c) { return m_tree.nodes[std::size_t(c)].kind == TreeDisplay::Kind::Leaf; });
    };
    constexpr std::size_t slotBudget = 48;
    m_collapsed.assign(m_tree.nodes.size(), false);
    for (std::size_t i = 0; i < m_tree.nodes.size(); ++i)
        m_collapsed[i] = !m_tree.nodes[i].children.empty();
    std::size_t slots = 1;
    std::vector<int> queue;
    if (!m_tree.nodes.empty())
        queue.push_back(0);
    for (std::size_t next = 0; next < queue.size(); ++next) {
        const auto node = std::size_t(queue[next]);
        const auto& children = m_tree.nodes[node].children;
        if (children.empty() || foldsAway(node) || (node != 0 && slots + children.size() - 1 > slotBudget))
            continue;
        m_collapsed[node] = false;
        slots += children.size() - 1;
        queue.insert(queue.end(), children.begin(), children.end());
    }
    m_exceeding.clear();
    m_selected = -1;
    rebuild();
    fitTree();
}

void DivisionTreeView::clearTree()
{
    setTree(nullptr, {});
}

void DivisionTreeView::selectNode(int node)
{
    m_selected = node >= 0 && node < int(m_tree.nodes.size()) ? node : -1;
    // Make sure the chosen node is drawn: expand its collapsed ancestors.
    bool expanded = false;
    for (int p = m_selected >= 0 ? m_tree.nodes[std::size_t(m_selected)].parent : -1; p >= 0; p = m_tree.nodes[std::size_t(p)].parent)
        if (m_collapsed[std::size_t(p)]) {
            m_collapsed[std::size_t(p)] = false;
            expanded = true;
        }
    expanded ? rebuild() : updateMarks();
    if (m_selected >= 0)
        ensureVisible(m_rects[std::size_t(m_selected)], 20, 20);
    Q_EMIT nodeSelected(m_selected);
}

void DivisionTreeView::setCollapsed(int node, bool collapsed)
{
    m_collapsed.at(std::size_t(node)) = collapsed;
    rebuild();
}

void DivisionTreeView::setExceeding(std::vector<bool> exceeding)
{
    m_exceeding = std::move(exceeding);
    updateMarks();
}

QRectF DivisionTreeView::nodeRect(int node) const
{
    return m_rects.at(std::size_t(node));
}

void DivisionTreeView::fitTree()
{
    if (scene()->itemsBoundingRect().isEmpty())
        return;
    fitInView(scene()->sceneRect(), Qt::KeepAspectRatio);
    if (transform().m11() > 1.2)
        setTransform(QTransform::fromScale(1.2, 1.2));
    if (transform().m11() < 0.9) {  // big trees: stay readable, start at the root, let the user scroll
        setTransform(QTransform::fromScale(0.9, 0.9));
        // The root just below the legend.
        if (!m_rects.empty())
            centerOn(m_rects.front().center().x(),
                     m_rects.front().top() - 40 / 0.9 + viewport()->height() / 2.0 / 0.9);
    }
}

void DivisionTreeView::updateMarks()
{
    for (std::size_t i = 0; i < m_items.size(); ++i)
        if (auto* item = static_cast<TreeNodeItem*>(m_items[i]))
            item->setMarks(int(i) == m_selected, i < m_exceeding.size() && m_exceeding[i]);
}

void DivisionTreeView::rebuild()
{
    scene()->clear();
    m_rects.assign(m_tree.nodes.size(), QRectF());
    m_items.assign(m_tree.nodes.size(), nullptr);
    if (m_tree.nodes.empty() || !m_graph) {
        scene()->setSceneRect(QRectF());
        return;
    }
    // Tidy top-down layout: leaves (and collapsed nodes) take successive slots in depth-first
    // order, parents centre above their first and last child. An explicit stack: the tree can be
    // as deep as the graph is long.
    const std::size_t count = m_tree.nodes.size();
    std::vector<double> x(count, 0);
    std::vector<int> depth(count, 0), preorder, stack{0};
    auto isPlacedAsLeaf = [this](int node) {
        return m_tree.nodes[std::size_t(node)].children.empty() || m_collapsed[std::size_t(node)];
    };
    double nextSlot = 0;
    while (!stack.empty()) {
        const int node = stack.back();
        stack.pop_back();
        preorder.push_back(node);
        if (isPlacedAsLeaf(node)) {
            x[std::size_t(node)] = nextSlot;
            nextSlot += nodeWidth + hGap;
            continue;
        }
        const auto& children = m_tree.nodes[std::size_t(node)].children;
        for (auto child = children.rbegin(); child != children.rend(); ++child) {
            depth[std::size_t(*child)] = depth[std::size_t(node)] + 1;
            stack.push_back(*child);
        }
    }
    for (auto it = preorder.rbegin(); it != preorder.rend(); ++it) {  // children before parents
        const auto node = std::size_t(*it);
        if (!isPlacedAsLeaf(*it)) {
            const auto& children = m_tree.nodes[node].children;
            x[node] = (x[std::size_t(children.front())] + x[std::size_t(children.back())]) / 2;
        }
        m_rects[node] = QRectF(x[node], depth[node] * (nodeHeight + vGap) + 60, nodeWidth, nodeHeight);
    }
    // Links as a bus: down from the parent, across its children, down to each. Short lines only,
    // so a node with hundreds of children does not draw hundreds of lines across the view.
    const QPen linkPen(palette::edge(), 1.2);
    for (std::size_t i = 0; i < m_tree.nodes.size(); ++i) {
        const auto& children = m_tree.nodes[i].children;
        if (children.empty() || m_rects[i].isNull() || m_rects[std::size_t(children.front())].isNull())
            continue;
        const QRectF parent = m_rects[i];
        const double bus = parent.bottom() + vGap / 2;
        scene()->addLine(QLineF(parent.center().x(), parent.bottom(), parent.center().x(), bus), linkPen);
        scene()->addLine(QLineF(m_rects[std::size_t(children.front())].center().x(), bus,
                                m_rects[std::size_t(children.back())].center().x(), bus),
                         linkPen);
        for (int c : children)
            scene()->addLine(QLineF(m_rects[std::size_t(c)].center().x(), bus, m_rects[std::size_t(c)].center().x(),
                                    m_rects[std::size_t(c)].top()),
                             linkPen);
    }
    for (std::size_t i = 0; i < m_tree.nodes.size(); ++i) {
        if (m_rects[i].isNull())
            continue;
        const auto& n = m_tree.nodes[i];
        const auto marker = n.children.empty() ? TreeNodeItem::Marker::None
                            : m_collapsed[i]   ? TreeNodeItem::Marker::Expand
                                               : TreeNodeItem::Marker::Collapse;
        auto* item = new TreeNodeItem(m_rects[i], labelLines(int(i)), kindFill(n.kind), int(i) == m_selected,
                                      i < m_exceeding.size() && m_exceeding[i], marker);
        item->setToolTip(n.explanation);
        scene()->addItem(item);
        m_items[i] = item;
    }
    scene()->setSceneRect(scene()->itemsBoundingRect().adjusted(-20, -60, 20, 20));
}

QStringList DivisionTreeView::labelLines(int node) const
{
    const auto& n = m_tree.nodes.at(std::size_t(node));
    // Parallel branches share source and target (the parent shows them): the vertex each starts
    // with tells them apart.
    const QString second = n.parallel && n.firstInterior >= 0
                               ? tr("via %1").arg(vertexLabel(*m_graph, n.firstInterior))
                               : QStringLiteral("→ ") + vertexLabel(*m_graph, n.target);
    return {vertexLabel(*m_graph, n.source), second,
            QStringLiteral("%1 · %2").arg(kindName(n.kind), QString::fromStdString(formatBytes(n.cost)))};
}

bool DivisionTreeView::isOnMarker(int node, const QPoint& viewPos) const
{
    return node >= 0 && !m_tree.nodes[std::size_t(node)].children.empty() &&
           markerRect(m_rects[std::size_t(node)]).adjusted(-2, -2, 2, 2).contains(mapToScene(viewPos));
}

void DivisionTreeView::zoomBy(double factor)
{
    const double scale = transform().m11() * factor;
    if (scale < 0.02 || scale > 8)
        return;
    this->scale(factor, factor);
}

void DivisionTreeView::fitWholeTree()
{
    if (!scene()->itemsBoundingRect().isEmpty())
        fitInView(scene()->sceneRect(), Qt::KeepAspectRatio);
}

void DivisionTreeView::wheelEvent(QWheelEvent* event)
{
    if (event->modifiers() & Qt::ControlModifier) {  // zoom about the cursor, as in the graph
        zoomBy(std::pow(1.0015, event->angleDelta().y()));
        event->accept();
        return;
    }
    QGraphicsView::wheelEvent(event);
}

bool DivisionTreeView::isZoomKey(const QKeyEvent* event)
{
    return event->matches(QKeySequence::ZoomIn) || event->matches(QKeySequence::ZoomOut) ||
           event->key() == Qt::Key_Plus || event->key() == Qt::Key_Minus || event->key() == Qt::Key_0 ||
           event->key() == Qt::Key_F;
}

bool DivisionTreeView::event(QEvent* event)
{
    // The window's View menu binds Ctrl+0, Ctrl++ and Ctrl+- to the graph; with the tree focused
    // they zoom the tree.
    if (event->type() == QEvent::ShortcutOverride && isZoomKey(static_cast<QKeyEvent*>(event))) {
        event->accept();
        return true;
    }
    return QGraphicsView::event(event);
}

void DivisionTreeView::keyPressEvent(QKeyEvent* event)
{
    if (event->matches(QKeySequence::ZoomIn) || event->key() == Qt::Key_Plus) {
        zoomBy(1.25);
    } else if (event->matches(QKeySequence::ZoomOut) || event->key() == Qt::Key_Minus) {
        zoomBy(1 / 1.25);
    } else if (event->key() == Qt::Key_0 || event->key() == Qt::Key_F) {
        fitWholeTree();
    } else {
        QGraphicsView::keyPressEvent(event);
        return;
    }
    event->accept();
}

int DivisionTreeView::nodeAt(const QPoint& viewPos) const
{
    const QPointF p = mapToScene(viewPos);
    for (std::size_t i = 0; i < m_rects.size(); ++i)
        if (!m_rects[i].isNull() && m_rects[i].contains(p))
            return int(i);
    return -1;
}

void DivisionTreeView::mousePressEvent(QMouseEvent* event)
{
    const int node = nodeAt(event->position().toPoint());
    if (event->button() == Qt::LeftButton && isOnMarker(node, event->position().toPoint())) {
        setCollapsed(node, !m_collapsed[std::size_t(node)]);
        event->accept();
        return;
    }
    if (node >= 0 && event->button() == Qt::LeftButton) {
        selectNode(node);
        event->accept();
        return;
    }
    QGraphicsView::mousePressEvent(event);
}

void DivisionTreeView::mouseDoubleClickEvent(QMouseEvent* event)
{
    const int node = nodeAt(event->position().toPoint());
    if (node >= 0 && !m_tree.nodes[std::size_t(node)].children.empty()) {
        setCollapsed(node, !m_collapsed[std::size_t(node)]);
        event->accept();
        return;
    }
    QGraphicsView::mouseDoubleClickEvent(event);
}

void DivisionTreeView::drawForeground(QPainter* painter, const QRectF&)
{
    // The legend, fixed in the view's top-left corner.
    painter->save();
    painter->resetTransform();
    QFont font(QStringLiteral("DejaVu Sans"));
    font.setPointSizeF(8.5);
    painter->setFont(font);
    const QFontMetrics metrics(font);
    int x = 8;
    const int y = 8;
    const std::pair<TreeDisplay::Kind, QString> entries[] = {{TreeDisplay::Kind::Linear, tr("Linear")},
                                                             {TreeDisplay::Kind::Branch, tr("Branch")},
                                                             {TreeDisplay::Kind::Complicate, tr("Complicate")},
                                                             {TreeDisplay::Kind::Leaf, tr("leaf")}};
    painter->fillRect(QRect(4, 4, 420, metrics.height() + 8), QColor(255, 255, 255, 230));
    for (const auto& [kind, label] : entries) {
        painter->setPen(palette::edge());
        painter->setBrush(kindFill(kind));
        painter->drawRect(x, y + 1, 14, metrics.height() - 2);
        painter->setPen(palette::text());
        painter->drawText(x + 18, y + metrics.ascent(), label);
        x += 18 + metrics.horizontalAdvance(label) + 14;
    }
    painter->setPen(QPen(palette::nonIndependentBorder(), 2, Qt::DashLine));
    painter->setBrush(Qt::NoBrush);
    painter->drawRect(x, y + 1, 14, metrics.height() - 2);
    painter->setPen(palette::text());
    painter->drawText(x + 18, y + metrics.ascent(), tr("exceeds C"));
    painter->restore();
}

}  // namespace ckpt::ui
