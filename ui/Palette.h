#pragma once
// The colours every view shares, so a checkpoint or an IS type looks the same everywhere.
// Segment fills are light (dark text stays readable) and distinguishable side by side;
// role colours follow Okabe & Ito's colour-blind-safe set.
#include <QColor>
#include <QString>

namespace ckpt::ui::palette {

QColor plainFill();                 // a vertex when no plan is shown
QColor checkpointFill();            // a checkpointed vertex
QColor checkpointBorder();
QColor segmentFill(int segment);    // cycles through a fixed set
QColor nonIndependentBorder();      // a segment that is not an Independent Segment
QColor highlight();                 // tree selection: IS source, target and interior
QColor searchMatch();
QColor edge();
QColor text();

// Chart lines (one per plan or solver), Okabe & Ito; cycles.
QColor seriesColour(int i);

// Division-tree node kinds.
QColor linearFill();
QColor branchFill();
QColor complicateFill();
QColor leafFill();

// "<span style='background:#rrggbb'>&nbsp;&nbsp;&nbsp;</span>&nbsp;label" for legends.
QString swatch(const QColor& colour, const QString& label);

}  // namespace ckpt::ui::palette
