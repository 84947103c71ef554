#include "BackgroundTask.h"

#include <QCoreApplication>
#include <QFutureWatcher>
#include <QPointer>
#include <QtConcurrent>

#include <exception>
#include <new>

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
    auto error = std::make_shared<QString>();
    connect(watcher, &QFutureWatcher<void>::finished, this, [this, watcher, cancel, error] {
        if (watcher != m_watcher)
            return;
        m_watcher = nullptr;
        m_running = false;
        m_error = *error;
        watcher->deleteLater();
        Q_EMIT finished(cancel->load());
    });
    m_running = true;
    m_error.clear();
    watcher->setFuture(QtConcurrent::run([job = std::move(job), cancel, progress, error] {
        // Caught here: QtConcurrent would rethrow it as QUnhandledException when waited for.
        try {
            job(*cancel, progress);
        } catch (const std::bad_alloc&) {
            *error = tr("out of memory: the job needed more memory than this machine could give");
        } catch (const std::exception& e) {
            *error = QString::fromLocal8Bit(e.what());
        } catch (...) {
            *error = tr("the job failed with an unknown exception");
        }
    }));
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
