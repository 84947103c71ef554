#include "Export.h"

#include <QBuffer>
#include <QFileInfo>
#include <QGraphicsScene>
#include <QImage>
#include <QPainter>
#include <QRegularExpression>
#include <QSaveFile>
#include <QSvgGenerator>
#include <QWidget>

#include <functional>

namespace ckpt::ui {

namespace {

using Render = std::function<void(QPainter&, const QRectF& target)>;

QByteArray png(const QSize& size, const Render& render)
{
    QImage image(size.expandedTo(QSize(1, 1)), QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::white);
    {
        QPainter painter(&image);
        painter.setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
        render(painter, QRectF(QPointF(0, 0), QSizeF(image.size())));
    }
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    image.save(&buffer, "PNG");
    return bytes;
}

QByteArray svg(const QSize& size, const QString& title, const Render& render)
{
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    QSvgGenerator generator;
    generator.setOutputDevice(&buffer);
    generator.setSize(size);
    generator.setViewBox(QRect(QPoint(0, 0), size));
    generator.setTitle(title);
    generator.setDescription(QStringLiteral("Checkpoint Explorer"));
    {
        QPainter painter(&generator);
        render(painter, QRectF(QPointF(0, 0), QSizeF(size)));
    }
    return bytes;
}

Render sceneRender(QGraphicsScene* scene)
{
    return [scene](QPainter& painter, const QRectF& target) { scene->render(&painter, target, scene->sceneRect()); };
}

Render widgetRender(QWidget* widget)
{
    return [widget](QPainter& painter, const QRectF&) { widget->render(&painter); };
}

}  // namespace

QString withFilterSuffix(const QString& path, const QString& selectedFilter)
{
    if (!QFileInfo(path).suffix().isEmpty())
        return path;
    static const QRegularExpression firstPattern(QStringLiteral("\\*\\.([A-Za-z0-9]+)"));
    const QRegularExpressionMatch match = firstPattern.match(selectedFilter);
    return match.hasMatch() ? path + QLatin1Char('.') + match.captured(1) : path;
}

bool writeFileAtomically(const QString& path, const QByteArray& data, QString* error)
{
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(data) != data.size() || !file.commit()) {
        if (error)
            *error = QStringLiteral("%1: cannot write: %2").arg(path, file.errorString());
        return false;
    }
    return true;
}

QByteArray scenePng(QGraphicsScene* scene, int maxSide)
{
    QSizeF size = scene->sceneRect().size() * 2;  // 2x: crisp labels at 100% zoom
    if (size.width() > maxSide || size.height() > maxSide)
        size.scale(maxSide, maxSide, Qt::KeepAspectRatio);
    return png(size.toSize(), sceneRender(scene));
}

QByteArray sceneSvg(QGraphicsScene* scene, const QString& title)
{
    return svg(scene->sceneRect().size().toSize(), title, sceneRender(scene));
}

QByteArray widgetPng(QWidget* widget)
{
    return png(widget->size(), widgetRender(widget));
}

QByteArray widgetSvg(QWidget* widget, const QString& title)
{
    return svg(widget->size(), title, widgetRender(widget));
}

bool exportScene(QGraphicsScene* scene, const QString& path, QString* error)
{
    const bool isSvg = path.endsWith(QStringLiteral(".svg"), Qt::CaseInsensitive);
    return writeFileAtomically(path, isSvg ? sceneSvg(scene, path) : scenePng(scene), error);
}

bool exportWidget(QWidget* widget, const QString& path, QString* error)
{
    const bool isSvg = path.endsWith(QStringLiteral(".svg"), Qt::CaseInsensitive);
    return writeFileAtomically(path, isSvg ? widgetSvg(widget, path) : widgetPng(widget), error);
}

}  // namespace ckpt::ui
