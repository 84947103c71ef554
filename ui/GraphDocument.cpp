#include "GraphDocument.h"

#include "graph/GraphError.h"
#include "io/GraphJson.h"
#include "io/TextFile.h"

#include <QFile>
#include <QFileInfo>

namespace ckpt::ui {

GraphDocument::GraphDocument(QObject* parent) : QObject(parent) {}

bool GraphDocument::load(const QString& path, QString* error)
{
    auto fail = [&](const QString& message) {
        if (error)
            *error = message;
        return false;
    };
    // QFile rather than readGraphFile: the bundled examples are Qt resources (":/examples/...").
    // The same limits as the core's reader: regular files only, no larger than kMaxInputFileBytes.
    const QFileInfo info(path);
    if (info.exists() && !info.isFile())
        return fail(tr("%1: is not a regular file").arg(path));
    if (static_cast<std::uintmax_t>(info.size()) > kMaxInputFileBytes)
        return fail(tr("%1: is larger than %2 MiB").arg(path).arg(kMaxInputFileBytes >> 20));
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return fail(tr("%1: cannot open: %2").arg(path, file.errorString()));
    const QByteArray bytes = file.readAll();
    std::shared_ptr<const Graph> graph;
    // Any exception of a load is reported: no input may end the app.
    try {
        graph = std::make_shared<const Graph>(
            parseGraphJson(std::string(bytes.constData(), bytes.size()), path.toStdString()));
    } catch (const std::exception& e) {
        return fail(QString::fromStdString(e.what()));
    }
    setGraph(std::move(graph), path);
    return true;
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
