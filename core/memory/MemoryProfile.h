#pragma once
// Memory over the training-phase index (Hong et al. §5.1.1): phase 0 is before training,
// 1..N the forward of vertices 1..N in topological order (vertex 0, the source, is the
// input), N+1..2N the backward in reverse (phase 2N+1-k is the backward of vertex k), and
// 2N+1 after training. N = vertexCount - 1; on a chain d_0..d_N this is the paper's numbering.
#include <cstdint>
#include <string>
#include <vector>

namespace ckpt {

enum class MemoryModel {
    Chen,     // Chen et al. / Hong Alg. 2: checkpoints stay, a segment is re-forwarded whole
    PyTorch,  // Hong Alg. 4: everything freed when no longer needed, plus the output-gradient buffer
};

std::string memoryModelName(MemoryModel model);
// "chen" or "pytorch"; throws std::invalid_argument naming the choices otherwise.
MemoryModel parseMemoryModel(const std::string& name);
inline const std::vector<MemoryModel>& allMemoryModels()
{
    static const std::vector<MemoryModel> models{MemoryModel::Chen, MemoryModel::PyTorch};
    return models;
}

// What the phases count: the bytes tensors request (every CPU measure, a memory snapshot's history),
// or the blocks of PyTorch's CUDA caching allocator, as torch.cuda.memory_allocated() does (rule A1;
// the pytorch model's checkpoint plans: memory/CudaStepMemory.h).
enum class MemoryCount { Requested, CudaBlocks };

std::string memoryCountName(MemoryCount count);
// "requested" or "cuda"; throws std::invalid_argument naming the choices otherwise.
MemoryCount parseMemoryCount(const std::string& name);

struct PhaseMemory {
    int index = 0;
    std::int64_t endBytes = 0;   // live at the end of the phase
    std::int64_t peakBytes = 0;  // largest live total within the phase (start included)
    // What was live at that peak: vertex ids for values, "grad:ID" for a gradient kept for a
    // tensor with several consumers, "grad-buffer" for Alg. 4's output-gradient buffer,
    // "param-grad:ID" for the gradients of the parameters vertex ID reads, "saved:ID" for its
    // saved extras, "workspace:ID" for its operator scratch memory, "copy:ID" for a re-forward's
    // second copy of it, "static-grad:ID" for the gradients it forms for what parameters alone
    // compute, "static-value:ID" for those values made before it that later vertices read (pytorch
    // model).
    std::vector<std::string> live;
};

// The live lists cost O(phases × live): 700 MB of text for one plan of a 100k-vertex residual graph.
// The app and `ckptx simulate` list them for graphs of at most this many vertices (the CLI's --live
// lists them always).
constexpr int kLiveListsUpTo = 2000;

struct MemoryProfile {
    MemoryModel model = MemoryModel::Chen;
    std::int64_t peakBytes = 0;
    int peakPhase = 0;
    std::vector<PhaseMemory> phases;  // indices 0 .. 2N+1
};

}  // namespace ckpt
