#pragma once
// Runs `ckptx-torch profile` (issue 7 §4) and `ckptx-torch import` (issue 6 §2) as subprocesses,
// so a crash, a kill or an out-of-memory run of LibTorch never takes the window down: the current
// graph and plan go to temporary files, the trace comes back parsed, and any failure is one
// sentence naming the exit code and the tool's last stderr line. One run at a time.
#include "graph/Graph.h"
#include "io/TraceJson.h"
#include "solvers/Plan.h"

#include <QObject>
#include <QProcess>
#include <QString>

#include <memory>
#include <optional>

class QTemporaryDir;

namespace ckpt::ui {

struct ProfileRequest {
    QString model;       // the TorchScript file the graph was imported from, or FILE.py:FACTORY
    QString inputShape;  // "1x3x224x224"; for a Python model one SHAPE[:DTYPE] per argument, space-separated
    QString device = QStringLiteral("cpu");
    int iterations = 1;
    QString python = QStringLiteral("python3");  // for a Python model: the interpreter

    // FILE.py:FACTORY is a Python model, profiled by `python3 -m checkpoint_explorer profile` in the
    // user's own environment (their torch, their GPU); anything else a TorchScript file for ckptx-torch.
    bool isPythonModel() const;
};

// What `ckptx-torch import` turns into a graph.
struct ImportRequest {
    QString model;
    QString inputShape;                          // "1x3x224x224"
    QString granularity = QStringLiteral("op");  // or "module"
    QString dtype = QStringLiteral("float32");   // float64, float16, bfloat16
};

class ProfileRunner : public QObject {
    Q_OBJECT
public:
    explicit ProfileRunner(QObject* parent = nullptr);
    ~ProfileRunner() override;  // kills a running profile

    // ckptx-torch next to the running executable unless set (tests point it at the build's bin/).
    static QString defaultTool();
    void setTool(const QString& path) { m_tool = path; }
    QString tool() const { return m_tool; }

    // Starts profiling `plan` on `graph`; false (with *error) when the inputs cannot be written.
    bool start(const ProfileRequest& request, const Graph& graph, const Plan& plan, QString* error);
    // Imports a TorchScript model to the graph file `output`; false (with *error) when busy.
    bool startImport(const ImportRequest& request, const QString& output, QString* error);
    void cancel();
    bool isRunning() const { return m_process != nullptr; }
    // The last run ended by cancel() (its finished() then carries no error worth a dialog).
    bool wasCancelled() const { return m_cancelled; }
    // Blocks until finished() was delivered (tests, screenshots).
    void waitForFinished();

Q_SIGNALS:
    // A line the tool printed on stderr (its progress), for the status bar.
    void message(const QString& line);
    // The trace on success; otherwise nullopt and what happened.
    void finished(const std::optional<ckpt::ProfileTrace>& trace, const QString& error);
    // The graph file on success (error empty), else what happened.
    void imported(const QString& graphFile, const QString& error);

private:
    // `python`: program is an interpreter running the checkout's (or an installed) package.
    void run(const QString& program, const QStringList& args, bool python = false);
    void onFinished(int exitCode, QProcess::ExitStatus status);
    // What went wrong with the run that just ended, empty when it wrote `output`.
    QString failure(int exitCode, QProcess::ExitStatus status, const QString& output) const;
    void finish(const std::optional<ProfileTrace>& trace, const QString& error);

    QString m_tool;
    QString m_running;  // what runs, for messages: "ckptx-torch" or "python3 -m checkpoint_explorer"
    QProcess* m_process = nullptr;
    std::unique_ptr<QTemporaryDir> m_dir;
    QString m_stderr;
    QString m_importOutput;  // set while an import runs
    bool m_cancelled = false;
};

}  // namespace ckpt::ui
