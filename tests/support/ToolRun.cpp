#include "ToolRun.h"

#include "TestData.h"

#include <QProcess>

namespace ckpt::test {

ToolRun runTool(const QString& executable, const QStringList& args, int timeoutMs)
{
    QProcess process;
    process.start(binPath(executable), args);
    ToolRun run;
    if (!process.waitForFinished(timeoutMs)) {
        process.kill();
        process.waitForFinished();
        run.err = "timed out";
        return run;
    }
    run.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    run.out = process.readAllStandardOutput();
    run.err = process.readAllStandardError();
    return run;
}

}  // namespace ckpt::test
