#pragma once
// Long work (layout, solving) off the UI thread: one job at a time, with progress and cancel.
// The job gets a cancel flag to poll and a progress callback (0..1); it stores its own results
// and must not touch widgets. Starting a new job cancels the running one, whose end is ignored.
#include <QObject>

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
    // Blocks until the current job ended and its finished() was delivered (tests, screenshots).
    void waitForFinished();

Q_SIGNALS:
    void progressChanged(double fraction);
    void finished(bool cancelled);

private:
    std::shared_ptr<std::atomic<bool>> m_cancel;
    QFutureWatcher<void>* m_watcher = nullptr;
    bool m_running = false;
};

}  // namespace ckpt::ui
