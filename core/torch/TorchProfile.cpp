#include "TorchProfile.h"

#include "TorchProgram.h"
#include "theory/PlanEvaluation.h"

#include <ATen/CPUGeneratorImpl.h>
#include <c10/util/ThreadLocalDebugInfo.h>
#include <torch/csrc/autograd/autograd.h>
#ifdef CKPT_TORCH_CUDA
#include <ATen/cuda/CUDAGeneratorImpl.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAFunctions.h>
#include <torch/cuda.h>
#endif

#include <algorithm>
#include <chrono>
#include <map>
#include <mutex>

namespace ckpt::torchx {

namespace {

// The default generators' state as plain values. A re-forward replays the random numbers its
// vertices drew in the forward (a dropout's mask), as torch.utils.checkpoint does; without it the
// recomputed masks differ and so do the gradients. Plain values, not get_state()'s tensor: a
// tensor would go through the allocator the meter counts.
struct RandomState {
    at::mt19937 cpuEngine;
    c10::optional<float> cpuNextFloat;
    c10::optional<double> cpuNextDouble;
#ifdef CKPT_TORCH_CUDA
    std::uint64_t cudaOffset = 0;
#endif
};

RandomState randomState()
{
    RandomState state;
    at::Generator cpu = at::detail::getDefaultCPUGenerator();
    std::lock_guard<std::mutex> lock(cpu.mutex());
    auto* impl = at::check_generator<at::CPUGeneratorImpl>(cpu);
    state.cpuEngine = impl->engine();
    state.cpuNextFloat = impl->next_float_normal_sample();
    state.cpuNextDouble = impl->next_double_normal_sample();
#ifdef CKPT_TORCH_CUDA
    if (torch::cuda::is_available()) {
        at::Generator cuda = at::cuda::detail::getDefaultCUDAGenerator();
        std::lock_guard<std::mutex> cudaLock(cuda.mutex());
        state.cudaOffset = at::check_generator<at::CUDAGeneratorImpl>(cuda)->philox_offset_per_thread();
    }
#endif
    return state;
}

void setRandomState(const RandomState& state)
{
    at::Generator cpu = at::detail::getDefaultCPUGenerator();
    std::lock_guard<std::mutex> lock(cpu.mutex());
    auto* impl = at::check_generator<at::CPUGeneratorImpl>(cpu);
    impl->set_engine(state.cpuEngine);
    impl->set_next_float_normal_sample(state.cpuNextFloat);
    impl->set_next_double_normal_sample(state.cpuNextDouble);
#ifdef CKPT_TORCH_CUDA
    if (torch::cuda::is_available()) {
        at::Generator cuda = at::cuda::detail::getDefaultCUDAGenerator();
        std::lock_guard<std::mutex> cudaLock(cuda.mutex());
        at::check_generator<at::CUDAGeneratorImpl>(cuda)->set_philox_offset_per_thread(state.cudaOffset);
    }
#endif
}

// Every step starts from the same random numbers, so the regular and the checkpointed step draw
// the same dropout masks and their gradients can be compared.
void seedRandom()
{
    at::Generator cpu = at::detail::getDefaultCPUGenerator();
    {
        std::lock_guard<std::mutex> lock(cpu.mutex());
        cpu.set_current_seed(0);
    }
#ifdef CKPT_TORCH_CUDA
    if (torch::cuda::is_available()) {
        at::Generator cuda = at::cuda::detail::getDefaultCUDAGenerator();
        std::lock_guard<std::mutex> lock(cuda.mutex());
        cuda.set_current_seed(0);
    }
#endif
}

// Allocated bytes over time: one sample per allocation or free on CPU, one per mark on CUDA;
// each sample holds the bytes after it and the peak since the previous sample.
class MemoryMeter {
public:
    struct Sample {
        std::int64_t current = 0, peak = 0;
    };
    virtual ~MemoryMeter() = default;
    // A position in the sample list: everything before it has happened.
    virtual std::size_t mark() = 0;
    std::vector<Sample> samples() const
    {
        std::lock_guard lock(m_mutex);
        return m_samples;
    }
    std::int64_t current() const
    {
        std::lock_guard lock(m_mutex);
        return m_samples.empty() ? 0 : m_samples.back().current;
    }

protected:
    void add(Sample s)
    {
        std::lock_guard lock(m_mutex);
        m_samples.push_back(s);
    }
    std::size_t size() const
    {
        std::lock_guard lock(m_mutex);
        return m_samples.size();
    }

private:
    mutable std::mutex m_mutex;
    std::vector<Sample> m_samples;
};

// c10's memory reporting: installed as the profiler's thread-local debug info, it is told
// about every CPU allocation (size > 0) and free (size < 0) on this thread and on the
// autograd threads the step runs, which inherit the debug info.
class CpuMemoryMeter : public MemoryMeter, public c10::MemoryReportingInfoBase {
public:
    void reportMemoryUsage(void*, int64_t size, int64_t, int64_t, c10::Device device) override
    {
        if (!device.is_cpu())
            return;
        std::lock_guard lock(m_total);
        m_bytes += size;
        add({m_bytes, m_bytes});
    }
    bool memoryProfilingEnabled() const override { return true; }
    std::size_t mark() override { return size(); }

private:
    std::mutex m_total;
    std::int64_t m_bytes = 0;
};

#ifdef CKPT_TORCH_CUDA
// The caching allocator's statistics: bytes handed to tensors (not the reserved pool).
class CudaMemoryMeter : public MemoryMeter {
public:
    std::size_t mark() override
    {
        namespace alloc = c10::cuda::CUDACachingAllocator;
        // The model runs on the current device (TorchProgram::device() names no index).
        const int device = c10::cuda::current_device();
        const auto stats = alloc::getDeviceStats(device);
        const auto& bytes = stats.allocated_bytes[static_cast<std::size_t>(alloc::StatType::AGGREGATE)];
        add({bytes.current, bytes.peak});
        alloc::resetPeakStats(device);
        return size();
    }
};
#endif

struct Schedule {
    std::vector<int> order;                 // groups in the graph's topological order; -1: its virtual source
    std::vector<std::string> ids;           // the vertex ids in that order (the virtual source's too)
    std::vector<std::vector<int>> consumers;  // per group
    int sink = 0;
};

// Phase i (1..N) ends at forwardEnd[i-1]; backward phase N+k ends where the gradient of the
// vertex before order[N-k] is complete — of the nearest before it that gets one, where that one
// gets none (an attention's integer sizes: their phases are empty, not the one before them) — and
// where the backward ends when none does; 2N+1 at stepEnd. Positions are made monotone, an empty
// phase repeats the bytes of the previous end.
StepMemory phasesOf(const std::vector<MemoryMeter::Sample>& samples, std::size_t stepStart,
                    const std::vector<std::size_t>& forwardEnd, const std::vector<std::size_t>& gradientDone,
                    std::size_t backwardEnd, std::size_t stepEnd)
{
    const std::size_t n = forwardEnd.size();
    std::vector<std::size_t> ends{stepStart};
    ends.insert(ends.end(), forwardEnd.begin(), forwardEnd.end());
    for (std::size_t k = n; k-- > 0;) {
        std::size_t before = k;
        while (before > 0 && gradientDone[before - 1] == 0)
            --before;
        ends.push_back(before == 0 ? backwardEnd : gradientDone[before - 1]);
    }
    ends.push_back(stepEnd);
    StepMemory step;
    auto bytesAt = [&](std::size_t position) { return position == 0 ? 0 : samples[position - 1].current; };
    std::size_t previous = stepStart;
    for (std::size_t i = 0; i < ends.size(); ++i) {
        const std::size_t end = std::max(previous, std::min(ends[i], stepEnd));
        MeasuredPhase phase;
        phase.index = static_cast<int>(i);
        phase.endBytes = bytesAt(end);
        phase.peakBytes = i == 0 ? phase.endBytes : bytesAt(previous);
        for (std::size_t s = previous; s < end; ++s)
            phase.peakBytes = std::max(phase.peakBytes, samples[s].peak);
        step.peakBytes = std::max(step.peakBytes, phase.peakBytes);
        step.phases.push_back(phase);
        previous = end;
    }
    return step;
}

class Profiler {
public:
    Profiler(const Graph& graph, const ProfileOptions& options, MemoryMeter& meter)
        : m_graph(graph), m_options(options), m_meter(meter), m_program(options.model)
    {
        matchGraph();
        for (const at::Tensor& p : m_program.module().parameters())
            p.requires_grad_(true);
        m_program.refreshStatics();  // with autograd: finds the statics it computes (P20)
        m_program.findGradientCarriers();
        for (const OpGroup& group : m_program.groups())
            if (group.carriesGradient)
                m_carriers.insert(group.exports.begin(), group.exports.end());
        // As in training, the inputs get no gradient: the first vertex's backward forms none (an
        // image's was the step's last allocation, SqueezeNet's checkpointed peak).
        m_inputs = m_program.randomInputs();
    }

