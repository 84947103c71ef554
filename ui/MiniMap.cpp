#include "MiniMap.h"

#include "Palette.h"

#include <QMouseEvent>
#include <QScrollBar>

namespace ckpt::ui {

MiniMap::MiniMap(QGraphicsView* main) : QGraphicsView(main), m_main(main)
{
    setObjectName(QStringLiteral("miniMap"));
    setScene(main->scene());
    setInteractive(false);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setFrameShape(QFrame::Box);
    setStyleSheet(QStringLiteral("background: rgba(255,255,255,230)"));
    setCursor(Qt::PointingHandCursor);
    for (QScrollBar* bar : {main->horizontalScrollBar(), main->verticalScrollBar()})
        connect(bar, &QScrollBar::valueChanged, viewport(), qOverload<>(&QWidget::update));
    hide();
}

void MiniMap::refresh()
{
    if (!scene())
        return;
    const QRectF sceneRect = scene()->sceneRect();
    const QRectF visible = m_main->mapToScene(m_main->viewport()->rect()).boundingRect();
    const bool needed = !sceneRect.isEmpty() && !visible.contains(sceneRect.adjusted(2, 2, -2, -2));
    // Shaped like the scene, at most 220 x 160 pixels.
    QSizeF size = sceneRect.size();
    size.scale(220, 160, Qt::KeepAspectRatio);
    resize(std::max(40, int(size.width()) + 4), std::max(30, int(size.height()) + 4));
    move(m_main->viewport()->width() - width() - 8, m_main->viewport()->height() - height() - 8);
    fitInView(sceneRect, Qt::KeepAspectRatio);
    setVisible(needed);
    viewport()->update();
}

void MiniMap::drawForeground(QPainter* painter, const QRectF&)
{
    const QRectF visible = m_main->mapToScene(m_main->viewport()->rect()).boundingRect();
    QColor fill = palette::highlight();
    fill.setAlpha(40);
    painter->setBrush(fill);
    painter->setPen(QPen(palette::highlight(), 0));
    painter->drawRect(visible);
}

void MiniMap::mousePressEvent(QMouseEvent* event)
{
    m_main->centerOn(mapToScene(event->position().toPoint()));
}

void MiniMap::mouseMoveEvent(QMouseEvent* event)
{
    if (event->buttons() & Qt::LeftButton)
        m_main->centerOn(mapToScene(event->position().toPoint()));
}

void MiniMap::resizeEvent(QResizeEvent* event)
{
    QGraphicsView::resizeEvent(event);
    if (scene())
        fitInView(scene()->sceneRect(), Qt::KeepAspectRatio);
}

}  // namespace ckpt::ui
