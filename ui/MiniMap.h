#pragma once
// An overview of a big scene in the corner of its view: the whole scene, the visible part framed;
// clicking or dragging on it moves the view there.
#include <QGraphicsView>

namespace ckpt::ui {

class MiniMap : public QGraphicsView {
    Q_OBJECT
public:
    explicit MiniMap(QGraphicsView* main);
    // Refits the overview and shows it only when the main view cannot show the whole scene.
    void refresh();

protected:
    void drawForeground(QPainter* painter, const QRectF& rect) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    QGraphicsView* m_main;
};

}  // namespace ckpt::ui