    const Schedule& schedule() const { return m_schedule; }
    const std::vector<OpGroup>& groups() const { return m_program.groups(); }
    const std::vector<bool>& checkpoints() const { return m_isCheckpoint; }

    // One step; `checkpointed` selects the plan. Leaves the gradients in the parameters.
    // `ms` and `forwardMs`: its wall time and its forward pass's (the loss included). A plan that
    // recomputes nothing is regular training, which is what the pytorch model predicts for it (the
    // executor would recompute every vertex at its backward to back-propagate it from a root).
    StepMemory step(bool checkpointed, double& ms, double& forwardMs)
    {
        for (const at::Tensor& p : m_program.module().parameters())
            p.mutable_grad().reset();
        synchronize();
        const auto start = std::chrono::steady_clock::now();
        {
            // Those autograd computes are made again by the runs that read them (P20).
            torch::NoGradGuard noGrad;
            m_program.refreshStatics();
        }
        const std::size_t stepStart = m_meter.mark();
        const std::size_t n = m_schedule.order.size();
        m_forwardEnd.assign(n, 0);
        m_gradientDone.assign(n, 0);
        m_randomBefore.assign(m_program.groups().size(), RandomState());
        seedRandom();
        std::size_t backwardEnd = 0;
        if (checkpointed && !m_segments.empty())
            backwardEnd = checkpointedStep();
        else
            backwardEnd = regularStep();
        synchronize();
        const std::size_t stepEnd = m_meter.mark();
        ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        forwardMs = std::chrono::duration<double, std::milli>(m_forwardDone - start).count();
        return phasesOf(m_meter.samples(), stepStart, m_forwardEnd, m_gradientDone, backwardEnd, stepEnd);
    }

