#include "DagView.h"

#include "MiniMap.h"
#include "Palette.h"
#include "util/Units.h"

#include <QContextMenuEvent>
#include <QGraphicsScene>
#include <QMenu>
#include <QWheelEvent>

#include <algorithm>

namespace ckpt::ui {

namespace {

constexpr double margin = 20;

QRectF boxRect(const layout::NodeBox& box)
{
    return {box.centre.x - box.size.width / 2, box.centre.y - box.size.height / 2, box.size.width, box.size.height};
}

}  // namespace

layout::LayoutRequest dagLayoutRequest(std::vector<layout::Size> nodeSizes)
{
    layout::LayoutRequest request;
    request.nodeSizes = std::move(nodeSizes);
    request.direction = layout::Direction::TopToBottom;
    // dot draws small graphs best; above this it can take seconds, the layered layout milliseconds.
    request.maxDotVertices = 150;
    request.timeLimit = std::chrono::milliseconds(1500);
    return request;
}

std::vector<layout::Size> visibleNodeSizes(const Graph& graph, const layout::GroupTree& groups,
                                           const layout::VisibleGraph& visible, const std::vector<layout::Size>& vertexSizes)
{
    std::vector<layout::Size> sizes;
    sizes.reserve(visible.nodes.size());
    for (const auto& node : visible.nodes)
        sizes.push_back(node.vertex >= 0 ? vertexSizes[static_cast<std::size_t>(node.vertex)]
                                         : measureGroupBox(groupLabel(graph, groups, node.group), DagView::labelFont()));
    return sizes;
}

DagView::DagView(QWidget* parent) : QGraphicsView(parent), m_miniMap(nullptr)
{
    setObjectName(QStringLiteral("dagView"));
    setScene(new QGraphicsScene(this));
    scene()->setBackgroundBrush(Qt::white);
    scene()->setItemIndexMethod(QGraphicsScene::BspTreeIndex);
    setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
    setDragMode(ScrollHandDrag);
    setTransformationAnchor(AnchorUnderMouse);
    setViewportUpdateMode(SmartViewportUpdate);
    m_miniMap = new MiniMap(this);
    connect(scene(), &QGraphicsScene::selectionChanged, this, &DagView::vertexSelectionChanged);
}

DagView::~DagView()
{
    // The scene is a child object, deleted after this view is already a plain QWidget; deleting its
    // selected items would then emit selectionChanged into this half-destroyed view (found by UBSan).
    disconnect(scene(), nullptr, this, nullptr);
}

QFont DagView::labelFont()
{
    QFont font(QStringLiteral("DejaVu Sans"));
    font.setPointSizeF(8.5);
    return font;
}

void DagView::clearGraph()
{
    // Deleting a selected item emits selectionChanged while the scene is half cleared: a listener
    // asking for the selection would walk m_vertices' dead items (the trial's crash in
    // QGraphicsItem::group()). The selection is empty afterwards; say so once, when it is.
    const bool hadSelection = !scene()->selectedItems().isEmpty();
    {
        const QSignalBlocker blocker(scene());
        scene()->clear();
    }
    m_vertices.clear();
    m_nodes.clear();
    m_edges.clear();
    m_highlight.clear();
    m_matches.clear();
    m_currentMatch = -1;
    m_startView = false;
    m_layouts.clear();
    m_visible = {};
    m_plan.reset();
    m_groups.reset();
    m_graph.reset();
    m_miniMap->refresh();
    if (hadSelection)
        Q_EMIT vertexSelectionChanged();
}

void DagView::setGraph(std::shared_ptr<const Graph> graph, std::shared_ptr<const layout::GroupTree> groups,
                       std::vector<bool> expanded, const layout::Layout& layout)
{
    clearGraph();
    m_graph = std::move(graph);
    m_groups = std::move(groups);
    m_expanded = std::move(expanded);
    m_vertexSizes = measureVertexBoxes(*m_graph, labelFont());
    m_layouts.emplace(m_expanded, layout);
    buildScene(layout);
    showReadable();
}

void DagView::buildScene(const layout::Layout& layout)
{
    const QSignalBlocker blocker(scene());
    scene()->clear();
    m_visible = layout::VisibleGraph::of(*m_graph, *m_groups, m_expanded);
    const QFont font = labelFont();
    const Graph& g = *m_graph;
    m_edges.clear();
    for (const layout::EdgeCurve& curve : layout.edges) {
        auto* item = new EdgeItem(curve.edge, curve);
        item->setPos(margin, margin);
        scene()->addItem(item);
        m_edges.push_back(item);
    }
    m_vertices.assign(static_cast<std::size_t>(g.vertexCount()), nullptr);
    m_nodes.clear();
    for (std::size_t n = 0; n < m_visible.nodes.size(); ++n) {
        const auto& node = m_visible.nodes[n];
        const QRectF rect = boxRect(layout.nodes[n]);
        VertexItem* item = nullptr;
        if (node.vertex >= 0) {
            item = new VertexItem(node.vertex, rect, vertexLabel(g, node.vertex), font);
            item->setToolTip(vertexToolTip(g, node.vertex));
            m_vertices[static_cast<std::size_t>(node.vertex)] = item;
        } else {
            item = new GroupItem(node.group, rect, groupLabel(g, *m_groups, node.group), font);
        }
        item->setPos(margin, margin);
        scene()->addItem(item);
        m_nodes.push_back(item);
    }
    scene()->setSceneRect(0, 0, layout.bounds.width + 2 * margin, layout.bounds.height + 2 * margin);
    applyPlan();
    applyEmphasis();
}

void DagView::relayout()
{
    // Keep what the user looks at in place: the view centre's scene point moves with its item.
    const auto visible = layout::VisibleGraph::of(*m_graph, *m_groups, m_expanded);
    auto cached = m_layouts.find(m_expanded);
    if (cached == m_layouts.end()) {
        layout::LayoutRequest request = dagLayoutRequest(visibleNodeSizes(*m_graph, *m_groups, visible, m_vertexSizes));
        request.maxDotVertices = 0;  // in place, at once: the layered layout (milliseconds)
        cached = m_layouts.emplace(m_expanded, layout::layeredLayout(visible.drawing, request)).first;
    }
    const std::vector<VertexIndex> selected = selectedVertices();
    buildScene(cached->second);
    for (VertexIndex v : selected)
        if (VertexItem* item = vertexItem(v))
            item->setSelected(true);
    m_miniMap->refresh();
    Q_EMIT expansionChanged();
}

GroupItem* DagView::groupItem(int group) const
{
    for (VertexItem* item : m_nodes)
        if (auto* g = dynamic_cast<GroupItem*>(item); g && g->group() == group)
            return g;
    return nullptr;
}

void DagView::setExpanded(int group, bool expanded)
{
    if (!m_groups || m_expanded.at(static_cast<std::size_t>(group)) == expanded)
        return;
    m_expanded[static_cast<std::size_t>(group)] = expanded;
    if (!expanded)  // collapsing a group hides its inner groups' state too: collapse them
        for (VertexIndex v : m_groups->members(group))
            for (int inner = m_groups->groupOf(v); inner >= 0 && inner != group; inner = m_groups->groups()[std::size_t(inner)].parent)
                m_expanded[static_cast<std::size_t>(inner)] = false;
    relayout();
}

bool DagView::reveal(const std::vector<VertexIndex>& vertices)
{
    if (!m_groups)
        return false;
    bool changed = false;
    for (VertexIndex v : vertices)
        for (int g : m_groups->ancestorsOf(v))
            if (!m_expanded[static_cast<std::size_t>(g)]) {
                m_expanded[static_cast<std::size_t>(g)] = true;
                changed = true;
            }
    if (changed)
        relayout();
    return changed;
}

VertexItem* DagView::nodeItem(VertexIndex v) const
{
    return m_nodes.at(static_cast<std::size_t>(m_visible.nodeOfVertex.at(static_cast<std::size_t>(v))));
}

void DagView::showReadable()
{
    m_settingView = true;
    fitGraph();
    // When fitting would make the labels unreadable, start at a readable zoom at the source;
    // the minimap shows the rest.
    if (transform().m11() < 0.75 && m_graph) {
        setTransform(QTransform::fromScale(0.9, 0.9));
        centerOn(nodeItem(m_graph->source()));
        m_miniMap->refresh();
    }
    m_settingView = false;
    m_startView = true;
}

void DagView::showPlan(const PlanEvaluation* evaluation)
{
    if (!m_graph)
        return;
    if (evaluation)
        m_plan = *evaluation;
    else
        m_plan.reset();
    applyPlan();
}

void DagView::applyPlan()
{
    const int n = m_graph->vertexCount();
    std::vector<int> segmentOf(static_cast<std::size_t>(n), -1);
    std::vector<bool> checkpoint(static_cast<std::size_t>(n), false);
    if (m_plan) {
        for (VertexIndex c : m_plan->checkpoints)
            checkpoint[c] = true;
        for (std::size_t s = 0; s < m_plan->segments.size(); ++s)
            for (VertexIndex v : m_plan->segments[s].vertices)
                segmentOf[v] = static_cast<int>(s);
    }
    auto nonIS = [&](int segment) { return !m_plan->segments[static_cast<std::size_t>(segment)].isIndependent(); };
    for (VertexItem* item : m_nodes) {
        if (auto* group = dynamic_cast<GroupItem*>(item)) {
            // In aggregate: its checkpoints and their bytes, the share of its vertices recomputed;
            // one segment's colour when all of it lies in one segment.
            const std::vector<VertexIndex> members = m_groups->members(group->group());
            int checkpoints = 0, recomputed = 0;
            std::int64_t kept = 0;
            bool oneSegment = true;
            for (VertexIndex v : members) {
                checkpoints += checkpoint[v];
                kept += checkpoint[v] ? m_graph->vertex(v).bytes : 0;
                recomputed += !checkpoint[v] && segmentOf[v] >= 0;
                oneSegment = oneSegment && !checkpoint[v] && segmentOf[v] == segmentOf[members.front()];
            }
            const int segment = segmentOf[members.front()];
            const QColor fill = !m_plan ? palette::plainFill()
                                : oneSegment && segment >= 0 ? palette::segmentFill(segment)
                                : checkpoints ? palette::checkpointFill().lighter(125)
                                              : palette::plainFill();
            group->setPlanStyle(fill, checkpoints > 0, oneSegment && segment >= 0 && nonIS(segment));
            group->setPlanSummary(!m_plan ? QString()
                                          : (checkpoints == 1 ? tr("1 checkpoint") : tr("%1 checkpoints").arg(checkpoints)) +
                                                (checkpoints ? tr(" · %1 kept").arg(QString::fromStdString(formatBytes(kept))) : QString()) +
                                                tr(" · %1% recomputed").arg(qRound(100.0 * recomputed / double(members.size()))));
            continue;
        }
        const VertexIndex v = item->vertex();
        if (checkpoint[v])
            item->setPlanStyle(palette::checkpointFill(), true, false);
        else if (segmentOf[v] >= 0)
            item->setPlanStyle(palette::segmentFill(segmentOf[v]), false, nonIS(segmentOf[v]));
        else
            item->setPlanStyle(palette::plainFill(), false, false);
    }
}

void DagView::highlightSubgraph(VertexIndex source, VertexIndex target, const std::vector<VertexIndex>& interior)
{
    if (!m_graph)
        return;
    m_highlight.assign(static_cast<std::size_t>(m_graph->vertexCount()), VertexItem::Emphasis::Dimmed);
    for (VertexIndex v : interior)
        m_highlight[v] = VertexItem::Emphasis::Interior;
    m_highlight[source] = VertexItem::Emphasis::Endpoint;
    m_highlight[target] = VertexItem::Emphasis::Endpoint;
    if (!reveal({source, target}))
        applyEmphasis();
}

void DagView::clearHighlight()
{
    m_highlight.clear();
    applyEmphasis();
}

void DagView::showVertex(VertexIndex v)
{
    if (!m_graph)
        return;
    reveal({v});
    ensureVisible(nodeItem(v), 40, 40);
}

void DagView::applyEmphasis()
{
    using E = VertexItem::Emphasis;
    // A node's emphasis: its vertex's; a collapsed group takes its strongest member's.
    auto strength = [](E e) { return e == E::Dimmed ? 0 : e == E::None ? 1 : e == E::Interior ? 2 : e == E::Endpoint ? 3 : 4; };
    std::vector<E> node(m_nodes.size(), m_highlight.empty() ? E::None : E::Dimmed);
    auto raise = [&](VertexIndex v, E e) {
        E& current = node[static_cast<std::size_t>(m_visible.nodeOfVertex[static_cast<std::size_t>(v)])];
        if (strength(e) > strength(current))
            current = e;
    };
    for (VertexIndex v = 0; v < static_cast<VertexIndex>(m_highlight.size()); ++v)
        raise(v, m_highlight[static_cast<std::size_t>(v)]);
    for (VertexIndex v : m_matches)
        raise(v, E::SearchMatch);
    for (std::size_t n = 0; n < m_nodes.size(); ++n)
        m_nodes[n]->setEmphasis(node[n]);
    for (EdgeItem* e : m_edges) {
        const auto [from, to] = m_visible.drawing.edges[static_cast<std::size_t>(e->edge())];
        e->setDimmed(!m_highlight.empty() && (node[static_cast<std::size_t>(from)] == E::Dimmed || node[static_cast<std::size_t>(to)] == E::Dimmed));
    }
}

std::vector<VertexIndex> DagView::selectedVertices() const
{
    std::vector<VertexIndex> selected;
    for (VertexItem* item : m_vertices)
        if (item && item->isSelected())
            selected.push_back(item->vertex());
    return selected;
}

void DagView::selectVertices(const std::vector<VertexIndex>& vertices)
{
    reveal(vertices);
    const QSignalBlocker blocker(scene());
    scene()->clearSelection();
    for (VertexIndex v : vertices)
        m_vertices[static_cast<std::size_t>(v)]->setSelected(true);
    Q_EMIT vertexSelectionChanged();
}

int DagView::find(const QString& text)
{
    m_matches.clear();
    m_currentMatch = -1;
    if (m_graph && !text.trimmed().isEmpty()) {
        const QString needle = text.trimmed();
        for (VertexIndex v : m_graph->topologicalOrder()) {
            const Vertex& x = m_graph->vertex(v);
            if (QString::fromStdString(x.id).contains(needle, Qt::CaseInsensitive) ||
                QString::fromStdString(x.name).contains(needle, Qt::CaseInsensitive))
                m_matches.push_back(v);
        }
    }
    applyEmphasis();
    if (!m_matches.empty())
        m_currentMatch = 0;
    focusMatch();
    return static_cast<int>(m_matches.size());
}

void DagView::nextMatch()
{
    if (m_matches.empty())
        return;
    m_currentMatch = (m_currentMatch + 1) % static_cast<int>(m_matches.size());
    focusMatch();
}

void DagView::previousMatch()
{
    if (m_matches.empty())
        return;
    const int n = static_cast<int>(m_matches.size());
    m_currentMatch = (m_currentMatch + n - 1) % n;
    focusMatch();
}

void DagView::focusMatch()
{
    if (m_currentMatch >= 0) {
        const VertexIndex v = m_matches[static_cast<std::size_t>(m_currentMatch)];
        selectVertices({v});  // expands its groups
        if (transform().m11() < 0.8)  // make the match readable
            setTransform(QTransform::fromScale(1, 1));
        centerOn(vertexItem(v));
    }
    Q_EMIT matchChanged(m_currentMatch, static_cast<int>(m_matches.size()));
}

void DagView::zoomBy(double factor)
{
    const double scale = transform().m11() * factor;
    if (scale < 0.01 || scale > 8)
        return;
    this->scale(factor, factor);
    m_startView = false;
    m_miniMap->refresh();
}

void DagView::fitGraph()
{
    if (scene()->sceneRect().isEmpty())
        return;
    fitInView(scene()->sceneRect(), Qt::KeepAspectRatio);
    if (transform().m11() > 1.5)  // small graphs: do not blow the labels up
        setTransform(QTransform::fromScale(1.5, 1.5));
    m_miniMap->refresh();
}

void DagView::wheelEvent(QWheelEvent* event)
{
    if (event->modifiers() & Qt::ControlModifier) {
        zoomBy(event->angleDelta().y() > 0 ? 1.15 : 1 / 1.15);
        event->accept();
        return;
    }
    QGraphicsView::wheelEvent(event);
}

void DagView::resizeEvent(QResizeEvent* event)
{
    m_settingView = true;
    QGraphicsView::resizeEvent(event);
    m_settingView = false;
    if (m_startView && m_graph)
        showReadable();
    m_miniMap->refresh();
}

void DagView::scrollContentsBy(int dx, int dy)
{
    if (!m_settingView)
        m_startView = false;
    QGraphicsView::scrollContentsBy(dx, dy);
    m_miniMap->viewport()->update();
}

void DagView::mouseDoubleClickEvent(QMouseEvent* event)
{
    if (auto* group = dynamic_cast<GroupItem*>(itemAt(event->position().toPoint()))) {
        const int g = group->group();
        const QPointF at = group->sceneBoundingRect().center();
        const QPointF centre = mapToScene(viewport()->rect().center());
        setExpanded(g, true);
        // The first member where the box was, so the eye stays on the same place.
        centerOn(nodeItem(m_groups->members(g).front())->sceneBoundingRect().center() + (centre - at));
        event->accept();
        return;
    }
    QGraphicsView::mouseDoubleClickEvent(event);
}

void DagView::contextMenuEvent(QContextMenuEvent* event)
{
    auto* item = dynamic_cast<VertexItem*>(itemAt(event->pos()));
    if (!item || !m_groups) {
        QGraphicsView::contextMenuEvent(event);
        return;
    }
    auto* group = dynamic_cast<GroupItem*>(item);
    QMenu menu(this);
    if (group)
        menu.addAction(tr("Expand %1").arg(QString::fromStdString(m_groups->groups()[std::size_t(group->group())].path)),
                       this, [this, g = group->group()] { setExpanded(g, true); });
    const int around = group ? m_groups->groups()[std::size_t(group->group())].parent : m_groups->groupOf(item->vertex());
    if (around >= 0)
        menu.addAction(tr("Collapse %1").arg(QString::fromStdString(m_groups->groups()[std::size_t(around)].path)), this,
                       [this, around] { setExpanded(around, false); });
    if (!menu.isEmpty())
        menu.exec(event->globalPos());
}

}  // namespace ckpt::ui
