#include "MemoryPrediction.h"

#include "BackgroundTask.h"
#include "MemoryTimelineBuilder.h"

namespace ckpt::ui {

MemoryPrediction::MemoryPrediction(QObject* parent) : QObject(parent), m_task(new BackgroundTask(this))
{
    connect(m_task, &BackgroundTask::finished, this, [this](bool cancelled) {
        if (cancelled)
            return;
        if (!m_task->error().isEmpty())
            Q_EMIT failed(m_task->error());
        else
            Q_EMIT ready(*m_lines);
    });
}

void MemoryPrediction::predict(std::shared_ptr<const Graph> graph, std::vector<Plan> plans, MemoryModel model,
                               MemoryCount count)
{
    auto lines = std::make_shared<std::vector<MemoryTimeline>>();
    m_lines = lines;
    m_task->start([graph = std::move(graph), plans = std::move(plans), model, count,
                   lines](const std::atomic<bool>& cancel, const BackgroundTask::Progress&) {
        for (const Plan& plan : plans) {
            if (cancel)
                return;
            lines->push_back(makeMemoryTimeline(*graph, plan, model, count));
        }
    });
}

void MemoryPrediction::cancel()
{
    m_task->cancel();
}

bool MemoryPrediction::isRunning() const
{
    return m_task->isRunning();
}

void MemoryPrediction::waitForFinished()
{
    m_task->waitForFinished();
}

}  // namespace ckpt::ui
