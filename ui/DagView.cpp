#include "DagView.h"

#include "MiniMap.h"
#include "Palette.h"

#include <QGraphicsScene>
#include <QWheelEvent>

#include <algorithm>

namespace ckpt::ui {

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

QFont DagView::labelFont()
{
    QFont font(QStringLiteral("DejaVu Sans"));
    font.setPointSizeF(8.5);
    return font;
}

void DagView::clearGraph()
{
    scene()->clear();
    m_vertices.clear();
    m_edges.clear();
    m_highlight.clear();
    m_matches.clear();
    m_currentMatch = -1;
    m_graph.reset();
    m_miniMap->refresh();
}

void DagView::setGraph(std::shared_ptr<const Graph> graph, const layout::Layout& layout)
{
    clearGraph();
    m_graph = std::move(graph);
    const QFont font = labelFont();
    const Graph& g = *m_graph;
    constexpr double margin = 20;
    for (const layout::EdgeCurve& curve : layout.edges) {
        auto* item = new EdgeItem(curve.edge, curve);
        item->setPos(margin, margin);
        scene()->addItem(item);
        m_edges.push_back(item);
    }
    for (VertexIndex v = 0; v < g.vertexCount(); ++v) {
        const layout::NodeBox& box = layout.nodes[static_cast<std::size_t>(v)];
        const QRectF rect(box.centre.x - box.size.width / 2, box.centre.y - box.size.height / 2, box.size.width,
                          box.size.height);
        auto* item = new VertexItem(v, rect, vertexLabel(g, v), font);
        item->setPos(margin, margin);
        item->setToolTip(vertexToolTip(g, v));
        scene()->addItem(item);
        m_vertices.push_back(item);
    }
    scene()->setSceneRect(0, 0, layout.bounds.width + 2 * margin, layout.bounds.height + 2 * margin);
    showReadable();
}

void DagView::showReadable()
{
    fitGraph();
    // When fitting would make the labels unreadable, start at a readable zoom at the source;
    // the minimap shows the rest.
    if (transform().m11() < 0.75 && m_graph) {
        setTransform(QTransform::fromScale(0.9, 0.9));
        centerOn(m_vertices[static_cast<std::size_t>(m_graph->source())]);
        m_miniMap->refresh();
    }
}

void DagView::showPlan(const PlanEvaluation* evaluation)
{
    if (!m_graph)
        return;
    const int n = m_graph->vertexCount();
    std::vector<int> segmentOf(static_cast<std::size_t>(n), -1);
    std::vector<bool> checkpoint(static_cast<std::size_t>(n), false);
    if (evaluation) {
        for (VertexIndex c : evaluation->checkpoints)
            checkpoint[c] = true;
        for (std::size_t s = 0; s < evaluation->segments.size(); ++s)
            for (VertexIndex v : evaluation->segments[s].vertices)
                segmentOf[v] = static_cast<int>(s);
    }
    for (VertexIndex v = 0; v < n; ++v) {
        VertexItem* item = m_vertices[static_cast<std::size_t>(v)];
        if (checkpoint[v])
            item->setPlanStyle(palette::checkpointFill(), true, false);
        else if (segmentOf[v] >= 0)
            item->setPlanStyle(palette::segmentFill(segmentOf[v]), false,
                               !evaluation->segments[static_cast<std::size_t>(segmentOf[v])].isIndependent());
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
    applyEmphasis();
    if (auto* item = vertexItem(source))
        ensureVisible(item, 40, 40);
}

void DagView::clearHighlight()
{
    m_highlight.clear();
    applyEmphasis();
}

void DagView::applyEmphasis()
{
    std::vector<bool> match(m_vertices.size(), false);
    for (VertexIndex v : m_matches)
        match[v] = true;
    for (std::size_t v = 0; v < m_vertices.size(); ++v) {
        const auto base = m_highlight.empty() ? VertexItem::Emphasis::None : m_highlight[v];
        m_vertices[v]->setEmphasis(match[v] ? VertexItem::Emphasis::SearchMatch : base);
    }
    for (EdgeItem* e : m_edges) {
        const Edge& edge = m_graph->edge(e->edge());
        e->setDimmed(!m_highlight.empty() && (m_highlight[edge.from] == VertexItem::Emphasis::Dimmed ||
                                              m_highlight[edge.to] == VertexItem::Emphasis::Dimmed));
    }
}

std::vector<VertexIndex> DagView::selectedVertices() const
{
    std::vector<VertexIndex> selected;
    for (VertexItem* item : m_vertices)
        if (item->isSelected())
            selected.push_back(item->vertex());
    return selected;
}

void DagView::selectVertices(const std::vector<VertexIndex>& vertices)
{
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
        VertexItem* item = m_vertices[static_cast<std::size_t>(m_matches[static_cast<std::size_t>(m_currentMatch)])];
        if (transform().m11() < 0.8)  // make the match readable
            setTransform(QTransform::fromScale(1, 1));
        centerOn(item);
        selectVertices({item->vertex()});
    }
    Q_EMIT matchChanged(m_currentMatch, static_cast<int>(m_matches.size()));
}

void DagView::zoomBy(double factor)
{
    const double scale = transform().m11() * factor;
    if (scale < 0.01 || scale > 8)
        return;
    this->scale(factor, factor);
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
    QGraphicsView::resizeEvent(event);
    m_miniMap->refresh();
}

void DagView::scrollContentsBy(int dx, int dy)
{
    QGraphicsView::scrollContentsBy(dx, dy);
    m_miniMap->viewport()->update();
}

}  // namespace ckpt::ui
