#include "DagPanel.h"

#include "BackgroundTask.h"
#include "DagView.h"
#include "Palette.h"
#include "layout/GraphLayout.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QShortcut>
#include <QToolButton>
#include <QVBoxLayout>

namespace ckpt::ui {

// What the layout job hands back to the UI thread.
struct LayoutResult {
    std::shared_ptr<const layout::GroupTree> groups;
    std::vector<bool> expanded;
    layout::Layout layout;
    QString error;
};

namespace {

QToolButton* toolButton(const QString& text, const QString& tip, QWidget* parent)
{
    auto* button = new QToolButton(parent);
    button->setText(text);
    button->setToolTip(tip);
    button->setAutoRaise(true);
    return button;
}

}  // namespace

DagPanel::DagPanel(QWidget* parent)
    : QWidget(parent),
      m_view(new DagView(this)),
      m_task(new BackgroundTask(this)),
      m_search(new QLineEdit(this)),
      m_matchLabel(new QLabel(this)),
      m_notice(new QLabel(this)),
      m_progress(new QProgressBar(this)),
      m_cancel(new QPushButton(tr("Cancel"), this))
{
    auto* tools = new QHBoxLayout;
    tools->setContentsMargins(4, 2, 4, 2);
    QToolButton* fit = toolButton(tr("Fit"), tr("Show the whole graph"), this);
    QToolButton* zoomIn = toolButton(tr("+"), tr("Zoom in (Ctrl+wheel)"), this);
    QToolButton* zoomOut = toolButton(tr("−"), tr("Zoom out (Ctrl+wheel)"), this);
    QToolButton* previous = toolButton(tr("◀"), tr("Previous match (Shift+F3)"), this);
    QToolButton* next = toolButton(tr("▶"), tr("Next match (F3)"), this);
    m_search->setPlaceholderText(tr("Find vertex (Ctrl+F)"));
    m_search->setClearButtonEnabled(true);
    m_search->setMaximumWidth(220);
    auto* legend = new QLabel(palette::swatch(palette::checkpointFill(), tr("checkpoint")) + QStringLiteral("&nbsp;&nbsp;") +
                                  palette::swatch(palette::segmentFill(0), tr("segment (one colour each)")) +
                                  QStringLiteral("&nbsp;&nbsp;") +
                                  palette::swatch(palette::highlight(), tr("selected IS")),
                              this);
    m_progress->setRange(0, 100);
    m_progress->setMaximumWidth(160);
    m_progress->setFormat(tr("laying out… %p%"));
    tools->addWidget(fit);
    tools->addWidget(zoomIn);
    tools->addWidget(zoomOut);
    tools->addSpacing(8);
    tools->addWidget(m_search);
    tools->addWidget(previous);
    tools->addWidget(next);
    tools->addWidget(m_matchLabel);
    tools->addStretch(1);
    tools->addWidget(m_progress);
    tools->addWidget(m_cancel);
    tools->addWidget(legend);
    m_notice->setWordWrap(true);
    m_notice->setStyleSheet(QStringLiteral("background:#fff3cd; padding:3px"));
    m_notice->hide();
    m_progress->hide();
    m_cancel->hide();

    auto* column = new QVBoxLayout(this);
    column->setContentsMargins(0, 0, 0, 0);
    column->setSpacing(0);
    column->addLayout(tools);
    column->addWidget(m_notice);
    column->addWidget(m_view, 1);

    connect(fit, &QToolButton::clicked, m_view, &DagView::fitGraph);
    connect(zoomIn, &QToolButton::clicked, m_view, [this] { m_view->zoomBy(1.25); });
    connect(zoomOut, &QToolButton::clicked, m_view, [this] { m_view->zoomBy(1 / 1.25); });
    connect(m_search, &QLineEdit::textChanged, m_view, &DagView::find);
    connect(m_search, &QLineEdit::returnPressed, m_view, &DagView::nextMatch);
    connect(next, &QToolButton::clicked, m_view, &DagView::nextMatch);
    connect(previous, &QToolButton::clicked, m_view, &DagView::previousMatch);
    connect(m_view, &DagView::matchChanged, this, &DagPanel::updateMatchLabel);
    auto* find = new QShortcut(QKeySequence::Find, this, [this] {
        m_search->setFocus();
        m_search->selectAll();
    });
    find->setContext(Qt::WindowShortcut);
    new QShortcut(QKeySequence::FindNext, this, [this] { m_view->nextMatch(); });
    new QShortcut(QKeySequence::FindPrevious, this, [this] { m_view->previousMatch(); });
    connect(m_cancel, &QPushButton::clicked, m_task, &BackgroundTask::cancel);
    connect(m_task, &BackgroundTask::progressChanged, this, [this](double f) { m_progress->setValue(int(f * 100)); });
    connect(m_task, &BackgroundTask::finished, this, &DagPanel::onLayoutFinished);
}

void DagPanel::setGraph(std::shared_ptr<const Graph> graph)
{
    m_view->clearGraph();
    m_pendingGraph = graph;
    if (!graph)
        return;
    auto result = std::make_shared<LayoutResult>();
    m_result = result;
    // Grouping and measuring are fast (and fonts belong to this thread); the layout runs behind.
    result->groups = std::make_shared<const layout::GroupTree>(layout::GroupTree::forGraph(*graph, maxVisibleNodes));
    result->expanded = result->groups->expansionWithin(maxVisibleNodes);
    auto visible = std::make_shared<const layout::VisibleGraph>(layout::VisibleGraph::of(*graph, *result->groups, result->expanded));
    const layout::LayoutRequest request =
        dagLayoutRequest(visibleNodeSizes(*graph, *result->groups, *visible, measureVertexBoxes(*graph, DagView::labelFont())));
    m_progress->setValue(0);
    m_progress->show();
    m_cancel->show();
    m_task->start([visible, request, result](const std::atomic<bool>& cancel, const BackgroundTask::Progress& progress) {
        layout::LayoutRequest r = request;
        r.cancel = &cancel;
        r.progress = progress;
        try {
            result->layout = layout::layoutGraph(visible->drawing, r);
        } catch (const layout::LayoutCancelled&) {
        } catch (const std::exception& e) {
            result->error = QString::fromStdString(e.what());
        }
    });
}

void DagPanel::onLayoutFinished(bool cancelled)
{
    m_progress->hide();
    m_cancel->hide();
    if (cancelled) {
        m_noticeText = tr("Layout cancelled: the graph is not drawn. Open it again to retry.");
    } else if (!m_result->error.isEmpty()) {
        m_noticeText = tr("Layout failed: %1").arg(m_result->error);
    } else {
        m_view->setGraph(m_pendingGraph, m_result->groups, m_result->expanded, m_result->layout);
        // A big graph is meant for the layered layout: say only when dot failed on a small one.
        const int shown = m_view->visibleNodeCount();
        m_noticeText = shown <= dagLayoutRequest({}).maxDotVertices ? QString::fromStdString(m_result->layout.notice) : QString();
        if (shown < m_pendingGraph->vertexCount())
            m_noticeText += (m_noticeText.isEmpty() ? QString() : QStringLiteral(" ")) +
                            tr("%1 vertices are shown as %2 boxes, grouped by %3: double-click a group to expand it, "
                               "right-click to collapse one.")
                                .arg(m_pendingGraph->vertexCount())
                                .arg(shown)
                                .arg(m_result->groups->groups().front().path.starts_with('#') ? tr("runs along the topological order")
                                                                                               : tr("module"));
    }
    m_notice->setText(m_noticeText);
    m_notice->setVisible(!m_noticeText.isEmpty());
    if (!cancelled && m_result->error.isEmpty())
        Q_EMIT layoutReady();
}

bool DagPanel::isLayingOut() const
{
    return m_task->isRunning();
}

void DagPanel::waitForLayout()
{
    m_task->waitForFinished();
}

void DagPanel::updateMatchLabel(int current, int count)
{
    if (m_search->text().trimmed().isEmpty())
        m_matchLabel->clear();
    else if (count == 0)
        m_matchLabel->setText(tr("no match"));
    else
        m_matchLabel->setText(tr("%1 of %2").arg(current + 1).arg(count));
}

}  // namespace ckpt::ui