    // Parameter gradients by name ("layer1.0.conv1.weight").
    std::vector<std::pair<std::string, at::Tensor>> gradients()
    {
        std::vector<std::pair<std::string, at::Tensor>> out;
        auto copy = [](const at::Tensor& grad) { return grad.defined() ? grad.clone() : at::Tensor(); };
        for (const auto& p : m_program.module().named_parameters())
            out.emplace_back(p.name, copy(p.value.grad()));
        return out;
    }

private:
    void markForwardDone()
    {
        synchronize();
        m_forwardDone = std::chrono::steady_clock::now();
    }

    void synchronize()
    {
#ifdef CKPT_TORCH_CUDA
        if (m_program.device().is_cuda())
            torch::cuda::synchronize();
#endif
    }

    void matchGraph()
    {
        const auto& groups = m_program.groups();
        std::map<std::string, int> groupOf;
        for (std::size_t g = 0; g < groups.size(); ++g)
            groupOf[groups[g].id] = static_cast<int>(g);
        const std::string file = m_options.model.modelPath;
        int realVertices = 0;
        for (const Vertex& v : m_graph.vertices()) {
            if (v.isVirtual)
                continue;
            ++realVertices;
            if (!groupOf.count(v.id))
                failImport(file, "the graph has vertex \"" + v.id + "\" which this model, imported at " +
                                     granularityName(m_options.model.granularity) + " granularity, does not have");
        }
        if (static_cast<int>(groups.size()) != realVertices)
            failImport(file, "the graph has " + std::to_string(realVertices) + " vertices, the model " +
                                 std::to_string(groups.size()));
        m_schedule.consumers.assign(groups.size(), {});
        for (std::size_t g = 0; g < groups.size(); ++g)
            for (int d : groups[g].deps)
                m_schedule.consumers[d].push_back(static_cast<int>(g));
        // A model of several inputs has a virtual source (GraphBuilder): it keeps its place in
        // the order, as an empty phase, so the phases are the simulators'.
        for (VertexIndex v : m_graph.topologicalOrder()) {
            const Vertex& vertex = m_graph.vertex(v);
            m_schedule.order.push_back(vertex.isVirtual ? -1 : groupOf.at(vertex.id));
            m_schedule.ids.push_back(vertex.id);
        }
        m_schedule.sink = m_program.sinkGroup();
        m_isCheckpoint.assign(groups.size(), false);
        m_isCheckpoint[m_schedule.sink] = true;
        for (std::size_t g = 0; g < groups.size(); ++g)
            m_isCheckpoint[g] = m_isCheckpoint[g] || groups[g].input >= 0;
        for (const std::string& id : m_options.checkpoints) {
            if (!groupOf.count(id))
                failImport(file, "the plan checkpoints \"" + id + "\", which is not a vertex of the graph");
            m_isCheckpoint[groupOf.at(id)] = true;
        }
        m_position.assign(groups.size(), 0);
        for (std::size_t k = 0; k < m_schedule.order.size(); ++k)
            if (m_schedule.order[k] >= 0)
                m_position[m_schedule.order[k]] = static_cast<int>(k);
        findSegments();
    }

