// ckptx-torch profile: the checkpointed step's gradients equal the regular step's on residual,
// dense and inception-like graphs (op and module granularity, plans with several entries and
// exits per segment), a GPT fed tokens, a model of two inputs and one with expanded control
// flow; one trace entry per training phase, on the simulators' phase index; a smaller measured
// peak; inputs other than the graph's refused.
#include "TorchTool.h"

#include "graph/GraphBuilder.h"
#include "io/GraphJson.h"
#include "io/PlanJson.h"
#include "io/TextFile.h"
#include "io/TraceJson.h"
#include "memory/PlanMemory.h"
#include "memory/TraceComparison.h"
#include "theory/PlanEvaluation.h"

#include <QTemporaryDir>
#include <QtTest>

#include <functional>
#include <nlohmann/json.hpp>

using namespace ckpt;
using namespace ckpt::test;

namespace {

struct Profiled {
    Graph graph;
    ProfileTrace trace;
    PlanEvaluation plan;
};

// Checkpoints every `stride`-th vertex of the topological order (none for stride 0).
std::vector<std::string> everyNth(const Graph& graph, int stride)
{
    std::vector<std::string> ids;
    const auto& order = graph.topologicalOrder();
    for (std::size_t k = 1; stride > 0 && k + 1 < order.size(); ++k)
        if (k % stride == 0)
            ids.push_back(graph.vertex(order[k]).id);
    return ids;
}

QStringList inputArgs(const QStringList& inputs)
{
    QStringList args;
    for (const QString& input : inputs)
        args << "--input" << input;
    return args;
}

// Imports the model, profiles the plan `checkpointsOf` chooses for its graph.
Profiled profileWith(const QString& model, const QStringList& inputs, const QString& granularity,
                     const std::function<std::vector<std::string>(const Graph&)>& checkpointsOf, const QString& dir)
{
    const QString graphFile = dir + "/graph.json", planFile = dir + "/plan.json", traceFile = dir + "/trace.json";
    ToolRun run = runCkptxTorch(QStringList{"import", modelPath(model)} + inputArgs(inputs) +
                                QStringList{"--granularity", granularity, "-o", graphFile});
    if (run.exitCode != 0)
        throw std::runtime_error(run.err.toStdString());
    Profiled result{readGraphFile(graphFile.toStdString()), {}, {}};
    result.plan = evaluateIds(result.graph, checkpointsOf(result.graph));
    Plan plan;
    plan.solver = "every-nth";
    plan.evaluation = result.plan;
    writePlanFile(planFile.toStdString(), result.graph, plan);
    run = runCkptxTorch(QStringList{"profile", modelPath(model), "--graph", graphFile, "--plan", planFile} +
                        inputArgs(inputs) + QStringList{"--device", "cpu", "-o", traceFile});
    if (run.exitCode != 0)
        throw std::runtime_error(run.err.toStdString());
    result.trace = parseTraceJson(readTextFile(traceFile.toStdString()), traceFile.toStdString());
    return result;
}

Profiled profile(const QString& model, const QStringList& inputs, const QString& granularity, int stride, const QString& dir)
{
    return profileWith(model, inputs, granularity, [stride](const Graph& g) { return everyNth(g, stride); }, dir);
}

// A model imported into DIR/graph.json and a plan without checkpoints for it in DIR/plan.json.
struct Unplanned {
    QString graphFile, planFile;
    Graph graph;
    Plan plan;
};

Unplanned importUnplanned(const QString& model, const QString& input, const QString& dir)
{
    Unplanned u{dir + "/graph.json", dir + "/plan.json", {}, {}};
    const ToolRun run = runCkptxTorch({"import", modelPath(model), "--input", input, "-o", u.graphFile});
    if (run.exitCode != 0)
        throw std::runtime_error(run.err.toStdString());
    u.graph = readGraphFile(u.graphFile.toStdString());
    u.plan.solver = "none";
    u.plan.evaluation = evaluate(u.graph, {});
    writePlanFile(u.planFile.toStdString(), u.graph, u.plan);
    return u;
}

// A segment with several exits and an entry between two of them (as in a dense block, where a
// checkpoint both reads the segment and feeds it): each exit must back-propagate through the
// segment before that entry's own backward.
bool hasEntryBetweenExits(const Profiled& p)
{
    for (const Segment& s : p.plan.segments)
        for (VertexIndex e : s.entries)
            if (s.exits.size() > 1 && p.graph.topologicalPosition(e) > p.graph.topologicalPosition(s.exits.front()) &&
                p.graph.topologicalPosition(e) < p.graph.topologicalPosition(s.exits.back()))
                return true;
    return false;
}

// Every phase's peak of `step` within 64 bytes of the pytorch model's for `plan` (the loss's scalar
// and the like), not only its end as `ckptx simulate --trace` compares.
void compareEveryPhase(const Graph& g, const PlanEvaluation& plan, const ProfileTrace& trace, const StepMemory& step)
{
    const MemoryProfile predicted = simulatePlanMemory(g, plan, MemoryModel::PyTorch);
    const TraceComparison c = compareWithTrace(g, predicted, trace, step);
    const std::int64_t offset = trace.baselineBytes - g.inputBytes();
    int compared = 0;
    for (const PhaseComparison& phase : c.phases) {
        const auto simulated = std::find_if(predicted.phases.begin(), predicted.phases.end(),
                                            [&](const PhaseMemory& m) { return m.index == phase.index; });
        QVERIFY(simulated != predicted.phases.end());
        const std::int64_t measured = step.phases[phase.traceIndex].peakBytes - offset;
        QVERIFY2(std::abs(measured - simulated->peakBytes) <= 64,
                 qPrintable(QString("phase %1: measured %2, predicted %3").arg(phase.index).arg(measured).arg(simulated->peakBytes)));
        ++compared;
    }
    QCOMPARE(compared, 2 * g.vertexCount());
}

}  // namespace

class TorchProfileTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void gradientsAndPhases_data();
    void gradientsAndPhases();
    void checkpointedPeakIsLower();
    void badPlan();
    void inputsOfTheGraph();
    void residualAddsAsPredicted();
    void phasesAroundAVertexWithoutGradient();
    void lmAsPredictedAtEveryPhase();
    void regularStepAsPredictedAtEveryPhase_data();
    void regularStepAsPredictedAtEveryPhase();
    void checkpointedStepAsPredictedAtEveryPhase_data();
    void checkpointedStepAsPredictedAtEveryPhase();
};

void TorchProfileTest::gradientsAndPhases_data()
{
    QTest::addColumn<QString>("model");
    QTest::addColumn<QStringList>("inputs");
    QTest::addColumn<QString>("granularity");
    QTest::addColumn<int>("stride");
    const std::pair<const char*, QStringList> models[]{{"residual", {"2x3x16x16"}},
                                                        {"dense", {"2x3x16x16"}},
                                                        {"inception_like", {"2x3x16x16"}},
                                                        {"gpt", {"2x16:int64:100"}},
                                                        // Dropout in training mode: re-forwards replay its masks.
                                                        {"gpt_train", {"2x16:int64:100"}},
                                                        {"two_inputs", {"3x8", "3:int64:5"}},
                                                        {"control_flow", {"4x16"}}};
    for (const auto& [model, inputs] : models)
        for (auto [granularity, stride] : {std::pair{"op", 0}, {"op", 2}, {"module", 3}}) {
            const QString tag = QString("%1/%2/every %3").arg(model, granularity).arg(stride);
            QTest::newRow(qPrintable(tag)) << QString(model) << inputs << QString(granularity) << stride;
        }
}

