#pragma once
// The graph the window shows, and where it came from. Views observe it; they never own graphs.
#include "graph/Graph.h"

#include <QObject>
#include <QString>

#include <memory>

namespace ckpt::ui {

class GraphDocument : public QObject {
    Q_OBJECT
public:
    explicit GraphDocument(QObject* parent = nullptr);

    // Reads our JSON or networkx JSON from a file or a Qt resource (":/examples/...").
    // On failure the current graph stays and `error` says what is wrong, naming the file.
    bool load(const QString& path, QString* error);
    void setGraph(std::shared_ptr<const Graph> graph, const QString& path);

    std::shared_ptr<const Graph> graph() const { return m_graph; }
    QString path() const { return m_path; }
    QString displayName() const;

Q_SIGNALS:
    void graphChanged();

private:
    std::shared_ptr<const Graph> m_graph;
    QString m_path;
};

}  // namespace ckpt::ui