    std::vector<at::Tensor> exportedTensors(int g, const Env& env) const
    {
        std::vector<at::Tensor> tensors;
        for (const Value* v : m_program.groups()[g].exports)
            if (auto it = env.find(v); it != env.end())
                collectTensors(it->second, tensors);
        return tensors;
    }

    // Marks where the gradient of group g is complete (the latest of its tensors' hooks).
    void hookGradients(int g, const Env& env)
    {
        for (at::Tensor& t : exportedTensors(g, env)) {
            if (!t.requires_grad())
                continue;
            const int k = m_position[g];
            t.register_hook([this, k](const at::Tensor&) { m_gradientDone[k] = std::max(m_gradientDone[k], m_meter.mark()); });
        }
    }

    void release(int g, Env& env) const
    {
        for (const Value* v : m_program.groups()[g].exports)
            env.erase(v);
    }

    // Runs `groups` (topological order) in turn; a group's values go once its last consumer
    // among them has run, unless `keep` says otherwise, as a Python forward drops its locals.
    void forward(const std::vector<int>& groups, Env& env, const std::vector<bool>& keep, bool marks)
    {
        std::vector<int> remaining(m_program.groups().size(), 0);
        for (int g : groups)
            if (g >= 0)
                for (int d : m_program.groups()[g].deps)
                    ++remaining[d];
        for (std::size_t k = 0; k < groups.size(); ++k) {
            const int g = groups[k];
            if (g < 0) {  // the virtual source computes nothing
                if (marks)
                    m_forwardEnd[k] = m_meter.mark();
                continue;
            }
            if (marks)
                m_randomBefore[g] = randomState();
            if (torch::GradMode::is_enabled())
                m_program.refreshStaticsReadBy(g, true);
            m_program.runGroup(g, env);
            if (torch::GradMode::is_enabled() && !keep[g])
                hookGradients(g, env);
            for (int d : m_program.groups()[g].deps)
                if (--remaining[d] == 0 && !keep[d])
                    release(d, env);
            if (marks)
                m_forwardEnd[m_position[g]] = m_meter.mark();
        }
    }

