#pragma once
// Running ckptx-torch from the torch tests (which do not link LibTorch themselves).
#include "TestData.h"

#include <QProcess>
#include <QString>
#include <QStringList>

namespace ckpt::test {

struct ToolRun {
    int exitCode = -1;
    QString out, err;
};

inline ToolRun runCkptxTorch(const QStringList& args, int timeoutMs = 240000)
{
    QProcess process;
    process.start(binPath("ckptx-torch"), args);
    ToolRun run;
    if (!process.waitForFinished(timeoutMs)) {
        process.kill();
        process.waitForFinished();
        run.err = "timed out";
        return run;
    }
    run.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    run.out = QString::fromUtf8(process.readAllStandardOutput());
    run.err = QString::fromUtf8(process.readAllStandardError());
    return run;
}

inline QString modelPath(const QString& name)
{
    return QStringLiteral(CKPT_TORCH_MODEL_DIR "/") + name + ".pt";
}

}  // namespace ckpt::test
