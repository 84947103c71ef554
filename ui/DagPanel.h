#pragma once
// The DAG view with its tools: groups the graph (module paths), picks what shows collapsed (at most
// maxVisibleNodes boxes), lays that out in the background (progress, cancel, a notice when the
// fallback layout is used), fit / zoom, Ctrl+F search with next / previous, and a legend.
#include "graph/Graph.h"

#include <QWidget>

#include <memory>

class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;

namespace ckpt::ui {

class BackgroundTask;
class DagView;

class DagPanel : public QWidget {
    Q_OBJECT
public:
    explicit DagPanel(QWidget* parent = nullptr);

    // Starts laying the graph out; the view shows it when done (layoutReady).
    void setGraph(std::shared_ptr<const Graph> graph);
    DagView* view() const { return m_view; }
    QLineEdit* searchField() const { return m_search; }
    bool isLayingOut() const;
    void waitForLayout();
    // Why the fallback layout is shown, or empty.
    QString notice() const { return m_noticeText; }
    // Above this many vertices a graph opens with its groups collapsed to about this many boxes.
    static constexpr int maxVisibleNodes = 300;

Q_SIGNALS:
    void layoutReady();

private:
    void onLayoutFinished(bool cancelled);
    void updateMatchLabel(int current, int count);

    DagView* m_view;
    BackgroundTask* m_task;
    QLineEdit* m_search;
    QLabel* m_matchLabel;
    QLabel* m_notice;
    QProgressBar* m_progress;
    QPushButton* m_cancel;
    QString m_noticeText;
    std::shared_ptr<const Graph> m_pendingGraph;
    std::shared_ptr<struct LayoutResult> m_result;
};

}  // namespace ckpt::ui