    void putInputs(Env& env) const
    {
        for (std::size_t i = 0; i < m_inputs.size(); ++i)
            env[m_program.inputValue(static_cast<int>(i))] = m_inputs[i];
    }

    std::size_t regularStep()
    {
        Env env;
        putInputs(env);
        std::vector<bool> keep(m_program.groups().size(), false);
        keep[m_schedule.sink] = true;
        forward(m_schedule.order, env, keep, true);
        // The output goes with the forward's locals, as in a training loop (and the Python
        // profiler): held through the backward, an LM's logits stayed 4 MB on every phase.
        at::Tensor loss = m_program.output(env).toTensor().mean();
        env.clear();
        markForwardDone();
        loss.backward();
        const std::size_t end = m_meter.mark();
        return end;
    }

    // A segment of the plan and the checkpoint at whose backward it is re-forwarded.
    struct SegmentRun {
        std::vector<int> groups;  // topological order
        int lastExit = 0;
    };

    // The backward runs vertex by vertex in reverse topological order, each in its own
    // training phase (docs/MEMORY-MODEL.md): the backward of a vertex back-propagates its
    // gradient through its own operation only. For that, every tensor the backward reads is a
    // leaf (detached, requiring grad) whose .grad collects what its consumers' backwards send,
    // and its operation's output with autograd is kept as the root of its own backward. At the
    // backward of a checkpoint, the segments whose topologically last exit it is are re-forwarded
    // whole from their entries (S2), each vertex once, and the checkpoint is recomputed from its
    // inputs. So each vertex is re-forwarded once and back-propagated once, whatever the shape
    // of the segment (several exits, entries between them), and the gradients equal the regular
    // step's by the chain rule.
    std::size_t checkpointedStep()
    {
        Env env;
        putInputs(env);
        {
            torch::NoGradGuard noGrad;
            forward(m_schedule.order, env, m_isCheckpoint, true);
        }
        markForwardDone();
        // The inputs need no gradient, nor what shapes and constants alone make (a mask of ones).
        for (auto& [value, stored] : env)
            if (m_carriers.count(value))
                stored = asLeaf(stored);
        m_roots.assign(m_program.groups().size(), {});
        // The inputs (and a virtual source) have no operation to back-propagate through.
        for (std::size_t k = m_schedule.order.size(); k-- > 1;) {
            const int g = m_schedule.order[k];
            m_gradientDone[k] = m_meter.mark();
            if (g >= 0 && m_program.groups()[g].input < 0)
                backwardOf(g, env);
        }
        m_gradientDone[0] = std::max(m_gradientDone[0], m_meter.mark());
        env.clear();
        return m_meter.mark();
    }

    static c10::IValue asLeaf(const c10::IValue& value)
    {
        if (!value.isTensor() || !value.toTensor().is_floating_point())
            return value;
        return value.toTensor().detach().requires_grad_(true);
    }

    // The backward phase of group g. Only g's gradient is needed from here on: its stored
    // tensor goes before a checkpoint is made again.
    void backwardOf(int g, Env& env)
    {
        const auto& exports = m_program.groups()[g].exports;
        std::vector<at::Tensor> grads;
        for (const Value* v : exports) {
            auto it = env.find(v);
            grads.push_back(it != env.end() && it->second.isTensor() && it->second.toTensor().requires_grad()
                                ? it->second.toTensor().grad()
                                : at::Tensor());
        }
        release(g, env);
        if (m_isCheckpoint[g]) {
            for (const SegmentRun& segment : m_segments)
                if (segment.lastExit == g)
                    reforward(segment, env);
            recompute(g, env);
        }
        std::vector<at::Tensor> outputs, outputGrads;
        if (g == m_schedule.sink) {
            outputs.push_back(m_sinkLoss);
            outputGrads.push_back(at::Tensor());
        } else {
            for (std::size_t i = 0; i < m_roots[g].size(); ++i)
                if (m_roots[g][i].defined() && m_roots[g][i].requires_grad() && grads[i].defined()) {
                    outputs.push_back(m_roots[g][i]);
                    outputGrads.push_back(grads[i]);
                }
        }
        m_roots[g].clear();
        m_sinkLoss = at::Tensor();
        if (!outputs.empty())
            torch::autograd::backward(outputs, outputGrads);
    }