void TorchProfileTest::gradientsAndPhases()
{
    QFETCH(QString, model);
    QFETCH(QStringList, inputs);
    QFETCH(QString, granularity);
    QFETCH(int, stride);
    QTemporaryDir dir;
    const Profiled p = profile(model, inputs, granularity, stride, dir.path());
    QVERIFY2(p.trace.gradientsMatch, p.trace.mismatch.c_str());
    QCOMPARE(p.trace.device, std::string("cpu"));
    const int n = p.graph.vertexCount();
    QCOMPARE(int(p.trace.vertices.size()), n);
    for (const StepMemory* step : {&p.trace.regular, &p.trace.checkpointed}) {
        QCOMPARE(int(step->phases.size()), 2 * n + 2);
        std::int64_t peak = 0;
        for (int i = 0; i < int(step->phases.size()); ++i) {
            const MeasuredPhase& phase = step->phases[i];
            QCOMPARE(phase.index, i);
            QVERIFY(phase.peakBytes >= phase.endBytes);
            QVERIFY(phase.endBytes >= 0);
            peak = std::max(peak, phase.peakBytes);
        }
        QCOMPARE(step->peakBytes, peak);
        QCOMPARE(step->phases.front().endBytes, p.trace.baselineBytes);
        // Forward allocates beyond the weights and input; after the step the gradients remain.
        QVERIFY(step->peakBytes > p.trace.baselineBytes);
        QVERIFY(step->phases.back().endBytes >= p.trace.baselineBytes);
        QVERIFY(step->stepMs > 0);
    }
    // The simulators read the trace on their phase index (a virtual source included).
    for (MemoryModel memoryModel : {MemoryModel::Chen, MemoryModel::PyTorch}) {
        const TraceComparison c = compareWithTrace(p.graph, simulatePlanMemory(p.graph, p.plan, memoryModel), p.trace,
                                                   p.trace.checkpointed);
        QCOMPARE(int(c.phases.size()), 2 * p.graph.vertexCount());
    }
    if (stride == 0)
        QCOMPARE(int(p.trace.checkpoints.size()), int(inputs.size()) + 1);  // the inputs and the output
    else
        QVERIFY(!p.plan.isISPlan || p.plan.segments.size() > 1);
    if (model == "dense" && granularity == "module")
        QVERIFY(hasEntryBetweenExits(p));
}

// A chain whose activations dominate (no convolution workspaces): keeping a few of them cuts
// the measured peak, as the plan's objective predicts.
void TorchProfileTest::checkpointedPeakIsLower()
{
    QTemporaryDir dir;
    const Profiled p = profile("mlp", {"512x256"}, "op", 4, dir.path());
    QVERIFY2(p.trace.gradientsMatch, p.trace.mismatch.c_str());
    QVERIFY2(p.trace.checkpointed.peakBytes < p.trace.regular.peakBytes,
             qPrintable(QString("checkpointed %1 >= regular %2").arg(p.trace.checkpointed.peakBytes).arg(p.trace.regular.peakBytes)));
    QVERIFY(p.trace.checkpointed.stepMs > 0);
}

void TorchProfileTest::badPlan()
{
    QTemporaryDir dir;
    const Unplanned residual = importUnplanned("residual", "1x3x16x16", dir.path());
    const QString &graphFile = residual.graphFile, &planFile = residual.planFile;
    const Graph& graph = residual.graph;
    const Plan& plan = residual.plan;
    // A plan file for this graph that names a vertex it does not have.
    nlohmann::json planJson = nlohmann::json::parse(toPlanJson(graph, plan));
    planJson["checkpoints"] = {"no such vertex"};
    writeTextFileAtomically(planFile.toStdString(), planJson.dump());
    ToolRun run = runCkptxTorch({"profile", modelPath("residual"), "--graph", graphFile, "--plan", planFile, "--input",
                                 "1x3x16x16", "-o", dir.path() + "/t.json"});
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.err.contains("no such vertex"), run.err.constData());
    // A plan made for another graph is refused by its fingerprint.
    const QString otherGraph = dir.path() + "/dense.json";
    QCOMPARE(runCkptxTorch({"import", modelPath("dense"), "--input", "1x3x16x16", "-o", otherGraph}).exitCode, 0);
    writePlanFile(planFile.toStdString(), graph, plan);
    run = runCkptxTorch({"profile", modelPath("dense"), "--graph", otherGraph, "--plan", planFile, "--input",
                         "1x3x16x16", "-o", dir.path() + "/t.json"});
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.err.contains("the plan was made for a different graph"), run.err.constData());
    // A graph of another model is refused by name.
    run = runCkptxTorch({"profile", modelPath("dense"), "--graph", graphFile, "--plan", planFile, "--input", "1x3x16x16",
                         "-o", dir.path() + "/t.json"});
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.err.contains("dense.pt: the graph has vertex"), run.err.constData());
    // A graph of a gradient-accumulation step (P33): its steps start without gradients, so it is refused.
    writeGraphFile(graphFile.toStdString(), withMetadata(graph, {{"accumulate_gradients", "true"}}));
    writePlanFile(planFile.toStdString(), graph, plan);
    run = runCkptxTorch({"profile", modelPath("residual"), "--graph", graphFile, "--plan", planFile, "--input",
                         "1x3x16x16", "-o", dir.path() + "/t.json"});
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.err.contains("/metadata/accumulate_gradients") && run.err.contains("checkpoint_explorer profile"),
             run.err.constData());
}

