#include "AboutText.h"

#include <QObject>

namespace ckpt::ui {

QString aboutHtml(const QString& version)
{
    // The license is the repository's LICENSE file (tests/ui/tst_about.cpp compares its first line).
    return QObject::tr(
               "<h3>Checkpoint Explorer %1</h3>"
               "<p>Shows a network's computation graph, finds its optimal gradient checkpoints and predicts "
               "training memory.</p>"
               "<p>It implements:</p><ul>"
               "<li>J. Feng, D. Huang: <i>Optimal Gradient Checkpoint Search for Arbitrary Computation "
               "Graphs</i>, CVPR 2021 (and its supplementary material)</li>"
               "<li>P. Jain et al.: <i>Checkmate: Breaking the Memory Wall with Optimal Tensor "
               "Rematerialization</i>, MLSys 2020</li>"
               "<li>D.-Y. Hong, T.-H. Tsai, N. Wang, P. Liu, J.-J. Wu: <i>GPU Memory Usage Optimization for "
               "Backward Propagation in Deep Network Training</i></li>"
               "<li>and the baselines they compare with: T. Chen et al., <i>Training Deep Nets with Sublinear "
               "Memory Cost</i> (2016); A. Griewank, A. Walther, <i>Revolve</i> (2000)</li></ul>"
               "<p>MIT License</p>")
        .arg(version.toHtmlEscaped());
}

}  // namespace ckpt::ui