    // Group g's operation with autograd on its inputs (leaves in env): its outputs become the
    // roots of its backward; what its consumers read are leaves of them.
    void runWithAutograd(int g, Env& env, bool publish)
    {
        Env local;
        for (int d : m_program.groups()[g].deps)
            for (const Value* v : m_program.groups()[d].exports)
                if (auto it = env.find(v); it != env.end())
                    local[v] = it->second;
        const RandomState now = randomState();
        setRandomState(m_randomBefore[g]);
        m_program.refreshStaticsReadBy(g, false);
        m_program.runGroup(g, local);
        setRandomState(now);
        const auto& exports = m_program.groups()[g].exports;
        m_roots[g].assign(exports.size(), at::Tensor());
        for (std::size_t i = 0; i < exports.size(); ++i) {
            auto it = local.find(exports[i]);
            if (it == local.end())
                continue;
            if (it->second.isTensor())
                m_roots[g][i] = it->second.toTensor();
            if (publish)
                env[exports[i]] = m_carriers.count(exports[i]) ? asLeaf(it->second) : it->second;
        }
        if (g == m_schedule.sink)
            m_sinkLoss = m_program.output(local).toTensor().mean();
    }

    void recompute(int c, Env& env) { runWithAutograd(c, env, false); }

    void reforward(const SegmentRun& segment, Env& env)
    {
        for (int g : segment.groups)
            runWithAutograd(g, env, true);
    }

    // The plan's segments (evaluate(): components of non-checkpoint vertices) as groups.
    void findSegments()
    {
        std::vector<std::string> ids;
        for (std::size_t g = 0; g < m_isCheckpoint.size(); ++g)
            if (m_isCheckpoint[g])
                ids.push_back(m_program.groups()[g].id);
        std::map<std::string, int> groupOf;
        for (std::size_t g = 0; g < m_program.groups().size(); ++g)
            groupOf[m_program.groups()[g].id] = static_cast<int>(g);
        for (const Segment& segment : evaluateIds(m_graph, ids).segments) {
            SegmentRun run;
            for (VertexIndex v : segment.vertices)
                run.groups.push_back(groupOf.at(m_graph.vertex(v).id));
            run.lastExit = groupOf.at(m_graph.vertex(segment.exits.back()).id);
            m_segments.push_back(std::move(run));
        }
    }

