#pragma once
// The computation graph as laid out by ckpt_layout: vertex boxes coloured by the current plan
// (checkpoints, one colour per segment), a highlighted subgraph (an IS chosen in the division
// tree), search by name, zoom / pan / fit and a minimap for big graphs.
#include "DagItems.h"
#include "graph/Graph.h"
#include "layout/GraphLayout.h"
#include "theory/PlanEvaluation.h"

#include <QGraphicsView>

#include <memory>
#include <vector>

namespace ckpt::ui {

class MiniMap;

class DagView : public QGraphicsView {
    Q_OBJECT
public:
    explicit DagView(QWidget* parent = nullptr);
    static QFont labelFont();

    void setGraph(std::shared_ptr<const Graph> graph, const layout::Layout& layout);
    void clearGraph();
    const Graph* graph() const { return m_graph.get(); }

    // Colours vertices by a plan: checkpoints, then each segment in its own colour; a segment that
    // is not an Independent Segment gets a dashed border. nullptr shows the plain graph.
    void showPlan(const PlanEvaluation* evaluation);
    // Emphasises an IS (source and target strongly, interior less) and fades everything else.
    void highlightSubgraph(VertexIndex source, VertexIndex target, const std::vector<VertexIndex>& interior);
    void clearHighlight();

    VertexItem* vertexItem(VertexIndex v) const { return m_vertices.at(static_cast<std::size_t>(v)); }
    std::vector<VertexIndex> selectedVertices() const;
    void selectVertices(const std::vector<VertexIndex>& vertices);

    // Search by id or name (case-insensitive substring); the first match is centred.
    int find(const QString& text);
    void nextMatch();
    void previousMatch();
    int currentMatch() const { return m_currentMatch; }
    const std::vector<VertexIndex>& matches() const { return m_matches; }

    void zoomBy(double factor);
    void fitGraph();
    // Fits the graph, or when that would make labels unreadable, shows its start at a readable zoom.
    void showReadable();
    MiniMap* miniMap() const { return m_miniMap; }

Q_SIGNALS:
    void vertexSelectionChanged();
    void matchChanged(int current, int count);

protected:
    void wheelEvent(QWheelEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void scrollContentsBy(int dx, int dy) override;

private:
    void applyEmphasis();
    void focusMatch();

    std::shared_ptr<const Graph> m_graph;
    std::vector<VertexItem*> m_vertices;
    std::vector<EdgeItem*> m_edges;
    std::vector<VertexItem::Emphasis> m_highlight;  // empty: nothing highlighted
    std::vector<VertexIndex> m_matches;
    int m_currentMatch = -1;
    MiniMap* m_miniMap;
};

}  // namespace ckpt::ui