// profile takes the graph's inputs when --input is left out, and refuses others: a trace of
// another shape would be read against this graph's sizes.
void TorchProfileTest::inputsOfTheGraph()
{
    QTemporaryDir dir;
    const Unplanned gpt = importUnplanned("gpt", "2x16:int64:100", dir.path());
    const QString& graphFile = gpt.graphFile;
    const QStringList common{"--graph", graphFile, "--plan", gpt.planFile, "-o", dir.path() + "/t.json"};
    ToolRun run = runCkptxTorch(QStringList{"profile", modelPath("gpt")} + common);
    QVERIFY2(run.exitCode == 0, run.err.constData());
    const ProfileTrace trace = parseTraceJson(readTextFile((dir.path() + "/t.json").toStdString()), "t.json");
    QVERIFY(trace.gradientsMatch);
    QCOMPARE(trace.inputShape, (std::vector<std::int64_t>{2, 16}));
    for (const QString& other : QStringList{"4x16:int64", "2x16", "2x16:int32"}) {
        run = runCkptxTorch(QStringList{"profile", modelPath("gpt"), "--input", other} + common);
        QCOMPARE(run.exitCode, 1);
        const QString expected = graphFile + ": the graph was imported with input 2x16:int64:100, not " +
                                 (other.contains(':') ? other : other + ":float32");
        QVERIFY2(run.err.contains(expected.toUtf8()), run.err.constData());
        QVERIFY(!run.err.trimmed().contains('\n'));
    }
    run = runCkptxTorch(QStringList{"profile", modelPath("gpt"), "--input", "2x16:int64", "--input", "2x16:int64"} + common);
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.err.contains("not 2x16:int64, 2x16:int64"), run.err.constData());
}

// P24: the backward of a ResNet block's last vertex (BatchNorm, add_, relu_) hands one gradient to
// both the BatchNorm and the shortcut; the executor's shortcut is a leaf, whose AccumulateGrad copies
// it while the BatchNorm's backward still holds it. Every block's last vertex peaks as predicted, to
// the byte, recomputed or a checkpoint (at layer2.1.bn2, a checkpoint, the prediction was one tensor
// high until P13 dropped a checkpoint's stored tensor before its re-forward, as the executor does).
void TorchProfileTest::residualAddsAsPredicted()
{
    QTemporaryDir dir;
    const Profiled p = profile("resnet18", {"4x3x64x64"}, "module", 3, dir.path());
    QVERIFY2(p.trace.gradientsMatch, p.trace.mismatch.c_str());
    const MemoryProfile predicted = simulatePlanMemory(p.graph, p.plan, MemoryModel::PyTorch);
    const TraceComparison c = compareWithTrace(p.graph, predicted, p.trace, p.trace.checkpointed);
    const std::int64_t offset = p.trace.baselineBytes - p.graph.inputBytes();
    const int n = p.graph.vertexCount() - 1;
    int recomputedAdds = 0, checkpointAdds = 0;
    for (const PhaseComparison& phase : c.phases) {
        if (phase.index <= n)
            continue;
        const VertexIndex at = p.graph.topologicalOrder()[2 * n + 1 - phase.index];
        const Vertex& v = p.graph.vertex(at);
        if (v.op.find("aten::add_") == std::string::npos)
            continue;
        const AutogradFacts& f = *v.autograd;
        QVERIFY(f.leafInputsBackwardWorkspaceBytes && *f.leafInputsBackwardWorkspaceBytes > f.backwardWorkspaceBytes);
        const auto simulated = std::find_if(predicted.phases.begin(), predicted.phases.end(),
                                            [&](const PhaseMemory& m) { return m.index == phase.index; });
        QVERIFY(simulated != predicted.phases.end());
        const std::int64_t measured = p.trace.checkpointed.phases[phase.traceIndex].peakBytes - offset;
        const QString what = QString("%1's backward: measured %2, predicted %3")
                                 .arg(QString::fromStdString(v.id))
                                 .arg(measured)
                                 .arg(simulated->peakBytes);
        const bool checkpoint = std::find(p.plan.checkpoints.begin(), p.plan.checkpoints.end(), at) != p.plan.checkpoints.end();
        ++(checkpoint ? checkpointAdds : recomputedAdds);
        QVERIFY2(measured == simulated->peakBytes, qPrintable(what));
    }
    QCOMPARE(recomputedAdds, 6);
    QCOMPARE(checkpointAdds, 2);
}

