#pragma once
// The DAG view's scene items: a vertex box (name, op, size; coloured by the current plan), a
// collapsed module group (a stacked box: name, size, the plan inside it in aggregate) and an edge
// (the layout's curve with an arrowhead). All draw less when zoomed far out, so big graphs stay
// fast to repaint.
#include "graph/Graph.h"
#include "layout/GraphLayout.h"
#include "layout/GroupTree.h"

#include <QColor>
#include <QFont>
#include <QGraphicsItem>
#include <QPainterPath>
#include <QPolygonF>
#include <QStaticText>
#include <QStringList>

#include <vector>

namespace ckpt::ui {

// The label lines of a vertex box: name, op, size in human units.
QStringList vertexLabel(const Graph& graph, VertexIndex v);
// Hover text: id, name, shape, dtype, bytes, op, module.
QString vertexToolTip(const Graph& graph, VertexIndex v);
// The box each vertex needs for its label in `font` (the layout is asked for these sizes).
std::vector<layout::Size> measureVertexBoxes(const Graph& graph, const QFont& font);
// The label lines of a collapsed group: its name and size; the plan line is added by showPlan.
QStringList groupLabel(const Graph& graph, const layout::GroupTree& tree, int group);
// The box a collapsed group needs: its label plus room for the plan line.
layout::Size measureGroupBox(const QStringList& label, const QFont& font);

class VertexItem : public QGraphicsItem {
public:
    enum class Emphasis { None, Dimmed, Interior, Endpoint, SearchMatch };

    VertexItem(VertexIndex v, const QRectF& box, QStringList label, const QFont& font);
    VertexIndex vertex() const { return m_vertex; }

    // Fill and border from the plan; repaints only when something changed.
    void setPlanStyle(const QColor& fill, bool checkpoint, bool nonIndependent);
    void setEmphasis(Emphasis emphasis);
    QColor fill() const { return m_fill; }
    bool isCheckpoint() const { return m_checkpoint; }
    Emphasis emphasis() const { return m_emphasis; }

    QRectF boundingRect() const override;
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

protected:
    // Replaces (or appends) label line `line`, elided to the box.
    void setLine(int line, const QString& text);
    bool m_stacked = false;  // drawn as a stack of boxes: a collapsed group

private:
    VertexIndex m_vertex;
    QRectF m_box;
    QFont m_font;
    QFont m_bold;
    std::vector<QStaticText> m_lines;  // elided and laid out once; painting them is cheap
    double m_lineSpacing = 0;
    QColor m_fill;
    bool m_checkpoint = false;
    bool m_nonIndependent = false;
    Emphasis m_emphasis = Emphasis::None;
};

// A collapsed group: double-click expands it. Its third line shows the current plan inside it.
class GroupItem : public VertexItem {
public:
    GroupItem(int group, const QRectF& box, QStringList label, const QFont& font);
    int group() const { return m_group; }
    // The plan in aggregate: checkpoints inside, their bytes, the share of members recomputed.
    void setPlanSummary(const QString& summary);
    QString planSummary() const { return m_summary; }

private:
    int m_group;
    QString m_summary;
};

class EdgeItem : public QGraphicsItem {
public:
    EdgeItem(EdgeIndex e, const layout::EdgeCurve& curve);
    EdgeIndex edge() const { return m_edge; }
    void setDimmed(bool dimmed);

    QRectF boundingRect() const override;
    QPainterPath shape() const override;
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

private:
    EdgeIndex m_edge;
    QPainterPath m_path;
    QPolygonF m_arrow;
    QRectF m_bounds;
    bool m_dimmed = false;
};

}  // namespace ckpt::ui
