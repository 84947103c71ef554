#pragma once
// Running the project's executables (ckptx, ckptx-torch) and other programs from tests, as a user would.
#include <QByteArray>
#include <QString>
#include <QStringList>

namespace ckpt::test {

struct ToolRun {
    int exitCode = -1;  // -1 when the process crashed or timed out
    QByteArray out, err;
};

// Runs PROGRAM (a path, or a name looked up in PATH) with the arguments; kills it after timeoutMs.
ToolRun runProgram(const QString& program, const QStringList& args, int timeoutMs = 240000);
// Runs build/bin/EXECUTABLE with the arguments; kills it after timeoutMs.
ToolRun runTool(const QString& executable, const QStringList& args, int timeoutMs = 240000);
inline ToolRun runCkptx(const QStringList& args) { return runTool(QStringLiteral("ckptx"), args); }

}  // namespace ckpt::test