    const Graph& m_graph;
    const ProfileOptions& m_options;
    MemoryMeter& m_meter;
    TorchProgram m_program;
    std::vector<at::Tensor> m_inputs;
    Schedule m_schedule;
    std::vector<bool> m_isCheckpoint;
    std::unordered_set<const Value*> m_carriers;  // the exports of groups that carry a gradient
    std::vector<SegmentRun> m_segments;
    std::vector<std::vector<at::Tensor>> m_roots;  // per group and export: its output with autograd
    at::Tensor m_sinkLoss;
    std::vector<int> m_position;
    std::vector<std::size_t> m_forwardEnd, m_gradientDone;
    std::chrono::steady_clock::time_point m_forwardDone;
    std::vector<RandomState> m_randomBefore;  // per group: the generators before its forward ran
};

std::string compareGradients(const std::vector<std::pair<std::string, at::Tensor>>& regular,
                             const std::vector<std::pair<std::string, at::Tensor>>& checkpointed, double rtol,
                             double atol)
{
    for (std::size_t i = 0; i < regular.size(); ++i) {
        const auto& [name, a] = regular[i];
        const at::Tensor& b = checkpointed[i].second;
        if (a.defined() != b.defined())
            return name + ": only the " + (a.defined() ? "regular" : "checkpointed") + " step has a gradient";
        if (!a.defined())
            continue;
        if (!at::allclose(b, a, rtol, atol)) {
            const double diff = (b - a).abs().max().item<double>();
            return name + ": gradients differ (max |checkpointed - regular| = " + std::to_string(diff) + ")";
        }
    }
    return {};
}

ProfileTrace measureTraining(const Graph& graph, const ProfileOptions& options)
{
    std::unique_ptr<MemoryMeter> meterOwner;
    std::shared_ptr<CpuMemoryMeter> cpuMeter;
    std::unique_ptr<c10::DebugInfoGuard> reporting;
    if (options.model.device == "cuda") {
#ifdef CKPT_TORCH_CUDA
        if (!torch::cuda::is_available())
            throw TorchImportError("no CUDA device is available");
        meterOwner = std::make_unique<CudaMemoryMeter>();
#else
        throw TorchImportError("this ckptx-torch was built without CUDA (configure with -DCKPT_TORCH_CUDA=ON against a CUDA LibTorch)");
#endif
    } else if (options.model.device == "cpu") {
        // Installed before the model loads so that every live byte is counted.
        cpuMeter = std::make_shared<CpuMemoryMeter>();
        reporting = std::make_unique<c10::DebugInfoGuard>(c10::DebugInfoKind::PROFILER_STATE, cpuMeter);
    } else {
        throw std::invalid_argument("device must be cpu or cuda, got \"" + options.model.device + "\"");
    }
    MemoryMeter& meter = cpuMeter ? static_cast<MemoryMeter&>(*cpuMeter) : *meterOwner;

    Profiler profiler(graph, options, meter);
    ProfileTrace trace;
    trace.model = options.model.modelPath;
    trace.device = options.model.device;
    trace.inputShape = options.model.inputs.front().shape;
    trace.iterations = std::max(1, options.iterations);
    trace.rtol = options.rtol;
    trace.atol = options.atol;
    trace.vertices = profiler.schedule().ids;
    for (int g : profiler.schedule().order)
        if (g >= 0 && profiler.checkpoints()[g])
            trace.checkpoints.push_back(profiler.groups()[g].id);
    // The measured steps reset the gradients first, so nothing but the step itself is live
    // beyond the baseline; the comparison afterwards keeps a copy of one step's gradients.
    // With several iterations the first is a warm-up (oneDNN primitives, allocator caches) and
    // stays out of the mean time.
    auto measure = [&](bool checkpointed) {
        StepMemory step;
        double total = 0, forwardTotal = 0, ms = 0, forwardMs = 0;
        for (int i = 0; i < trace.iterations; ++i) {
            step = profiler.step(checkpointed, ms, forwardMs);
            if (i > 0 || trace.iterations == 1) {
                total += ms;
                forwardTotal += forwardMs;
            }
        }
        step.stepMs = total / std::max(1, trace.iterations - 1);
        step.forwardMs = forwardTotal / std::max(1, trace.iterations - 1);
        return step;
    };
    trace.regular = measure(false);
    trace.checkpointed = measure(true);
    trace.baselineBytes = trace.regular.phases.front().endBytes;
    const auto checkpointedGradients = profiler.gradients();
    double ms = 0, forwardMs = 0;
    profiler.step(false, ms, forwardMs);
    trace.mismatch = compareGradients(profiler.gradients(), checkpointedGradients, options.rtol, options.atol);
    trace.gradientsMatch = trace.mismatch.empty();
    return trace;
}

}  // namespace

ProfileTrace profileTraining(const Graph& graph, const ProfileOptions& options)
{
    return reportingTorchErrors(options.model, [&] { return measureTraining(graph, options); });
}

}  // namespace ckpt::torchx
