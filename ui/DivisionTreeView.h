#pragma once
// A division tree drawn top-down: nodes coloured by IS type (Linear, Branch, Complicate, leaf),
// labelled source, → target (parallel branches: "via" their first vertex instead) and cost, with a legend;
// a click on a node's "+"/"−" box (or a double-click) collapses or expands its subtree (Linear
// nodes whose children are all single edges start collapsed). Ctrl+wheel zooms, Ctrl+0 fits.
// The view shows a TreeDisplay — plain data an adapter fills from the core's division tree — so it
// holds no algorithm itself.
#include "graph/Graph.h"

#include <QGraphicsView>
#include <QString>
#include <QStringList>

#include <cstdint>
#include <vector>

namespace ckpt::ui {

struct TreeDisplay {
    enum class Kind { Linear, Branch, Complicate, Leaf };
    struct Node {
        Kind kind = Kind::Leaf;
        VertexIndex source = 0;
        VertexIndex target = 0;
        // The interior vertices no child has (a Linear IS's splitting vertices, a Complicate IS's
        // connecting vertices): each vertex is held once, so nested IS cost O(V) (interior()).
        std::vector<VertexIndex> held;
        int interiorSize = 0;            // the IS's vertices other than source and target
        VertexIndex firstInterior = -1;  // the topologically first of them (-1: none)
        bool parallel = false;           // a sibling has the same source and target (parallel branches)
        std::int64_t cost = 0;           // the IS's interior bytes
        // The largest segment left with only source and target checkpointed (a Branch IS's
        // largest branch); Alg. 5 divides the IS when this exceeds C.
        std::int64_t segmentCost = 0;
        int parent = -1;
        std::vector<int> children;
        QString explanation;  // why this IS has its type, in plain words (from the core)
    };
    std::vector<Node> nodes;  // nodes[0] is the root
    // The smallest IS holding every given vertex (a single vertex: in its interior when it can);
    // -1 if none.
    int smallestContaining(const std::vector<VertexIndex>& vertices) const;
    // A node's interior: what it and its descendants hold.
    std::vector<VertexIndex> interior(int node) const;
};

QString kindName(TreeDisplay::Kind kind);

class DivisionTreeView : public QGraphicsView {
    Q_OBJECT
public:
    explicit DivisionTreeView(QWidget* parent = nullptr);

    void setTree(std::shared_ptr<const Graph> graph, TreeDisplay tree);
    void clearTree();
    const TreeDisplay& tree() const { return m_tree; }

    void selectNode(int node);  // -1 clears; emits nodeSelected
    int selectedNode() const { return m_selected; }
    void setCollapsed(int node, bool collapsed);
    bool isCollapsed(int node) const { return m_collapsed.at(std::size_t(node)); }
    // Marks the IS that exceed the current sweep C (dashed red border); empty clears.
    void setExceeding(std::vector<bool> exceeding);
    // Where a node is drawn (scene coordinates), or an empty rect when hidden in a collapsed subtree.
    QRectF nodeRect(int node) const;
    // A node's label: source, "→ target" (parallel branches: "via V", their first vertex), "Kind · bytes".
    QStringList labelLines(int node) const;
    void fitTree();
    // The whole tree in the view, however small (Ctrl+0 or F); fitTree keeps text readable.
    void fitWholeTree();
    // Ctrl+wheel, Ctrl++ / Ctrl+-; about the cursor.
    void zoomBy(double factor);
    double zoom() const { return transform().m11(); }

Q_SIGNALS:
    void nodeSelected(int node);

protected:
    void mousePressEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void drawForeground(QPainter* painter, const QRectF& rect) override;
    void wheelEvent(QWheelEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    bool event(QEvent* event) override;

private:
    void rebuild();
    void updateMarks();
    int nodeAt(const QPoint& viewPos) const;
    static bool isZoomKey(const QKeyEvent* event);
    // Whether the click at viewPos hits node's "+"/"−" box (which a click toggles).
    bool isOnMarker(int node, const QPoint& viewPos) const;
    // Another child of the same parent has the same source and target (parallel branches).

    std::shared_ptr<const Graph> m_graph;
    TreeDisplay m_tree;
    std::vector<bool> m_collapsed;
    std::vector<bool> m_exceeding;
    std::vector<QRectF> m_rects;
    std::vector<QGraphicsItem*> m_items;  // per node; nullptr when hidden
    int m_selected = -1;
};

}  // namespace ckpt::ui
