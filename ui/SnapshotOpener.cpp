#include "SnapshotOpener.h"

#include "BackgroundTask.h"
#include "graph/GraphError.h"
#include "io/MemorySnapshot.h"
#include "memory/SnapshotTrace.h"

#include <QFileInfo>

namespace ckpt::ui {

SnapshotOpener::SnapshotOpener(QObject* parent) : QObject(parent), m_task(new BackgroundTask(this))
{
    connect(m_task, &BackgroundTask::progressChanged, this, &SnapshotOpener::progressChanged);
    connect(m_task, &BackgroundTask::finished, this, [this](bool cancelled) {
        const auto result = m_result;
        if (cancelled)
            Q_EMIT finished(std::nullopt, QString());
        else
            Q_EMIT finished(result->trace, result->error);
    });
}

void SnapshotOpener::start(const QString& path, std::shared_ptr<const Graph> graph)
{
    m_result = std::make_shared<Result>();
    const std::string file = path.toStdString();
    const std::string model = QFileInfo(path).fileName().toStdString();
    m_task->start([result = m_result, file, model, graph](const std::atomic<bool>& cancel,
                                                          const BackgroundTask::Progress& progress) {
        try {
            const MemorySnapshot snapshot = readMemorySnapshotFile(file);
            progress(0.8);
            if (cancel)
                return;
            SnapshotImportOptions options;
            options.graph = graph.get();
            options.model = model;
            try {
                result->trace = traceFromSnapshot(snapshot, options).trace;
            } catch (const GraphError& e) {
                throw e.inFile(file);
            }
            progress(1.0);
        } catch (const std::exception& e) {  // GraphError, or no memory for a huge snapshot
            result->error = QString::fromStdString(e.what());
        }
    });
}

void SnapshotOpener::cancel()
{
    m_task->cancel();
}

bool SnapshotOpener::isRunning() const
{
    return m_task->isRunning();
}

void SnapshotOpener::waitForFinished()
{
    m_task->waitForFinished();
}

}  // namespace ckpt::ui