// The regular step's backward phase of a vertex ends where the gradient of the vertex before it is
// complete; the GPT's causal mask (`eq`, boolean) gets none, so masked_fill's phase ends where that of
// the vertex before the mask (`mul`) is, and the mask's own phase is empty. Until that, masked_fill's
// phase was the empty one, its frees landing in the mask's (the LMs' regular means, 2.2 % → 1.7 %).
void TorchProfileTest::phasesAroundAVertexWithoutGradient()
{
    QTemporaryDir dir;
    const Profiled p = profile("gpt", {"2x16:int64:100"}, "op", 0, dir.path());
    const Graph& g = p.graph;
    const PlanEvaluation regular = evaluate(g, {g.topologicalOrder().begin(), g.topologicalOrder().end()});
    const TraceComparison c = compareWithTrace(g, simulatePlanMemory(g, regular, MemoryModel::PyTorch), p.trace, p.trace.regular);
    const int n = g.vertexCount() - 1;
    auto measuredEnd = [&](const std::string& id) {
        const int index = 2 * n + 1 - g.topologicalPosition(*g.find(id));
        const auto it = std::find_if(c.phases.begin(), c.phases.end(), [&](const PhaseComparison& x) { return x.index == index; });
        return it == c.phases.end() ? std::int64_t(-1) : it->measured;
    };
    const std::int64_t softmax = measuredEnd("h.0.attn/softmax"), maskedFill = measuredEnd("h.0.attn/masked_fill"),
                       mask = measuredEnd("h.0.attn/eq");
    QVERIFY(softmax >= 0 && maskedFill >= 0 && mask >= 0);
    QVERIFY2(maskedFill != softmax, "masked_fill's backward phase is empty");
    QCOMPARE(mask, maskedFill);
}

// P13 on an LM: the executor's checkpointed step runs its forward without grad, where an RMSNorm's
// squares are scratch (P17's measure), and forms the logits' gradient from a loss on the recomputed
// logits, which nothing holds by then. The plan re-forwards the final norm at the head's backward.
void TorchProfileTest::lmAsPredictedAtEveryPhase()
{
    QTemporaryDir dir;
    const Profiled p = profileWith(
        "rms_lm", {"4x32:int64:2000"}, "module",
        [](const Graph& g) {
            std::vector<std::string> ids;
            for (VertexIndex v : g.topologicalOrder())
                if (g.vertex(v).id != "norm_f" && !g.isInput(v))
                    ids.push_back(g.vertex(v).id);
            return ids;
        },
        dir.path());
    QVERIFY2(p.trace.gradientsMatch, p.trace.mismatch.c_str());
    const Graph& g = p.graph;
    const AutogradFacts& norm = *g.vertex(*g.find("norm_f")).autograd;
    QVERIFY(norm.checkpointedForwardWorkspaceBytes && *norm.checkpointedForwardWorkspaceBytes > norm.forwardWorkspaceBytes + 4096);
    compareEveryPhase(g, p.plan, p.trace, p.trace.checkpointed);
}

