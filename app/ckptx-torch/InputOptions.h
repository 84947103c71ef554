#pragma once
// The model inputs as both ckptx-torch commands take them: `--input SHAPE[:DTYPE[:HIGH]]`, once
// per forward argument, in order, and `--dtype` (the dtype of inputs that name none, and of the
// parameters when it is a float one).
#include "Cli.h"
#include "torch/TorchImport.h"

namespace ckptx {

// Fills options.inputs (empty when no --input is given) and options.dtype; throws UsageError.
void readInputOptions(const Args& args, ckpt::torchx::ImportOptions& options);

}  // namespace ckptx
