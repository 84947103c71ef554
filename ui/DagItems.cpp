#include "DagItems.h"

#include "Palette.h"
#include "util/Units.h"

#include <QFontMetricsF>
#include <QObject>
#include <QPainter>
#include <QStyleOptionGraphicsItem>

#include <cmath>

namespace ckpt::ui {

namespace {

constexpr double padding = 6;
constexpr double maxLabelWidth = 180;  // longer names are elided
constexpr double lodNoText = 0.45;     // below this zoom, boxes without text
constexpr double lodPlain = 0.25;      // below this, plain rectangles

QString qs(const std::string& s) { return QString::fromStdString(s); }

QColor faded(const QColor& c) { return QColor::fromRgbF(0.7 + 0.3 * c.redF(), 0.7 + 0.3 * c.greenF(), 0.7 + 0.3 * c.blueF()); }

}  // namespace

QStringList vertexLabel(const Graph& graph, VertexIndex v)
{
    const Vertex& x = graph.vertex(v);
    if (x.isVirtual)
        return {v == graph.source() ? QStringLiteral("(virtual source)") : QStringLiteral("(virtual sink)")};
    QStringList lines{qs(x.name.empty() ? x.id : x.name)};
    if (!x.op.empty())
        lines << qs(x.op);
    lines << qs(formatBytes(x.bytes));
    return lines;
}

QString vertexToolTip(const Graph& graph, VertexIndex v)
{
    const Vertex& x = graph.vertex(v);
    QString shape;
    if (x.shape) {
        QStringList dims;
        for (std::int64_t d : *x.shape)
            dims << QString::number(d);
        shape = QLatin1Char('[') + dims.join(QStringLiteral(", ")) + QLatin1Char(']');
    }
    auto row = [](const QString& key, const QString& value) {
        return value.isEmpty() ? QString() : QStringLiteral("<tr><td><b>%1</b></td><td>%2</td></tr>").arg(key, value.toHtmlEscaped());
    };
    return QStringLiteral("<table>") + row(QStringLiteral("id"), qs(x.id)) + row(QStringLiteral("name"), qs(x.name)) +
           row(QStringLiteral("shape"), shape) + row(QStringLiteral("dtype"), qs(x.dtype)) +
           row(QStringLiteral("bytes"), QStringLiteral("%1 (%2)").arg(x.bytes).arg(qs(formatBytes(x.bytes)))) +
           row(QStringLiteral("op"), qs(x.op)) + row(QStringLiteral("module"), qs(x.module)) + QStringLiteral("</table>");
}

namespace {

layout::Size measureLabel(const QStringList& lines, const QFont& font, double minWidth)
{
    QFont bold = font;
    bold.setBold(true);
    const QFontMetricsF plain(font), strong(bold);
    double width = minWidth;
    for (int i = 0; i < lines.size(); ++i)
        width = std::max(width, std::min(maxLabelWidth, (i == 0 ? strong : plain).horizontalAdvance(lines[i])));
    return {std::ceil(width + 2 * padding), std::ceil(lines.size() * plain.lineSpacing() + 2 * padding - 2)};
}

}  // namespace

std::vector<layout::Size> measureVertexBoxes(const Graph& graph, const QFont& font)
{
    std::vector<layout::Size> sizes;
    sizes.reserve(static_cast<std::size_t>(graph.vertexCount()));
    for (VertexIndex v = 0; v < graph.vertexCount(); ++v)
        sizes.push_back(measureLabel(vertexLabel(graph, v), font, 0));
    return sizes;
}

QStringList groupLabel(const Graph& graph, const layout::GroupTree& tree, int group)
{
    const layout::VertexGroup& g = tree.groups()[static_cast<std::size_t>(group)];
    std::int64_t bytes = 0;
    for (VertexIndex v : tree.members(group))
        bytes += graph.vertex(v).bytes;
    return {QStringLiteral("▸ ") + qs(g.label), QObject::tr("%1 vertices · %2").arg(g.size).arg(qs(formatBytes(bytes)))};
}

layout::Size measureGroupBox(const QStringList& label, const QFont& font)
{
    QStringList withPlan = label;
    withPlan << QString();
    return measureLabel(withPlan, font, 220);  // room for the plan line
}

VertexItem::VertexItem(VertexIndex v, const QRectF& box, QStringList label, const QFont& font)
    : m_vertex(v), m_box(box), m_font(font), m_bold(font), m_fill(palette::plainFill())
{
    m_bold.setBold(true);
    m_lineSpacing = QFontMetricsF(m_font).lineSpacing();
    for (int i = 0; i < label.size(); ++i)
        setLine(i, label[i]);
    setFlag(ItemIsSelectable);
    setAcceptHoverEvents(true);
    setZValue(1);
}

void VertexItem::setLine(int line, const QString& text)
{
    const QFont& f = line == 0 ? m_bold : m_font;
    QStaticText prepared(QFontMetricsF(f).elidedText(text, Qt::ElideMiddle, m_box.width() - 2 * padding + 1));
    prepared.setTextFormat(Qt::PlainText);
    prepared.setPerformanceHint(QStaticText::AggressiveCaching);
    prepared.prepare(QTransform(), f);
    if (static_cast<std::size_t>(line) >= m_lines.size())
        m_lines.resize(static_cast<std::size_t>(line) + 1);
    m_lines[static_cast<std::size_t>(line)] = prepared;
    update();
}

void VertexItem::setPlanStyle(const QColor& fill, bool checkpoint, bool nonIndependent)
{
    if (fill == m_fill && checkpoint == m_checkpoint && nonIndependent == m_nonIndependent)
        return;
    m_fill = fill;
    m_checkpoint = checkpoint;
    m_nonIndependent = nonIndependent;
    update();
}

void VertexItem::setEmphasis(Emphasis emphasis)
{
    if (emphasis == m_emphasis)
        return;
    m_emphasis = emphasis;
    update();
}

QRectF VertexItem::boundingRect() const
{
    return m_box.adjusted(-4, -4, m_stacked ? 6 : 4, m_stacked ? 6 : 4);
}

void VertexItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget*)
{
    const qreal lod = option->levelOfDetailFromTransform(painter->worldTransform());
    const bool dimmed = m_emphasis == Emphasis::Dimmed;
    const QColor fill = dimmed ? faded(m_fill) : m_fill;
    if (lod < lodPlain) {
        painter->fillRect(m_box, m_emphasis == Emphasis::None || dimmed ? fill : palette::highlight());
        return;
    }
    QPen pen(palette::edge(), 1);
    switch (m_emphasis) {
    case Emphasis::Endpoint: pen = QPen(palette::highlight(), 4); break;
    case Emphasis::Interior: pen = QPen(palette::highlight(), 2.5); break;
    case Emphasis::SearchMatch: pen = QPen(palette::searchMatch(), 4); break;
    case Emphasis::Dimmed: pen = QPen(faded(palette::edge()), 1); break;
    case Emphasis::None:
        if (m_checkpoint)
            pen = QPen(palette::checkpointBorder(), 2.5);
        else if (m_nonIndependent)
            pen = QPen(palette::nonIndependentBorder(), 2, Qt::DashLine);
        break;
    }
    painter->setPen(pen);
    painter->setBrush(fill);
    if (m_stacked)  // the boxes behind: a group of many
        painter->drawRoundedRect(m_box.translated(3, 3), 4, 4);
    painter->drawRoundedRect(m_box, 4, 4);
    if (isSelected()) {
        painter->setPen(QPen(palette::text(), 1.5, Qt::DotLine));
        painter->setBrush(Qt::NoBrush);
        painter->drawRoundedRect(m_box.adjusted(-3, -3, 3, 3), 5, 5);
    }
    if (lod < lodNoText)
        return;
    painter->setPen(dimmed ? QColor(0x80, 0x80, 0x80) : palette::text());
    double y = m_box.top() + padding - 1;
    for (std::size_t i = 0; i < m_lines.size(); ++i) {
        painter->setFont(i == 0 ? m_bold : m_font);
        const double x = m_box.center().x() - m_lines[i].size().width() / 2;
        painter->drawStaticText(QPointF(x, y), m_lines[i]);
        y += m_lineSpacing;
    }
}

