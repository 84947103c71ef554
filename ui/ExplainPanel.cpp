#include "ExplainPanel.h"

#include "util/Units.h"

namespace ckpt::ui {

namespace {

QString bytes(std::int64_t b) { return QString::fromStdString(formatBytes(b)); }

QString vertexName(const Graph& g, VertexIndex v)
{
    const Vertex& x = g.vertex(v);
    return QString::fromStdString(x.name.empty() ? x.id : x.name).toHtmlEscaped();
}

QString nameList(const Graph& g, const std::vector<VertexIndex>& vs, std::size_t limit = 12)
{
    QStringList names;
    for (std::size_t i = 0; i < vs.size() && i < limit; ++i)
        names << QStringLiteral("<i>%1</i>").arg(vertexName(g, vs[i]));
    if (vs.size() > limit)
        names << QObject::tr("… %1 more").arg(vs.size() - limit);
    return names.join(QStringLiteral(", "));
}

// "1 segment", "3 segments".
QString counted(std::size_t count, const QString& one, const QString& many)
{
    return QStringLiteral("%1 %2").arg(count).arg(count == 1 ? one : many);
}

}  // namespace

ExplainPanel::ExplainPanel(QWidget* parent) : QTextBrowser(parent)
{
    setObjectName(QStringLiteral("explainPanel"));
    setOpenLinks(false);
    setHtml(tr("<p>Open a graph (File ▸ Open, or one of the paper's examples under File ▸ Examples), run the "
               "solvers and select a plan; this panel explains what you select.</p>"));
}

void ExplainPanel::showFailure(const QString& solver, const QString& error)
{
    setHtml(tr("<h3>%1 found no plan</h3><p>%2</p><p>Select another row of the comparison to see its plan.</p>")
                .arg(solver.toHtmlEscaped(), error.toHtmlEscaped()));
}

void ExplainPanel::showGraph(const Graph& graph)
{
    setHtml(tr("<h3>%1</h3><p>%2 tensors (vertices) and %3 operations (edges), %4 in all. Training keeps every "
               "forward tensor until its gradient is computed; <b>checkpointing</b> keeps only some of them and "
               "recomputes the rest, segment by segment, during the backward pass.</p><p>Run the solvers to see "
               "which tensors to keep.</p>")
                .arg(QString::fromStdString(graph.name()).toHtmlEscaped())
                .arg(graph.vertexCount())
                .arg(graph.edgeCount())
                .arg(bytes(graph.totalBytes())));
}

void ExplainPanel::showPlan(const Graph& graph, const Plan& plan)
{
    const PlanEvaluation& e = plan.evaluation;
    int largest = -1;
    for (std::size_t s = 0; s < e.segments.size(); ++s)
        if (largest < 0 || e.segments[s].cost > e.segments[std::size_t(largest)].cost)
            largest = int(s);
    QString html = tr("<h3>Plan from %1</h3>").arg(QString::fromStdString(plan.solver).toHtmlEscaped());
    html += tr("<p>Objective <b>%1</b> = checkpoints %2 + largest segment %3 (Feng &amp; Huang, Eq. 2): the "
               "checkpoints stay in memory throughout, and the backward pass recomputes one segment at a time, "
               "so only the largest segment adds to them.</p>")
                .arg(bytes(e.objective), bytes(e.checkpointBytes), bytes(e.maxSegmentCost));
    html += tr("<p><b>%1</b> (orange in the graph): %2.</p>")
                .arg(counted(e.checkpoints.size(), tr("checkpoint"), tr("checkpoints")), nameList(graph, e.checkpoints));
    html += tr("<p><b>%1</b> (one colour each)").arg(counted(e.segments.size(), tr("segment"), tr("segments")));
    if (largest >= 0)
        html += tr("; the largest, %1, runs from %2 to %3.")
                    .arg(bytes(e.segments[std::size_t(largest)].cost))
                    .arg(nameList(graph, e.segments[std::size_t(largest)].entries),
                         nameList(graph, e.segments[std::size_t(largest)].exits));
    html += QStringLiteral("</p>");
    html += e.isISPlan ? tr("<p>Every segment is an <b>Independent Segment</b>: one entry checkpoint, one exit "
                            "checkpoint.</p>")
                       : tr("<p>Not an IS plan (dashed borders): %1</p>").arg(QString::fromStdString(e.whyNotIS).toHtmlEscaped());
    for (const std::string& note : plan.notes)
        html += QStringLiteral("<p><i>%1</i></p>").arg(QString::fromStdString(note).toHtmlEscaped());
    setHtml(html);
}

void ExplainPanel::showTreeNode(const Graph& graph, const TreeDisplay& tree, int node)
{
    if (node < 0 || node >= int(tree.nodes.size()))
        return;
    const TreeDisplay::Node& n = tree.nodes[std::size_t(node)];
    QString html = tr("<h3>%1 IS: %2 → %3</h3><p>%4 interior vertices, %5.</p>")
                       .arg(kindName(n.kind), vertexName(graph, n.source), vertexName(graph, n.target))
                       .arg(n.interiorSize)
                       .arg(bytes(n.cost));
    if (!n.explanation.isEmpty())
        html += QStringLiteral("<p>%1</p>").arg(n.explanation.toHtmlEscaped());
    if (!n.children.empty())
        html += tr("<p>It divides into %1 smaller IS (its children in the tree).</p>").arg(n.children.size());
    setHtml(html);
}

void ExplainPanel::showSweepEntry(const Graph& graph, const Sweep& sweep, int entry, const TreeDisplay* tree,
                                  const std::vector<bool>& exceeding)
{
    const SweepEntry& e = sweep.entries.at(std::size_t(entry));
    QString html = tr("<h3>Sweep: C = %1</h3><p>The solver allows no segment to cost more than C, breaking down "
                      "every IS that does into smaller ones; then it keeps the fewest checkpoint bytes. At this C "
                      "the plan has %2 and objective %3%4.</p>")
                       .arg(bytes(e.c))
                       .arg(counted(e.checkpoints.size(), tr("checkpoint"), tr("checkpoints")))
                       .arg(bytes(e.objective))
                       .arg(entry == sweep.winner ? tr(" — the best of the sweep") : QString());
    if (tree) {
        // Name the first few; big trees break down hundreds of IS at small C.
        constexpr int shown = 12;
        QStringList broken;
        int count = 0;
        for (std::size_t i = 0; i < tree->nodes.size() && i < exceeding.size(); ++i)
            if (exceeding[i] && count++ < shown)
                broken << tr("%1 → %2 (%3, %4 &gt; C)")
                              .arg(vertexName(graph, tree->nodes[i].source), vertexName(graph, tree->nodes[i].target),
                                   kindName(tree->nodes[i].kind), bytes(tree->nodes[i].segmentCost));
        if (count > shown)
            broken << tr("and %1 more").arg(count - shown);
        html += broken.isEmpty() ? tr("<p>No IS exceeds C.</p>")
                                 : tr("<p>Broken down because the segment each leaves with only its source and "
                                      "target checkpointed exceeds C (dashed in the tree): %1.</p>")
                                       .arg(broken.join(QStringLiteral("; ")));
    }
    setHtml(html);
}

}  // namespace ckpt::ui
