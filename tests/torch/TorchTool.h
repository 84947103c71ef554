#pragma once
// Running ckptx-torch from the torch tests (which do not link LibTorch themselves).
#include "TestData.h"
#include "ToolRun.h"

namespace ckpt::test {

inline ToolRun runCkptxTorch(const QStringList& args, int timeoutMs = 240000)
{
    return runTool(QStringLiteral("ckptx-torch"), args, timeoutMs);
}

inline QString modelPath(const QString& name)
{
    return QStringLiteral(CKPT_TORCH_MODEL_DIR "/") + name + ".pt";
}

}  // namespace ckpt::test
