#pragma once
// Long work (layout, solving) off the UI thread: one job at a time, with progress and cancel.
// The job gets a cancel flag to poll and a progress callback (0..1); it stores its own results
// and must not touch widgets. Starting a new job cancels the running one, whose end is ignored.
// An exception that escapes the job (out of memory included) ends it with error() set, never the
// program.
#include <QObject>
#include <QString>

#include <atomic>
#include <functional>
#include <memory>

template <typename T>
class QFutureWatcher;

namespace ckpt::ui {

class BackgroundTask : public QObject {
    Q_OBJECT
public:
    using Progress = std::function<void(double fraction)>;
    using Job = std::function<void(const std::atomic<bool>& cancel, const Progress& progress)>;

    explicit BackgroundTask(QObject* parent = nullptr);
    ~BackgroundTask() override;  // cancels and waits

    void start(Job job);
    void cancel();
    bool isRunning() const { return m_running; }
    // Why the last job ended early ("out of memory", an escaped exception's text); empty when it
    // returned normally. Valid from its finished() on.
    QString error() const { return m_error; }
    // Blocks until the current job ended and its finished() was delivered (tests, screenshots).
    void waitForFinished();

Q_SIGNALS:
    void progressChanged(double fraction);
    void finished(bool cancelled);

private:
    std::shared_ptr<std::atomic<bool>> m_cancel;
    QFutureWatcher<void>* m_watcher = nullptr;
    bool m_running = false;
    QString m_error;
};

}  // namespace ckpt::ui
