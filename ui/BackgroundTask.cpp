#include "BackgroundTask.h"

#include <QCoreApplication>
#include <QFutureWatcher>
#include <QPointer>
#include <QtConcurrent>

namespace ckpt::ui {

BackgroundTask::BackgroundTask(QObject* parent) : QObject(parent) {}

BackgroundTask::~BackgroundTask()
{
    if (m_watcher) {
        m_cancel->store(true);
        m_watcher->disconnect(this);
        m_watcher->waitForFinished();
    }
}

void BackgroundTask::start(Job job)
{
    if (m_watcher) {  // supersede: the old job is told to stop and its end is ignored
        m_cancel->store(true);
        m_watcher->disconnect(this);
        connect(m_watcher, &QFutureWatcher<void>::finished, m_watcher, &QObject::deleteLater);
        if (m_watcher->isFinished())
            m_watcher->deleteLater();
    }
    auto cancel = std::make_shared<std::atomic<bool>>(false);
    m_cancel = cancel;
    QPointer<BackgroundTask> self(this);
    Progress progress = [self, cancel](double fraction) {
        QMetaObject::invokeMethod(
            qApp,
            [self, cancel, fraction] {
                if (self && !cancel->load())
                    Q_EMIT self->progressChanged(fraction);
            },
            Qt::QueuedConnection);
    };
    m_watcher = new QFutureWatcher<void>(this);
    QFutureWatcher<void>* watcher = m_watcher;
    connect(watcher, &QFutureWatcher<void>::finished, this, [this, watcher, cancel] {
        if (watcher != m_watcher)
            return;
        m_watcher = nullptr;
        m_running = false;
        watcher->deleteLater();
        Q_EMIT finished(cancel->load());
    });
    m_running = true;
    watcher->setFuture(QtConcurrent::run([job = std::move(job), cancel, progress] { job(*cancel, progress); }));
}

void BackgroundTask::cancel()
{
    if (m_cancel)
        m_cancel->store(true);
}

void BackgroundTask::waitForFinished()
{
    while (m_running) {
        if (m_watcher)
            m_watcher->waitForFinished();
        QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
    }
}

}  // namespace ckpt::ui
