#include "GraphDocument.h"

#include "graph/GraphError.h"
#include "io/GraphJson.h"

#include <QFile>
#include <QFileInfo>

namespace ckpt::ui {

GraphDocument::GraphDocument(QObject* parent) : QObject(parent) {}

bool GraphDocument::load(const QString& path, QString* error)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        if (error)
            *error = tr("%1: cannot open: %2").arg(path, file.errorString());
        return false;
    }
    const QByteArray bytes = file.readAll();
    try {
        auto graph = std::make_shared<const Graph>(
            parseGraphJson(std::string(bytes.constData(), bytes.size()), path.toStdString()));
        setGraph(std::move(graph), path);
        return true;
    } catch (const GraphError& e) {
        if (error)
            *error = QString::fromStdString(e.what());
        return false;
    }
}

void GraphDocument::setGraph(std::shared_ptr<const Graph> graph, const QString& path)
{
    m_graph = std::move(graph);
    m_path = path;
    Q_EMIT graphChanged();
}

QString GraphDocument::displayName() const
{
    if (m_graph && !m_graph->name().empty())
        return QString::fromStdString(m_graph->name());
    return QFileInfo(m_path).fileName();
}

}  // namespace ckpt::ui