GroupItem::GroupItem(int group, const QRectF& box, QStringList label, const QFont& font)
    : VertexItem(-1, box, std::move(label), font), m_group(group)
{
    m_stacked = true;
    setFlag(ItemIsSelectable, false);
    setToolTip(QObject::tr("Double-click to expand"));
}

void GroupItem::setPlanSummary(const QString& summary)
{
    m_summary = summary;
    setLine(2, summary);
}

EdgeItem::EdgeItem(EdgeIndex e, const layout::EdgeCurve& curve) : m_edge(e)
{
    const auto& pts = curve.bezier;
    m_path.moveTo(pts[0].x, pts[0].y);
    for (std::size_t i = 1; i + 2 < pts.size(); i += 3)
        m_path.cubicTo(pts[i].x, pts[i].y, pts[i + 1].x, pts[i + 1].y, pts[i + 2].x, pts[i + 2].y);
    // The arrowhead points from the curve's end to the tip (dot), or along the last segment.
    const QPointF end(pts.back().x, pts.back().y);
    QPointF tip = end, from = pts.size() >= 2 ? QPointF(pts[pts.size() - 2].x, pts[pts.size() - 2].y) : end;
    if (curve.arrowTip) {
        tip = QPointF(curve.arrowTip->x, curve.arrowTip->y);
        from = end;
    }
    QLineF axis(tip, from);
    if (axis.length() > 0.01) {
        axis.setLength(8);
        const QPointF back = axis.p2();
        const QPointF normal = QPointF(-(back.y() - tip.y()), back.x() - tip.x()) * 0.4;
        m_arrow << tip << back + normal << back - normal;
        if (!curve.arrowTip)
            m_path.lineTo(back);
    }
    m_bounds = m_path.boundingRect().united(m_arrow.boundingRect()).adjusted(-2, -2, 2, 2);
    // Edges never change colour while a plan is scrubbed: paint short ones from a cached pixmap. A long
    // edge's pixmap would be as big as the view and be redrawn on every pan and zoom: paint those directly.
    if (m_bounds.width() * m_bounds.height() < 300.0 * 300.0)
        setCacheMode(DeviceCoordinateCache);
}

void EdgeItem::setDimmed(bool dimmed)
{
    if (dimmed == m_dimmed)
        return;
    m_dimmed = dimmed;
    update();
}

QRectF EdgeItem::boundingRect() const
{
    return m_bounds;
}

QPainterPath EdgeItem::shape() const
{
    return m_path;
}

void EdgeItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget*)
{
    const QColor colour = m_dimmed ? faded(palette::edge()) : palette::edge();
    const qreal lod = option->levelOfDetailFromTransform(painter->worldTransform());
    // A cosmetic pen at most one device pixel wide takes the raster engine's fast stroker, which also
    // clips a long edge to the view; a wider or scaled pen strokes the whole curve on every frame.
    QPen pen(colour, 1.0);
    pen.setCosmetic(true);
    painter->setPen(pen);
    painter->setBrush(Qt::NoBrush);
    painter->drawPath(m_path);
    if (lod < lodPlain)
        return;
    painter->setBrush(colour);
    painter->drawPolygon(m_arrow);
}

}  // namespace ckpt::ui