// P67, P68: the regular step runs autograd's engine over the whole step. An add hands its gradient
// to both summands (P15: residual), a concatenation slices its own (P27: inception_like, dense), a
// slice along the channels reaches a convolution or an upsampling not contiguous, which copy it (P34),
// and a patch embedding read back through a transpose gets its gradient laid out so (P68:
// mini_segformer). Hong's buffer (P2) read inception_like's peak 5.85 % low, and the whole-tensor
// gradients of a contiguous measure left the copies out. LibTorch 1.13's engine makes each sum of a
// gradient anew (P69: dense, whose stem's gradient sums a slice from every concatenation). Every
// phase's peak is within bytes here, not only its end as `ckptx simulate --trace` compares.
void TorchProfileTest::regularStepAsPredictedAtEveryPhase_data()
{
    QTest::addColumn<QString>("model");
    QTest::addColumn<QString>("input");
    QTest::addColumn<QString>("granularity");
    QTest::newRow("residual") << "residual" << "4x3x32x32" << "op";
    QTest::newRow("inception_like") << "inception_like" << "4x3x32x32" << "op";
    QTest::newRow("dense") << "dense" << "4x3x32x32" << "module";
    QTest::newRow("mini_segformer") << "mini_segformer" << "4x3x32x32" << "module";
    // A basic block's last vertex (batch norm, the residual add, ReLU) frees its gradient before its
    // last node forms the inputs' (P70).
    QTest::newRow("resnet18") << "resnet18" << "2x3x32x32" << "module";
    // The token embedding tied to the output layer: its backward's part of the weight's gradient
    // is added to the output layer's, waiting in the engine's buffer (P71).
    QTest::newRow("gpt") << "gpt" << "8x16:int64:100" << "op";
    // `att @ v` is the last to hold the attention weights dropout made: they go once its matmul's
    // node has run, before the split of `c_attn`'s output forms that output's gradient (P73).
    QTest::newRow("gpt_attn_dropout") << "gpt_attn_dropout" << "8x16:int64:100" << "module";
    // An out-of-place residual add under an in-place ReLU, one vertex: its backward hands both
    // summands one tensor, the ReLU's input gradient, not its own (P53 under the engine, P75).
    QTest::newRow("residual_relu_inplace") << "residual_relu_inplace" << "4x3x32x32" << "module";
    // A concatenation whose group runs its own chunk of the stem: the chunk's node forms the stem's
    // gradient, a zero-filled half beside it, while the convolution's slice is a view (P76).
    QTest::newRow("chunk_cat") << "chunk_cat" << "4x3x32x32" << "module";
    // A concatenation's gradient whose last slice a batch norm under an in-place ReLU reads: the
    // engine lets the whole gradient go after the ReLU's node, before the batch norm's forms its
    // input's (P77).
    QTest::newRow("cat_relu_inplace") << "cat_relu_inplace" << "4x3x32x32" << "module";
    // The stem's channels-last layer norm gets the sum of two gradients, the first a permute's view
    // of the block's contiguous one: laid out so, it is copied to be read (P80).
    QTest::newRow("mini_convnext") << "mini_convnext" << "4x3x32x32" << "module";
    // A linear layer's weights' gradients formed after an in-place hardswish let go of the copy it
    // saved and an in-place dropout of its mask, and after the vertex's gradient (P81).
    QTest::newRow("hardswish_head") << "hardswish_head" << "4x3x32x32" << "module";
    // Weight norm's weights made just before the convolution that reads them, as the module's own
    // forward makes them: their nodes form `weight_g`'s and `weight_v`'s gradients right after that
    // convolution's backward (P20), not at the step's end.
    QTest::newRow("weight_norm_tcn") << "weight_norm_tcn" << "4x4x32" << "module";
    // One weight-normed convolution called three times: the last call's static node forms the
    // weights' gradients, right after that call's backward; the others add theirs (P87).
    QTest::newRow("shared_weight_norm") << "shared_weight_norm" << "4x4x32" << "module";
    // Patches unfolded from the input (views) and a mask of ones that carries no gradient (P84).
    QTest::newRow("masked_patches") << "masked_patches" << "4x3x16x16" << "module";
    // A token-mixing linear layer over 3-D values whose output a residual add reads through a
    // transpose: its backward copies the transposed view it is handed, and the stem's summand still
    // holds what it views (P85).
    QTest::newRow("token_mixer") << "token_mixer" << "4x3x16x16" << "module";
}

