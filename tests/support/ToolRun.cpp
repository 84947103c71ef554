#include "ToolRun.h"

#include "TestData.h"

#include <QProcess>

namespace ckpt::test {

ToolRun runProgram(const QString& program, const QStringList& args, int timeoutMs)
{
    QProcess process;
    process.start(program, args);
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

ToolRun runTool(const QString& executable, const QStringList& args, int timeoutMs)
{
    return runProgram(binPath(executable), args, timeoutMs);
}

}  // namespace ckpt::test
