#pragma once
// The teaching panel: says in plain words what the current selection means — the plan's objective
// and segments, why an IS of the division tree is Linear, Branch or Complicate, and during the
// sweep which IS exceed C and are therefore broken down. It formats what the core computed.
#include "DivisionTreeView.h"
#include "graph/Graph.h"
#include "solvers/Plan.h"

#include <QTextBrowser>

namespace ckpt::ui {

class ExplainPanel : public QTextBrowser {
    Q_OBJECT
public:
    explicit ExplainPanel(QWidget* parent = nullptr);

    void showGraph(const Graph& graph);
    void showPlan(const Graph& graph, const Plan& plan);
    // A comparison row whose solver failed: why, instead of the previous plan.
    void showFailure(const QString& solver, const QString& error);
    void showTreeNode(const Graph& graph, const TreeDisplay& tree, int node);
    // One sweep step: its C and objective, and the IS whose cost exceeds C (exceeding[i] for tree node i).
    void showSweepEntry(const Graph& graph, const Sweep& sweep, int entry, const TreeDisplay* tree,
                        const std::vector<bool>& exceeding);
};

}  // namespace ckpt::ui