void TorchProfileTest::regularStepAsPredictedAtEveryPhase()
{
    QFETCH(QString, model);
    QFETCH(QString, input);
    QFETCH(QString, granularity);
    QTemporaryDir dir;
    const Profiled p = profile(model, {input}, granularity, 0, dir.path());
    const Graph& g = p.graph;
    compareEveryPhase(g, evaluate(g, {g.topologicalOrder().begin(), g.topologicalOrder().end()}), p.trace, p.trace.regular);
}

// P13's checkpointed step, every phase. The executor's leaves add what a backward hands them
// unchanged or as a slice into the gradients they hold, in place (P72: dense, whose concatenations
// slice their gradients to inputs that earlier ones gave gradients already), and the tied
// embedding's part of the weight's gradient into the output layer's in `.grad` (P71: gpt).
void TorchProfileTest::checkpointedStepAsPredictedAtEveryPhase_data()
{
    QTest::addColumn<QString>("model");
    QTest::addColumn<QString>("input");
    QTest::addColumn<QString>("granularity");
    QTest::addColumn<int>("stride");
    QTest::newRow("dense") << "dense" << "4x3x32x32" << "module" << 2;
    QTest::newRow("gpt") << "gpt" << "8x16:int64:100" << "op" << 3;
    // A channels-last output (the fusion concatenates a patch embedding read back through a
    // transpose): the loss's mean hands the recomputed classifier a contiguous gradient, which its
    // convolution copies to its own layout (P78; phase 20 one output high without it).
    QTest::newRow("mini_segformer") << "mini_segformer" << "4x3x32x32" << "module" << 3;
    // A block's in-place residual add reads its input through a permute back from a channels-last
    // layer norm: the permute's node hands the input a view of the block's gradient, laid out as the
    // input, and the input's leaf keeps it with no copy (P79; phase 25 one activation high without it).
    QTest::newRow("mini_convnext/2") << "mini_convnext" << "4x3x32x32" << "module" << 2;
    QTest::newRow("mini_convnext/3") << "mini_convnext" << "4x3x32x32" << "module" << 3;
    // The executor's root at the classifier: its weights' gradients come after the in-place ops'
    // nodes let go of the copy and the mask they saved (P82).
    QTest::newRow("hardswish_head") << "hardswish_head" << "4x3x32x32" << "module" << 2;
    QTest::newRow("weight_norm_tcn") << "weight_norm_tcn" << "4x4x32" << "module" << 2;
    QTest::newRow("shared_weight_norm") << "shared_weight_norm" << "4x4x32" << "module" << 2;
    QTest::newRow("masked_patches") << "masked_patches" << "4x3x16x16" << "module" << 2;
    // The residual add reads the stem through a flatten and a transpose and the token MLP through a
    // transpose: both leaves are handed views of the add's gradient, laid out as they are, and both
    // keep them with no copy (P86).
    QTest::newRow("token_mixer/2") << "token_mixer" << "4x3x16x16" << "module" << 2;
    QTest::newRow("token_mixer/3") << "token_mixer" << "4x3x16x16" << "module" << 3;
}

void TorchProfileTest::checkpointedStepAsPredictedAtEveryPhase()
{
    QFETCH(QString, model);
    QFETCH(QString, input);
    QFETCH(QString, granularity);
    QFETCH(int, stride);
    QTemporaryDir dir;
    const Profiled p = profile(model, {input}, granularity, stride, dir.path());
    QVERIFY2(p.trace.gradientsMatch, p.trace.mismatch.c_str());
    compareEveryPhase(p.graph, p.plan, p.trace, p.trace.checkpointed);
}

QTEST_GUILESS_MAIN(TorchProfileTest)
#include "tst_profile.moc"
