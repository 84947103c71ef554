#pragma once
// Measuring a training step with LibTorch: a regular step and a step that executes a
// checkpoint plan, with their gradients compared and their memory per training phase.
// Only our types here (see TorchImport.h).
#include "TorchImport.h"
#include "io/TraceJson.h"

#include <string>
#include <vector>

namespace ckpt::torchx {

struct ProfileOptions {
    ImportOptions model;                   // granularity and shape as the graph was imported
    std::vector<std::string> checkpoints;  // vertex ids; the input and the output are always kept
    int iterations = 1;
    // Gradients must satisfy |a - b| <= atol + rtol * |b| elementwise (torch.allclose).
    double rtol = 1e-4;
    double atol = 1e-5;
};

// The regular step: forward, loss = mean(output), backward. The checkpointed step: the forward
// keeps only the checkpoints' tensors (no autograd); the backward runs one vertex per training
// phase in reverse topological order: at a checkpoint, the segments whose last exit it is are
// re-forwarded with autograd (each once, whole, from their entry checkpoints) and the checkpoint
// is recomputed from its inputs; every vertex's gradient, summed from its consumers, is then
// back-propagated through its own operation. Both run `iterations` times; memory and gradients
// are those of the last iteration; the time is the mean of all but the first (a warm-up) when
// there are several.
//
// `graph` must be the model's import at the same granularity (ids are matched). Throws
// TorchImportError for bad input; a gradient mismatch is reported in the trace, not thrown.
ProfileTrace profileTraining(const Graph& graph, const ProfileOptions& options);

}  // namespace ckpt::torchx
