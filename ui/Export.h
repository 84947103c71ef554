#pragma once
// Exports, all written atomically (QSaveFile: a failed write leaves the old file intact).
// Images of a scene (the DAG, the tree) or a widget (the chart) as PNG or SVG, by file extension.
#include <QByteArray>
#include <QString>

class QGraphicsScene;
class QWidget;

namespace ckpt::ui {

bool writeFileAtomically(const QString& path, const QByteArray& data, QString* error);
// A save dialog's answer with the chosen filter's extension added when the name has none
// ("plan" with "Plan JSON (*.json)" → "plan.json"); file dialogs do not always add it.
QString withFilterSuffix(const QString& path, const QString& selectedFilter);

// PNG (scaled down so the longer side is at most maxSide pixels) or SVG.
QByteArray scenePng(QGraphicsScene* scene, int maxSide = 8000);
QByteArray sceneSvg(QGraphicsScene* scene, const QString& title);
QByteArray widgetPng(QWidget* widget);
QByteArray widgetSvg(QWidget* widget, const QString& title);

// By the path's extension (.svg, else PNG).
bool exportScene(QGraphicsScene* scene, const QString& path, QString* error);
bool exportWidget(QWidget* widget, const QString& path, QString* error);

}  // namespace ckpt::ui
