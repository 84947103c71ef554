#pragma once
// File ▸ Open memory snapshot…: a PyTorch memory snapshot read and turned into a trace (core
// MemorySnapshot, SnapshotTrace) in a BackgroundTask, so a big pickle never blocks the window.
// The snapshot's phase markers are mapped onto the open graph when it has them.
#include "io/TraceJson.h"

#include <QObject>
#include <QString>

#include <memory>
#include <optional>

namespace ckpt {
class Graph;
}

namespace ckpt::ui {

class BackgroundTask;

class SnapshotOpener : public QObject {
    Q_OBJECT
public:
    explicit SnapshotOpener(QObject* parent = nullptr);

    // Reads `path` (the only device with a history is used); `graph` may be null.
    void start(const QString& path, std::shared_ptr<const Graph> graph);
    void cancel();
    bool isRunning() const;
    void waitForFinished();

Q_SIGNALS:
    void progressChanged(double fraction);
    // The trace on success; otherwise nullopt and the reader's one-line error (empty when cancelled).
    void finished(const std::optional<ckpt::ProfileTrace>& trace, const QString& error);

private:
    struct Result {
        std::optional<ProfileTrace> trace;
        QString error;
    };
    BackgroundTask* m_task;
    std::shared_ptr<Result> m_result;
};

}  // namespace ckpt::ui
