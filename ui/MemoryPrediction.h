#pragma once
// The memory chart's predicted lines, simulated off the UI thread: a plan's step through the
// `pytorch` model takes 1.6 s on a 1M-vertex graph, through the CUDA caching allocator (rule A1,
// warm-up steps included) 26 s, and the chart draws several plans (docs/BENCHMARKS.md).
#include "MemoryChart.h"
#include "graph/Graph.h"
#include "memory/MemoryProfile.h"
#include "solvers/Plan.h"

#include <QObject>

#include <memory>
#include <vector>

namespace ckpt::ui {

class BackgroundTask;

class MemoryPrediction : public QObject {
    Q_OBJECT
public:
    explicit MemoryPrediction(QObject* parent = nullptr);

    // One timeline per plan, in order (makeMemoryTimeline); supersedes a prediction still running,
    // whose lines are never delivered. The plans are copied: the caller's may go while it runs.
    void predict(std::shared_ptr<const Graph> graph, std::vector<Plan> plans, MemoryModel model, MemoryCount count);
    // Stops between two plans; nothing is delivered.
    void cancel();
    bool isRunning() const;
    // Blocks until the running prediction ended and its signal was delivered (tests, screenshots).
    void waitForFinished();

Q_SIGNALS:
    void ready(const std::vector<ckpt::ui::MemoryTimeline>& timelines);
    void failed(const QString& error);

private:
    BackgroundTask* m_task;
    std::shared_ptr<std::vector<MemoryTimeline>> m_lines;  // the running prediction's
};

}  // namespace ckpt::ui
