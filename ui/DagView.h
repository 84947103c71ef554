#pragma once
// The computation graph as laid out by ckpt_layout: vertex boxes coloured by the current plan
// (checkpoints, one colour per segment), a highlighted subgraph (an IS chosen in the division
// tree), search by name, zoom / pan / fit and a minimap for big graphs.
// Hierarchical: vertices are grouped (layout::GroupTree, by module path); a collapsed group is one
// box showing the plan inside it in aggregate. Double-click a group to expand it in place; the
// context menu collapses the group around a vertex. Each expansion state's layout is kept, so going
// back is instant; a search hit, a selection or a highlighted IS expands the groups it needs.
#include "DagItems.h"
#include "graph/Graph.h"
#include "layout/GraphLayout.h"
#include "layout/GroupTree.h"
#include "theory/PlanEvaluation.h"

#include <QGraphicsView>

#include <map>
#include <memory>
#include <optional>
#include <vector>

namespace ckpt::ui {

class MiniMap;

class DagView : public QGraphicsView {
    Q_OBJECT
public:
    explicit DagView(QWidget* parent = nullptr);
    ~DagView() override;
    static QFont labelFont();

    // The graph, its groups, which are expanded, and the layout of that visible graph.
    void setGraph(std::shared_ptr<const Graph> graph, std::shared_ptr<const layout::GroupTree> groups,
                  std::vector<bool> expanded, const layout::Layout& layout);
    void clearGraph();
    const Graph* graph() const { return m_graph.get(); }

    // Colours vertices by a plan: checkpoints, then each segment in its own colour; a segment that
    // is not an Independent Segment gets a dashed border. nullptr shows the plain graph.
    void showPlan(const PlanEvaluation* evaluation);
    // Emphasises an IS (source and target strongly, interior less) and fades everything else;
    // the groups around source and target are expanded.
    void highlightSubgraph(VertexIndex source, VertexIndex target, const std::vector<VertexIndex>& interior);
    void clearHighlight();
    // Expands what hides the vertex and scrolls it into view.
    void showVertex(VertexIndex v);

    // nullptr while the vertex is inside a collapsed group.
    VertexItem* vertexItem(VertexIndex v) const { return m_vertices.at(static_cast<std::size_t>(v)); }
    std::vector<VertexIndex> selectedVertices() const;
    // Selects the vertices, expanding the groups that hide them.
    void selectVertices(const std::vector<VertexIndex>& vertices);

    // Groups: the tree, which are expanded, the item of a collapsed one (nullptr when not shown).
    const layout::GroupTree* groups() const { return m_groups.get(); }
    const std::vector<bool>& expanded() const { return m_expanded; }
    GroupItem* groupItem(int group) const;
    void setExpanded(int group, bool expanded);
    // Expands every group around these vertices; true when something changed.
    bool reveal(const std::vector<VertexIndex>& vertices);
    int visibleNodeCount() const { return static_cast<int>(m_visible.nodes.size()); }

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
    void expansionChanged();

protected:
    void wheelEvent(QWheelEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void scrollContentsBy(int dx, int dy) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void contextMenuEvent(QContextMenuEvent* event) override;

private:
    void buildScene(const layout::Layout& layout);
    void relayout();
    VertexItem* nodeItem(VertexIndex v) const;
    void applyPlan();
    void applyEmphasis();
    void focusMatch();

    std::shared_ptr<const Graph> m_graph;
    std::shared_ptr<const layout::GroupTree> m_groups;
    std::vector<bool> m_expanded;
    layout::VisibleGraph m_visible;
    std::map<std::vector<bool>, layout::Layout> m_layouts;  // by expansion state
    std::vector<layout::Size> m_vertexSizes;
    std::vector<VertexItem*> m_vertices;   // by vertex; nullptr inside a collapsed group
    std::vector<VertexItem*> m_nodes;      // by visible node
    std::vector<EdgeItem*> m_edges;        // by visible edge
    std::optional<PlanEvaluation> m_plan;
    std::vector<VertexItem::Emphasis> m_highlight;  // empty: nothing highlighted
    std::vector<VertexIndex> m_matches;
    int m_currentMatch = -1;
    // The start view (readable zoom at the source) is kept through resizes until the user moves the view:
    // the window lays its docks out after the graph is shown.
    bool m_startView = false;
    bool m_settingView = false;
    MiniMap* m_miniMap;
};

// How DagView lays a visible graph out: dot for small ones, the layered layout above; top-down.
layout::LayoutRequest dagLayoutRequest(std::vector<layout::Size> nodeSizes);
// The node sizes of a visible graph: vertex boxes as measured, collapsed groups from their labels.
std::vector<layout::Size> visibleNodeSizes(const Graph& graph, const layout::GroupTree& groups,
                                           const layout::VisibleGraph& visible, const std::vector<layout::Size>& vertexSizes);

}  // namespace ckpt::ui
