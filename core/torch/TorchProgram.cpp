#include "TorchProgram.h"

#include "ScratchMeter.h"

#include "graph/GraphBuilder.h"
#include "graph/GraphError.h"
#include "util/Units.h"

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/Parallel.h>
#include <c10/util/ThreadLocalDebugInfo.h>
#include <nlohmann/json.hpp>

#include <torch/csrc/autograd/autograd.h>
#include <torch/csrc/jit/passes/dead_code_elimination.h>
#include <torch/csrc/jit/passes/inliner.h>
#include <torch/version.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <thread>
#include <unordered_map>
#include <unordered_set>

namespace ckpt::torchx {

namespace {

// The dtypes InputSpec names (and dtypeName writes back).
const std::map<std::string, c10::ScalarType>& dtypes()
{
    static const std::map<std::string, c10::ScalarType> table{
        {"float32", c10::kFloat}, {"float64", c10::kDouble}, {"float16", c10::kHalf},
        {"bfloat16", c10::kBFloat16}, {"int64", c10::kLong}, {"int32", c10::kInt}};
    return table;
}

bool isOutOfMemory(const std::string& message)
{
    for (const char* sign : {"not enough memory", "can't allocate memory", "out of memory", "std::bad_alloc"})
        if (message.find(sign) != std::string::npos)
            return true;
    return false;
}

// The size in c10's allocator messages ("... you tried to allocate 1024 bytes ..."), if any.
std::optional<std::int64_t> requestedBytes(const std::string& message)
{
    const std::string marker = "tried to allocate ";
    const auto at = message.find(marker);
    if (at == std::string::npos)
        return std::nullopt;
    const auto digits = at + marker.size();
    const auto end = message.find_first_not_of("0123456789", digits);
    if (end == digits || end - digits > 18 || message.compare(end, 6, " bytes") != 0)
        return std::nullopt;
    return std::stoll(message.substr(digits, end - digits));
}

const c10::StorageImpl* storageOf(const at::Tensor& t)
{
    if (!t.defined() || !t.has_storage() || t.storage().nbytes() == 0)
        return nullptr;
    return t.storage().unsafeGetStorageImpl();
}

// The module's parameters, each once: LibTorch lists a tied weight once per module that holds it
// (a GPT's token embedding and output layer).
std::vector<at::Tensor> distinctParameters(const torch::jit::Module& module)
{
    std::vector<at::Tensor> distinct;
    std::unordered_set<const c10::TensorImpl*> seen;
    for (const at::Tensor& p : module.parameters())
        if (seen.insert(p.unsafeGetTensorImpl()).second)
            distinct.push_back(p);
    return distinct;
}

std::int64_t numel(const std::vector<at::Tensor>& tensors)
{
    std::int64_t n = 0;
    for (const auto& t : tensors)
        n += t.defined() ? t.numel() : 0;
    return n;
}

// FLOPs (a multiply-add is 2) for the ops that dominate compute; the element count of the
// outputs for every other op, as the issue asks.
double computeOf(const Node* node, const std::vector<c10::IValue>& inputs, const std::vector<c10::IValue>& outputs)
{
    std::vector<at::Tensor> out;
    for (const auto& v : outputs)
        collectTensors(v, out);
    const std::string kind = node->kind().toUnqualString();
    const double outElements = static_cast<double>(numel(out));
    auto tensorInput = [&](std::size_t i) { return i < inputs.size() && inputs[i].isTensor() ? inputs[i].toTensor() : at::Tensor(); };
    if (kind == "_convolution" || kind == "conv1d" || kind == "conv2d" || kind == "conv3d" || kind == "convolution") {
        at::Tensor weight = tensorInput(1);
        if (weight.defined() && weight.dim() > 0 && weight.size(0) > 0)
            return 2.0 * outElements * static_cast<double>(weight.numel() / weight.size(0));
    }
    if (kind == "linear" || kind == "matmul" || kind == "mm" || kind == "bmm") {
        at::Tensor a = tensorInput(0);
        if (a.defined() && a.dim() > 0)
            return 2.0 * outElements * static_cast<double>(a.size(-1));
    }
    if (kind == "addmm" || kind == "baddbmm") {
        at::Tensor a = tensorInput(1);
        if (a.defined() && a.dim() > 0)
            return 2.0 * outElements * static_cast<double>(a.size(-1));
    }
    return outElements;
}

bool writesAnInput(const Node* node, int* written)
{
    const c10::FunctionSchema* schema = node->maybeSchema();
    if (!schema)
        return false;
    const auto& args = schema->arguments();
    for (std::size_t i = 0; i < args.size() && i < node->inputs().size(); ++i) {
        if (args[i].alias_info() && args[i].alias_info()->isWrite()) {
            *written = static_cast<int>(i);
            return true;
        }
    }
    return false;
}

}  // namespace

void failImport(const std::string& file, const std::string& problem)
{
    throw TorchImportError(file + ": " + problem);
}

void failTorch(const ImportOptions& options, const std::string& message)
{
    if (!isOutOfMemory(message))
        failImport(options.modelPath, firstLine(message));
    const auto bytes = requestedBytes(message);
    failImport(options.modelPath, "out of memory at input " + formatInputSpecs(withDtypes(options.inputs, options.dtype)) +
                                      (bytes ? ": could not allocate " + std::to_string(*bytes) + " bytes (" +
                                                   formatBytes(*bytes) + ")"
                                             : " (" + firstLine(message) + ")"));
}

std::string firstLine(const std::string& message)
{
    const auto start = std::min(message.find_first_not_of("\n "), message.size());
    std::string line = message.substr(start, message.find('\n', start) - start);
    while (!line.empty() && (line.back() == ' ' || line.back() == '\r'))
        line.pop_back();
    return line;
}

std::string dtypeName(c10::ScalarType type)
{
    for (const auto& [name, t] : dtypes())
        if (t == type)
            return name;
    switch (type) {
    case c10::kShort: return "int16";
    case c10::kChar: return "int8";
    case c10::kByte: return "uint8";
    case c10::kBool: return "bool";
    default: return c10::toString(type);
    }
}

void collectTensors(const c10::IValue& value, std::vector<at::Tensor>& out)
{
    if (value.isTensor())
        out.push_back(value.toTensor());
    else if (value.isTensorList())
        for (const at::Tensor& t : value.toTensorVector())
            out.push_back(t);
    else if (value.isList())
        for (const c10::IValue& item : value.toListRef())
            collectTensors(item, out);
    else if (value.isTuple())
        for (const c10::IValue& item : value.toTupleRef().elements())
            collectTensors(item, out);
}

Granularity parseGranularity(const std::string& text)
{
    if (text == "op")
        return Granularity::Op;
    if (text == "module")
        return Granularity::Module;
    throw std::invalid_argument("granularity must be op or module, got \"" + text + "\"");
}

std::string granularityName(Granularity granularity)
{
    return granularity == Granularity::Op ? "op" : "module";
}

TorchProgram::TorchProgram(const ImportOptions& options)
    : m_options(options)
{
    checkDtype(options.dtype);
    if (options.inputs.empty())
        fail("no input given (one per argument of forward)");
    m_options.inputs = withDtypes(options.inputs, options.dtype);
    // LibTorch starts with one intra-op thread here; use the machine.
    at::set_num_threads(static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
    load();
    expandControlFlow();
    for (Node* n : m_graph->nodes()) {
        m_position[n] = static_cast<int>(m_nodes.size());
        m_nodes.push_back(n);
    }
    analyse();
}

void TorchProgram::fail(const std::string& problem) const
{
    failImport(m_options.modelPath, problem);
}

void TorchProgram::failAt(const std::string& problem, const std::string& message, const Node* node) const
{
    if (isOutOfMemory(message))
        failTorch(m_options, message);
    std::string where = " (at " + std::string(node->kind().toQualString());
    // A loaded module's nodes point into its serialized code; that code's comments name the model's source.
    const auto range = node->sourceRange().findSourceRangeThatGenerated().value_or(node->sourceRange());
    if (const auto source = range.file_line_col())
        where += ", " + std::get<0>(*source) + ":" + std::to_string(std::get<1>(*source));
    fail(problem + ": " + firstLine(message) + where + ")");
}

void TorchProgram::rejectInput(const std::string& message, const Node* node) const
{
    failAt("the model rejects input " + formatInputSpecs(m_options.inputs), message, node);
}

void TorchProgram::load()
{
    const std::string& path = m_options.modelPath;
    std::ifstream in(path, std::ios::binary);
    if (!in)
        fail("cannot open the file");
    char magic[4] = {};
    in.read(magic, sizeof magic);
    if (in.gcount() < 4 || std::memcmp(magic, "PK\x03\x04", 4) != 0)
        fail("not a TorchScript file (not a zip archive)");
    try {
        m_module = torch::jit::load(path);
    } catch (const c10::Error& e) {
        const std::string message = e.what_without_backtrace();
        if (message.find("maximum supported version") != std::string::npos) {
            const auto from = message.find("Attempted to read");
            fail("written by a newer PyTorch than this LibTorch " TORCH_VERSION " can read (" +
                 firstLine(from == std::string::npos ? message : message.substr(from)) + ")");
        }
        fail("a zip archive but not a TorchScript module (" + firstLine(message) + ")");
    }
    auto forward = m_module.find_method("forward");
    if (!forward)
        fail("the module has no forward method");
    const auto& args = forward->function().getSchema().arguments();
    std::string list;
    bool tensorsOnly = true;
    for (std::size_t i = 1; i < args.size(); ++i) {
        list += (i > 1 ? ", " : "") + args[i].name() + ": " + args[i].type()->annotation_str();
        tensorsOnly = tensorsOnly && args[i].type()->isSubtypeOf(*c10::TensorType::get());
    }
    if (!tensorsOnly)
        fail("forward takes (" + list + "); ckptx-torch feeds it tensors only");
    const int given = inputCount();
    if (static_cast<int>(args.size()) - 1 != given)
        fail("forward takes (" + list + "), " + std::to_string(args.size() - 1) + " tensor(s); ckptx-torch was given " +
             std::to_string(given) + " --input");
    for (std::size_t i = 1; i < args.size(); ++i)
        m_argumentNames.push_back(args[i].name());
    m_module.eval();
    m_module.to(device());
    // Module::to(dtype) would cast integer buffers too (DLRM's index pairs, BatchNorm's counters).
    const c10::ScalarType floating = isFloatDtype(m_options.dtype) ? dtypes().at(m_options.dtype) : c10::kFloat;
    const auto cast = [floating](at::Tensor t) {
        if (t.is_floating_point() && t.scalar_type() != floating)
            t.set_data(t.to(floating));
    };
    for (const at::Tensor& p : m_module.parameters())
        cast(p);
    for (const at::Tensor& b : m_module.buffers())
        cast(b);
    for (const at::Tensor& p : distinctParameters(m_module))
        m_parameterBytes += static_cast<std::int64_t>(p.nbytes());
    for (const at::Tensor& b : m_module.buffers())
        m_bufferBytes += static_cast<std::int64_t>(b.nbytes());
    m_graph = forward->graph()->copy();
    torch::jit::Inline(*m_graph);
    torch::jit::EliminateDeadCode(m_graph);
}

std::string TorchProgram::inputId(int i) const
{
    return inputCount() == 1 ? "input" : "input." + m_argumentNames.at(static_cast<std::size_t>(i));
}

std::vector<torch::Tensor> TorchProgram::randomInputs() const
{
    auto generator = at::make_generator<at::CPUGeneratorImpl>(0);
    std::vector<torch::Tensor> tensors;
    for (const InputSpec& input : m_options.inputs) {
        const auto options = torch::TensorOptions().dtype(dtypes().at(input.dtype));
        torch::Tensor t = isFloatDtype(input.dtype) ? torch::randn(input.shape, generator, options)
                                                    : torch::randint(0, input.high, input.shape, generator, options);
        tensors.push_back(t.to(device()));
    }
    return tensors;
}

// prim::If and prim::Loop at the top of the graph (after inlining) become the ops they run on
// randomInputs(): the branch taken, the body once per trip. Their conditions and trip counts
// usually come from shapes, so the expansion holds for every input of the import's shapes;
// with data-dependent control flow it is the path of the import's (fixed) random input. The
// importer and the profiler expand the same way, so their groups match.
void TorchProgram::expandControlFlow()
{
    using namespace torch::jit;
    const bool hasControlFlow = std::any_of(m_graph->nodes().begin(), m_graph->nodes().end(), [](const Node* n) {
        return n->kind() == prim::If || n->kind() == prim::Loop;
    });
    if (hasControlFlow) {
        torch::NoGradGuard noGrad;
        Env env;
        env[m_graph->inputs()[0]] = m_module._ivalue();
        const auto inputs = randomInputs();
        for (int i = 0; i < inputCount(); ++i)
            env[inputValue(i)] = inputs[static_cast<std::size_t>(i)];
        const std::vector<Node*> nodes(m_graph->nodes().begin(), m_graph->nodes().end());
        for (Node* n : nodes) {
            try {
                expand(n, env);
            } catch (const c10::Error& e) {
                rejectInput(e.what_without_backtrace(), n);
            }
        }
        EliminateDeadCode(m_graph);
        m_operations.clear();  // some of the nodes they were made for are gone
    }
    for (const Node* n : m_graph->nodes())
        if (!n->blocks().empty())
            fail("the graph has a " + std::string(n->kind().toQualString()) + " node, which ckptx-torch cannot expand");
}

// Runs `node` on `env`; an If or a Loop is replaced by the nodes it ran (inserted before it,
// expanded in turn). Returns the values that now stand for the node's outputs.
std::vector<Value*> TorchProgram::expand(Node* node, Env& env)
{
    using namespace torch::jit;
    std::vector<Value*> results;
    if (node->kind() == prim::If) {
        results = inlineBlock(node->blocks()[env.at(node->input(0)).toBool() ? 0 : 1], node, {}, env);
    } else if (node->kind() == prim::Loop) {
        const std::int64_t maxTrips = env.at(node->input(0)).toInt();
        bool more = env.at(node->input(1)).toBool();
        results.assign(node->inputs().begin() + 2, node->inputs().end());
        for (std::int64_t trip = 0; more && trip < maxTrips; ++trip) {
            Value* tripValue = nullptr;
            {
                WithInsertPoint here(node);
                tripValue = m_graph->insertConstant(trip);
            }
            env[tripValue] = trip;
            std::vector<Value*> bodyInputs{tripValue};
            bodyInputs.insert(bodyInputs.end(), results.begin(), results.end());
            std::vector<Value*> outputs = inlineBlock(node->blocks()[0], node, bodyInputs, env);
            more = env.at(outputs[0]).toBool();
            results.assign(outputs.begin() + 1, outputs.end());
        }
    } else {
        auto outputs = execute(node, [&](const Value* v) { return env.at(v); });
        for (std::size_t i = 0; i < outputs.size(); ++i)
            env[node->outputs()[i]] = std::move(outputs[i]);
        return {node->outputs().begin(), node->outputs().end()};
    }
    for (std::size_t i = 0; i < results.size(); ++i)
        node->outputs()[i]->replaceAllUsesWith(results[i]);
    node->destroy();
    return results;
}

// Copies `block`'s nodes before `before`, its inputs bound to `inputs`, and expands them.
// Returns the copies of the block's outputs.
std::vector<Value*> TorchProgram::inlineBlock(torch::jit::Block* block, Node* before, const std::vector<Value*>& inputs,
                                              Env& env)
{
    std::unordered_map<Value*, Value*> copyOf;
    for (std::size_t i = 0; i < inputs.size(); ++i)
        copyOf[block->inputs()[i]] = inputs[i];
    auto mapped = [&](Value* v) {
        auto it = copyOf.find(v);
        return it == copyOf.end() ? v : it->second;
    };
    for (Node* original : block->nodes()) {
        Node* copy = nullptr;
        {
            torch::jit::WithInsertPoint here(before);
            copy = m_graph->insertNode(m_graph->createClone(original, mapped));
        }
        const std::vector<Value*> outputs = expand(copy, env);
        for (std::size_t i = 0; i < outputs.size(); ++i)
            copyOf[original->outputs()[i]] = outputs[i];
    }
    std::vector<Value*> results;
    for (Value* v : block->outputs())
        results.push_back(mapped(v));
    return results;
}

c10::Device TorchProgram::device() const
{
    return m_options.device == "cuda" ? c10::Device(c10::kCUDA) : c10::Device(c10::kCPU);
}

void TorchProgram::refreshStatics()
{
    const Lookup lookup = [&](const Value* v) { return m_statics.at(v); };
    for (Node* node : m_nodes) {
        if (m_kind.at(node) != NodeKind::Static)
            continue;
        std::vector<c10::IValue> outputs;
        try {
            outputs = execute(node, lookup);
        } catch (const c10::Error& e) {
            // A trace drops `torch.no_grad()`: spectral norm's power iteration writes `out=` into its
            // buffers, which autograd refuses once the weights need gradients. TorchScript's own
            // interpreter fails there too, so the model cannot be trained as saved.
            failAt(torch::GradMode::is_enabled() ? "training fails where the model computes from its weights alone"
                                                 : "the model fails where it computes from its weights alone",
                   e.what_without_backtrace(), node);
        }
        for (std::size_t i = 0; i < outputs.size(); ++i)
            m_statics[node->outputs()[i]] = std::move(outputs[i]);
    }
    if (torch::GradMode::is_enabled() && m_trackedStaticsReadBy.empty())
        findTrackedStatics();
}

void TorchProgram::findTrackedStatics()
{
    m_trackedStaticsReadBy.assign(m_groups.size(), {});
    auto tracked = [&](const Node* n) {
        std::vector<at::Tensor> tensors;
        for (const Value* v : n->outputs())
            if (auto it = m_statics.find(v); it != m_statics.end())
                collectTensors(it->second, tensors);
        return std::any_of(tensors.begin(), tensors.end(), [](const at::Tensor& t) { return t.defined() && t.grad_fn(); });
    };
    for (std::size_t g = 0; g < m_groups.size(); ++g) {
        auto& read = m_trackedStaticsReadBy[g];
        std::unordered_set<const Node*> visited;
        // Through the views the group computes as it reads them, and the statics under statics.
        std::function<void(const Value*)> walk = [&](const Value* v) {
            Node* n = const_cast<Node*>(v->node());
            auto kind = m_kind.find(n);
            if (kind == m_kind.end() || !visited.insert(n).second)
                return;
            if (kind->second == NodeKind::Static) {
                if (!tracked(n))
                    return;
                read.push_back(n);
                m_firstReaderOf.emplace(n, static_cast<int>(g));
            } else if (kind->second != NodeKind::Transparent) {
                return;
            }
            for (const Value* input : n->inputs())
                walk(input);
        };
        for (const Node* n : m_groups[g].nodes)
            for (const Value* v : n->inputs())
                walk(v);
        std::sort(read.begin(), read.end(), [&](const Node* a, const Node* b) { return m_position.at(a) < m_position.at(b); });
    }
}

std::int64_t TorchProgram::refreshStaticsReadBy(int g, bool firstOnly)
{
    if (m_trackedStaticsReadBy.empty())
        return 0;
    std::vector<Node*> nodes;
    for (Node* n : m_trackedStaticsReadBy[static_cast<std::size_t>(g)])
        if (!firstOnly || m_firstReaderOf.at(n) == g)
            nodes.push_back(n);
    // The old values go first: the step holds each static once.
    for (const Node* n : nodes)
        for (const Value* v : n->outputs())
            m_statics.erase(v);
    const Lookup lookup = [&](const Value* v) { return m_statics.at(v); };
    std::set<const c10::StorageImpl*> made;
    std::int64_t bytes = 0;
    for (Node* n : nodes) {
        auto outputs = execute(n, lookup);
        for (std::size_t i = 0; i < outputs.size(); ++i) {
            std::vector<at::Tensor> tensors;
            collectTensors(outputs[i], tensors);
            for (const at::Tensor& t : tensors)
                if (t.defined() && storageOf(t) && made.insert(storageOf(t)).second)
                    bytes += static_cast<std::int64_t>(t.storage().nbytes());
            m_statics[n->outputs()[i]] = std::move(outputs[i]);
        }
    }
    return bytes;
}

const std::vector<const Value*>& TorchProgram::producers(const Value* value) const
{
    if (auto it = m_producers.find(value); it != m_producers.end())
        return it->second;
    std::vector<const Value*> result;
    if (!m_statics.count(value)) {
        const Node* node = value->node();
        auto kind = m_kind.find(node);
        if (kind != m_kind.end() && kind->second == NodeKind::Transparent) {
            for (const Value* dep : node->inputs())
                for (const Value* p : producers(dep))
                    if (std::find(result.begin(), result.end(), p) == result.end())
                        result.push_back(p);
        } else {
            result.push_back(value);
        }
    }
    return m_producers[value] = std::move(result);
}

// The module path of the innermost module call a node was inlined from. Call stacks name
// each callee by its attribute only ("0" for layers[0]), so the path is found among the
// caller's descendants by that last name and the callee's type; "SELF" is a method call on
// the same module.
std::string TorchProgram::modulePath(const Node* node) const
{
    std::string path;
    auto stack = node->callstack();
    if (!stack)
        return path;
    for (const auto& entry : (*stack)->vec()) {
        const auto& info = std::get<2>(entry);
        if (!info || info->instance_name().empty() || info->instance_name() == "SELF")
            continue;
        const std::string key = path + "|" + info->instance_name() + "|" + info->class_type()->repr_str();
        auto cached = m_pathCache.find(key);
        if (cached == m_pathCache.end()) {
            std::string best;
            const std::string prefix = path.empty() ? "" : path + ".";
            for (const auto& item : m_module.named_modules()) {
                const std::string& name = item.name;
                if (name.empty() || name.rfind(prefix, 0) != 0 || item.value.type() != info->class_type())
                    continue;
                const std::string last = name.substr(name.find_last_of('.') + 1);
                if (last == info->instance_name() && (best.empty() || name.size() < best.size()))
                    best = name;
            }
            cached = m_pathCache.emplace(key, best.empty() ? prefix + info->instance_name() : best).first;
        }
        path = cached->second;
    }
    return path;
}

std::vector<c10::IValue> TorchProgram::execute(Node* node, const Lookup& lookup) const
{
    using namespace torch::jit;
    const Symbol kind = node->kind();
    if (kind == prim::Constant)
        return {toIValue(node->output()).value()};
    if (kind == prim::GetAttr)
        return {lookup(node->input()).toObject()->getAttr(node->s(attr::name))};
    if (kind == prim::SetAttr) {
        lookup(node->inputs()[0]).toObject()->setAttr(node->s(attr::name), lookup(node->inputs()[1]));
        return {};
    }
    Stack stack;
    for (const Value* v : node->inputs())
        stack.push_back(lookup(v));
    // Container plumbing is built into TorchScript's interpreter rather than registered as ops.
    if (kind == prim::unchecked_cast)
        return {stack.back()};
    if (kind == prim::ListConstruct) {
        c10::impl::GenericList list(node->output()->type()->expectRef<ListType>().getElementType());
        for (auto& item : stack)
            list.push_back(std::move(item));
        return {c10::IValue(std::move(list))};
    }
    if (kind == prim::ListUnpack) {
        const auto list = stack.back().toListRef();
        return std::vector<c10::IValue>(list.begin(), list.end());
    }
    if (kind == prim::TupleConstruct) {
        const auto& type = node->output()->type()->expect<TupleType>();
        if (type->schema())
            return {c10::ivalue::Tuple::createNamed(std::move(stack), type)};
        return {c10::ivalue::Tuple::create(std::move(stack))};
    }
    if (kind == prim::TupleUnpack) {
        const auto& elements = stack.back().toTupleRef().elements();
        return std::vector<c10::IValue>(elements.begin(), elements.end());
    }
    if (kind == prim::DictConstruct) {
        const auto& type = node->output()->type()->expectRef<DictType>();
        c10::impl::GenericDict dict(type.getKeyType(), type.getValueType());
        for (std::size_t i = 0; i + 1 < stack.size(); i += 2)
            dict.insert_or_assign(stack[i], stack[i + 1]);
        return {c10::IValue(std::move(dict))};
    }
    {
        auto op = m_operations.find(node);
        if (op == m_operations.end())
            op = m_operations.emplace(node, node->getOperation()).first;
        op->second(stack);
    }
    return std::vector<c10::IValue>(stack.end() - static_cast<std::ptrdiff_t>(node->outputs().size()), stack.end());
}

void TorchProgram::analyse()
{
    torch::NoGradGuard noGrad;
    Env env;
    m_statics[m_graph->inputs()[0]] = m_module._ivalue();
    std::unordered_set<const c10::StorageImpl*> seen;
    std::unordered_map<const c10::StorageImpl*, int> owner;  // storage -> op-level group
    for (const at::Tensor& t : m_module.parameters())
        seen.insert(storageOf(t));
    for (const at::Tensor& t : m_module.buffers())
        seen.insert(storageOf(t));
    // Values computed from the inputs' data (batch_scaled): tensors only, so that a size read
    // from an input (an int) does not carry it on.
    std::unordered_set<const Value*> fromData;
    const auto inputs = randomInputs();
    for (int i = 0; i < inputCount(); ++i) {
        env[inputValue(i)] = inputs[static_cast<std::size_t>(i)];
        owner[storageOf(inputs[static_cast<std::size_t>(i)])] = i;
        // A view of an input (MAE's patches unfolded from the image, DLRM's column of ids) allocates nothing.
        seen.insert(storageOf(inputs[static_cast<std::size_t>(i)]));
        fromData.insert(inputValue(i));
    }

    std::vector<int> groupOfNode(m_nodes.size(), -1);
    std::unordered_map<const Node*, double> compute;
    int groupCount = inputCount();
    Lookup lookup = [&](const Value* v) {
        auto it = m_statics.find(v);
        return it != m_statics.end() ? it->second : env.at(v);
    };
    for (std::size_t i = 0; i < m_nodes.size(); ++i) {
        Node* node = m_nodes[i];
        const auto deps = node->inputs();
        const bool isStatic = std::all_of(deps.begin(), deps.end(), [&](const Value* v) { return m_statics.count(v) > 0; });
        std::vector<c10::IValue> inputs, outputs;
        try {
            for (const Value* v : node->inputs())
                inputs.push_back(lookup(v));
            outputs = execute(node, lookup);
        } catch (const c10::Error& e) {
            rejectInput(e.what_without_backtrace(), node);
        } catch (const std::exception& e) {
            rejectInput(e.what(), node);
        }
        std::vector<at::Tensor> tensors;
        for (const auto& v : outputs)
            collectTensors(v, tensors);
        auto& store = isStatic ? m_statics : env;
        const bool readsData = std::any_of(deps.begin(), deps.end(), [&](const Value* v) { return fromData.count(v) > 0; });
        for (std::size_t k = 0; k < outputs.size(); ++k) {
            store[node->outputs()[k]] = outputs[k];
            std::vector<at::Tensor> carried;
            collectTensors(outputs[k], carried);
            if (readsData && !carried.empty())
                fromData.insert(node->outputs()[k]);
        }
        if (isStatic) {
            m_kind[node] = NodeKind::Static;
            for (const auto& t : tensors)
                seen.insert(storageOf(t));
            continue;
        }
        bool fresh = false;
        for (const auto& t : tensors)
            fresh |= storageOf(t) && !seen.count(storageOf(t));
        int written = -1;
        if (fresh) {
            m_kind[node] = NodeKind::Allocating;
            groupOfNode[i] = groupCount++;
            for (const auto& t : tensors)
                if (storageOf(t) && !seen.count(storageOf(t)))
                    owner[storageOf(t)] = groupOfNode[i];
        } else if (writesAnInput(node, &written)) {
            m_kind[node] = NodeKind::InPlace;
            const auto* storage = inputs[written].isTensor() ? storageOf(inputs[written].toTensor()) : nullptr;
            if (!owner.count(storage))
                fail("in-place update of a parameter or buffer (" + std::string(node->kind().toQualString()) +
                     ") is not supported");
            groupOfNode[i] = owner.at(storage);
        } else {
            m_kind[node] = NodeKind::Transparent;
        }
        for (const auto& t : tensors)
            seen.insert(storageOf(t));
        if (m_kind[node] != NodeKind::Transparent)
            compute[node] = computeOf(node, inputs, outputs);
    }
    const c10::IValue& out = lookup(outputValue());
    if (!out.isTensor())
        fail("forward returns " + out.type()->annotation_str() + "; ckptx-torch needs it to return one tensor");
    if (m_options.granularity == Granularity::Module)
        mergeModuleCalls(groupOfNode, groupCount);
    buildGroups(groupOfNode, env, fromData);
    // The sink is the model output, which may be a view of its group's tensor (a flatten).
    m_groups[m_sink].shape = out.toTensor().sizes().vec();
    for (auto& group : m_groups)
        for (const Node* n : group.nodes)
            group.compute += compute[n];
}

// Consecutive op-level groups from the same module call become one group when only the last of
// them is read from outside: a module-level vertex is the one tensor a module call leaves.
void TorchProgram::mergeModuleCalls(std::vector<int>& groupOfNode, int groupCount) const
{
    std::vector<std::string> path(groupCount);
    std::vector<std::set<int>> succ(groupCount);
    auto groupOfValue = [&](const Value* v) { return this->groupOfValue(v, groupOfNode); };
    for (std::size_t i = 0; i < m_nodes.size(); ++i) {
        const int g = groupOfNode[i];
        if (g < 0)
            continue;
        if (m_kind.at(m_nodes[i]) == NodeKind::Allocating)
            path[g] = modulePath(m_nodes[i]);
        for (const Value* d : m_nodes[i]->inputs())
            for (const Value* p : producers(d))
                if (groupOfValue(p) != g)
                    succ[groupOfValue(p)].insert(g);
    }
    // The inputs stay groups of their own.
    const int inputs = inputCount();
    std::vector<int> merged(groupCount);
    for (int i = 0; i < inputs; ++i)
        merged[i] = i;
    int current = inputs - 1;
    std::set<int> run{current};
    for (int g = inputs; g < groupCount; ++g) {
        const int first = *run.begin();
        bool join = g > inputs && !path[g].empty() && path[g] == path[first];
        // A vertex stands for one tensor: the run may only feed g, which also rules out a
        // cycle through the merge.
        for (int member : run)
            for (int s : succ[member])
                join = join && (s == g || run.count(s));
        if (!join) {
            run.clear();
            ++current;
        }
        run.insert(g);
        merged[g] = current;
    }
    for (int& g : groupOfNode)
        if (g >= 0)
            g = merged[g];
}

int TorchProgram::groupOfValue(const Value* value, const std::vector<int>& groupOfNode) const
{
    if (value->node() == m_graph->param_node())
        return static_cast<int>(value->offset()) - 1;  // input i is graph input i + 1 (after self)
    return groupOfNode[m_position.at(value->node())];
}

void TorchProgram::buildGroups(const std::vector<int>& groupOfNode, const Env& env,
                               const std::unordered_set<const Value*>& fromData)
{
    int count = inputCount();
    for (int g : groupOfNode)
        count = std::max(count, g + 1);
    std::vector<OpGroup> groups(static_cast<std::size_t>(count));
    for (std::size_t g = 0; g < groups.size(); ++g)
        groups[g].input = static_cast<int>(g) < inputCount() ? static_cast<int>(g) : -1;
    std::vector<std::set<int>> deps(groups.size());
    std::vector<std::vector<const Value*>> exports(groups.size());
    auto groupOfValue = [&](const Value* v) { return this->groupOfValue(v, groupOfNode); };
    auto exportValue = [&](int from, const Value* v) {
        if (std::find(exports[from].begin(), exports[from].end(), v) == exports[from].end())
            exports[from].push_back(v);
    };
    for (std::size_t i = 0; i < m_nodes.size(); ++i) {
        const int g = groupOfNode[i];
        if (g < 0)
            continue;
        groups[g].nodes.push_back(m_nodes[i]);
        for (const Value* d : m_nodes[i]->inputs())
            for (const Value* p : producers(d))
                if (groupOfValue(p) != g) {
                    deps[g].insert(groupOfValue(p));
                    exportValue(groupOfValue(p), p);
                }
    }
    const auto& outputProducers = producers(outputValue());
    if (outputProducers.size() != 1)
        fail("the model output is not computed from the input by one tensor operation");
    const int sink = groupOfValue(outputProducers.front());
    if (groups[sink].input >= 0)
        fail("forward returns its input " + m_argumentNames[static_cast<std::size_t>(groups[sink].input)] +
             " (or a view of it): there is no operation to import");
    exportValue(sink, outputProducers.front());

    // Keep the groups the output needs; dead code the tracer kept goes.
    std::vector<bool> needed(groups.size(), false);
    std::vector<int> stack{sink};
    needed[sink] = true;
    while (!stack.empty()) {
        const int g = stack.back();
        stack.pop_back();
        for (int d : deps[g])
            if (!needed[d]) {
                needed[d] = true;
                stack.push_back(d);
            }
    }
    if (std::none_of(needed.begin(), needed.begin() + inputCount(), [](bool n) { return n; }))
        fail("the model output does not depend on its inputs");
    std::vector<int> renumber(groups.size(), -1);
    std::map<std::string, int> seenIds;
    // A parameter's gradient is formed at the backward of the last group that reads it (P5): that
    // backward runs first; the other readers' backwards add their part into it (a GPT's embedding
    // tied to its output layer).
    std::vector<std::int64_t> parameterBytes(groups.size(), 0);
    {
        std::map<const c10::StorageImpl*, at::Tensor> unclaimed, claimed;
        for (const at::Tensor& p : m_module.parameters())
            unclaimed.emplace(storageOf(p), p);
        for (std::size_t g = groups.size(); g-- > 0;) {
            if (!needed[g])
                continue;
            std::set<const c10::StorageImpl*> read;
            std::vector<at::Tensor> statics;
            std::set<const Node*> visited;
            // Also through the views the group computes as it reads them: a learned position table
            // sliced to the sequence length reads that length from the data, so the slice is no static.
            std::function<void(const Node*)> readStatics = [&](const Node* n) {
                for (const Value* v : n->inputs()) {
                    if (auto it = m_statics.find(v); it != m_statics.end())
                        collectTensors(it->second, statics);
                    else if (auto kind = m_kind.find(v->node());
                             kind != m_kind.end() && kind->second == NodeKind::Transparent && visited.insert(v->node()).second)
                        readStatics(v->node());
                }
            };
            for (const Node* n : groups[g].nodes)
                readStatics(n);
            for (const auto& t : statics)
                if (auto p = unclaimed.find(storageOf(t)); p != unclaimed.end()) {
                    parameterBytes[g] += static_cast<std::int64_t>(t.storage().nbytes());
                    read.insert(p->first);
                    claimed.insert(unclaimed.extract(p));
                } else if (auto q = claimed.find(storageOf(t)); q != claimed.end() && read.insert(q->first).second) {
                    groups[g].sharedParameters.push_back(q->second);
                }
        }
        // P20: a weight read only through what autograd computes from it (weight norm's) gets its
        // gradient where that static's node runs: made just before its first reader, right after
        // that reader's backward. P87: where several such statics read it (a weight-normed block
        // applied three times makes its weight three times), the node of the last made runs first
        // and forms the gradient; the others add theirs into it, as other readers do (P23).
        std::map<const Node*, std::size_t> madeBy;
        std::map<const c10::StorageImpl*, std::vector<std::size_t>> readersUnder;
        for (std::size_t g = 0; g < groups.size() && !unclaimed.empty(); ++g) {
            if (!needed[g])
                continue;
            std::vector<at::Tensor> under;
            std::set<const Node*> visited;
            std::function<void(const Value*)> readUnder = [&](const Value* v) {
                const Node* n = v->node();
                if (!visited.insert(n).second)
                    return;
                auto kind = m_kind.find(n);
                const bool isStatic = kind != m_kind.end() && kind->second == NodeKind::Static;
                if (isStatic && n->kind().is_aten() && madeBy.emplace(n, g).first->second != g)
                    return;  // an op an earlier reader makes (not a weight's attribute read)
                if (auto it = m_statics.find(v); it != m_statics.end())
                    collectTensors(it->second, under);
                if (isStatic || (kind != m_kind.end() && kind->second == NodeKind::Transparent && !m_statics.count(v)))
                    for (const Value* input : n->inputs())
                        readUnder(input);
            };
            for (const Node* n : groups[g].nodes)
                for (const Value* v : n->inputs())
                    readUnder(v);
            for (const auto& t : under)
                if (auto p = unclaimed.find(storageOf(t)); p != unclaimed.end()) {
                    auto& readers = readersUnder[p->first];
                    if (readers.empty() || readers.back() != g)
                        readers.push_back(g);
                }
        }
        for (const auto& [storage, readers] : readersUnder) {
            auto p = unclaimed.find(storage);
            parameterBytes[readers.back()] += static_cast<std::int64_t>(p->second.storage().nbytes());
            for (std::size_t k = 0; k + 1 < readers.size(); ++k)
                groups[readers[k]].sharedParameters.push_back(p->second);
            claimed.insert(unclaimed.extract(p));
        }
    }
    for (std::size_t g = 0; g < groups.size(); ++g) {
        if (!needed[g])
            continue;
        renumber[g] = static_cast<int>(m_groups.size());
        OpGroup group = std::move(groups[g]);
        group.exports = exports[g];
        // Its bytes are those of its exports (a module call's internal mask does not count).
        group.batchScaled = group.input >= 0 || std::any_of(group.exports.begin(), group.exports.end(),
                                                             [&](const Value* v) { return fromData.count(v) > 0; });
        std::vector<std::string> kinds;
        for (const Node* n : group.nodes) {
            const std::string kind = n->kind().toQualString();
            if (std::find(kinds.begin(), kinds.end(), kind) == kinds.end())
                kinds.push_back(kind);
            if (group.module.empty() && m_kind.at(n) == NodeKind::Allocating)
                group.module = modulePath(n);
        }
        for (const auto& k : kinds)
            group.op += (group.op.empty() ? "" : "+") + k;
        std::string base;
        if (group.input >= 0) {
            base = inputId(group.input);
            group.op = "input";
        } else {
            const std::string opName = group.nodes.empty() ? "op" : group.nodes.front()->kind().toUnqualString();
            if (m_options.granularity == Granularity::Module)
                base = group.module.empty() ? opName : group.module;
            else
                base = group.module.empty() ? opName : group.module + "/" + opName;
        }
        const int n = ++seenIds[base];
        group.id = n == 1 ? base : base + "#" + std::to_string(n);
        std::vector<at::Tensor> tensors;
        for (const Value* v : group.exports)
            collectTensors(env.at(v), tensors);
        std::set<const c10::StorageImpl*> counted;
        for (const auto& t : tensors)
            if (storageOf(t) && counted.insert(storageOf(t)).second)
                group.bytes += static_cast<std::int64_t>(t.storage().nbytes());
        group.parameterBytes = parameterBytes[g];
        if (!tensors.empty()) {
            group.shape = tensors.front().sizes().vec();
            group.dtype = dtypeName(tensors.front().scalar_type());
        }
        m_groups.push_back(std::move(group));
    }
    for (std::size_t g = 0; g < groups.size(); ++g)
        if (renumber[g] >= 0)
            for (int d : deps[g])
                m_groups[renumber[g]].deps.push_back(renumber[d]);
    m_sink = renumber[sink];
}

c10::IValue TorchProgram::lazyValue(const Value* value, const Env& env, Env& local) const
{
    if (auto it = m_statics.find(value); it != m_statics.end())
        return it->second;
    if (auto it = local.find(value); it != local.end())
        return it->second;
    if (auto it = env.find(value); it != env.end())
        return it->second;
    Node* node = const_cast<Node*>(value->node());
    auto kind = m_kind.find(node);
    if (kind == m_kind.end() || kind->second != NodeKind::Transparent)
        throw std::logic_error("value %" + value->debugName() + " is not available (its group has not run)");
    auto outputs = execute(node, [&](const Value* v) { return lazyValue(v, env, local); });
    for (std::size_t i = 0; i < outputs.size(); ++i)
        local[node->outputs()[i]] = std::move(outputs[i]);
    return local.at(value);
}

void TorchProgram::runGroup(int g, Env& env) const
{
    Env local;
    const Lookup lookup = [&](const Value* v) { return lazyValue(v, env, local); };
    for (Node* n : m_groups[g].nodes) {
        auto outputs = execute(n, lookup);
        for (std::size_t i = 0; i < outputs.size(); ++i)
            local[n->outputs()[i]] = std::move(outputs[i]);
    }
    for (const Value* v : m_groups[g].exports)
        if (auto it = local.find(v); it != local.end())
            env[v] = it->second;
}

c10::IValue TorchProgram::output(Env& env) const
{
    Env local;
    return lazyValue(outputValue(), env, local);
}

namespace {

// P77: reads the meter's rise since its mark once the node it is put on has run, before the engine
// lets go of that node's inputs (the post hooks get them). None where the node hands on a view of
// its input (a permute's or a reshape's backward): the input's tensor outlives the node then.
class RiseAtNodeEnd final : public torch::autograd::FunctionPostHook {
public:
    RiseAtNodeEnd(const ScratchMeter& meter, std::optional<std::int64_t>& rise) : m_meter(meter), m_rise(rise) {}
    torch::autograd::variable_list operator()(const torch::autograd::variable_list& outputs,
                                              const torch::autograd::variable_list& inputs) override
    {
        const bool handsView = std::any_of(outputs.begin(), outputs.end(), [&](const at::Tensor& out) {
            return out.defined() && std::any_of(inputs.begin(), inputs.end(), [&](const at::Tensor& in) {
                       return in.defined() && out.is_alias_of(in);
                   });
        });
        if (!handsView)
            m_rise = m_meter.riseSinceMark();
        return outputs;
    }

private:
    const ScratchMeter& m_meter;
    std::optional<std::int64_t>& m_rise;
};

// Feeds c10's memory reports for one device to a ScratchMeter.
class ScratchReporter : public c10::MemoryReportingInfoBase {
public:
    explicit ScratchReporter(c10::DeviceType type) : m_type(type) {}
    void reportMemoryUsage(void* ptr, int64_t size, int64_t, int64_t, c10::Device device) override
    {
        if (device.type() != m_type)
            return;
        if (size > 0)
            meter.allocated(ptr, size);
        else
            meter.freed(ptr);
    }
    bool memoryProfilingEnabled() const override { return true; }
    ScratchMeter meter;

private:
    const c10::DeviceType m_type;
};

// P69: whether this LibTorch's engine adds a second gradient for a tensor into the first in place
// (torch 2.x, where its buffer holds the only reference) or makes the sum anew (1.13's InputBuffer:
// `old_var + var`). Hooks hand the engine both terms, at addresses known; the sum is one of them
// when it was added in place.
bool engineAddsGradientsInPlace()
{
    torch::AutoGradMode gradMode(true);
    const at::Tensor a = torch::ones({16}, torch::requires_grad()) * 2;
    std::set<const void*> terms;
    const void* sum = nullptr;
    auto term = [&terms](const at::Tensor& grad) {
        at::Tensor t = torch::ones_like(grad);
        terms.insert(t.data_ptr());
        return t;
    };
    const at::Tensor b = a + 1, c = a + 2;
    b.register_hook(term);
    c.register_hook(term);
    a.register_hook([&sum](const at::Tensor& grad) { sum = grad.data_ptr(); });
    (b.sum() + c.sum()).backward();
    return terms.count(sum) > 0;
}

// The exports of `group` that autograd tracks in `env`: the roots of its backward, each with a
// gradient of ones laid out as the root is, as a reader's backward hands it. P78: the output's as the
// executor's loss (its mean) hands it, contiguous whatever the output's layout: a channels-last
// convolution copies it to its own layout before it forms anything (mini_segformer's classifier).
void rootsOf(const OpGroup& group, const Env& env, bool isOutput, std::vector<at::Tensor>& roots,
             std::vector<at::Tensor>& ones)
{
    roots.clear();
    ones.clear();
    for (const Value* v : group.exports)
        if (auto it = env.find(v); it != env.end() && it->second.isTensor() && it->second.toTensor().requires_grad()) {
            roots.push_back(it->second.toTensor());
            ones.push_back(isOutput ? torch::ones(roots.back().sizes(), roots.back().options())
                                    : torch::ones_like(roots.back()));
        }
}

// AccumulateGrad's test (LibTorch's utils::obeys_layout_contract) for keeping a gradient as it is:
// strided as the leaf wherever a dimension is not 1.
bool obeysLayoutContract(const at::Tensor& grad, const at::Tensor& leaf)
{
    if (!leaf.is_non_overlapping_and_dense())
        return grad.is_contiguous();
    for (std::int64_t k = 0; k < grad.dim(); ++k)
        if (grad.size(k) != 1 ? grad.stride(k) != leaf.stride(k) : grad.stride(k) == 0)
            return false;
    return true;
}

// A tensor's gradient as autograd's measures here make it: laid out as the tensor, densely (a view
// with gaps, a slice of a larger storage, gets a dense one, as empty_like gives).
at::Tensor denseLike(const at::Tensor& t)
{
    return t.is_non_overlapping_and_dense() ? t : t.detach().contiguous(t.suggest_memory_format());
}

// What the backward of `group` (from `roots`, given `ones`) sends the tensors its deps export, in its
// run with autograd (`recorded`). A dep that exports anything but tensors is `unknown` (whether a list
// reaches a gradient is not looked at).
struct HandedGradients {
    std::vector<at::Tensor> reads, grads;
    std::vector<int> readBy;
    std::set<int> unknown;
};

HandedGradients handedGradients(const std::vector<OpGroup>& groups, const OpGroup& group, const Env& recorded,
                                const std::vector<at::Tensor>& roots, const std::vector<at::Tensor>& ones)
{
    HandedGradients h;
    for (int d : group.deps)
        for (const Value* v : groups[d].exports) {
            auto it = recorded.find(v);
            if (it == recorded.end())
                continue;
            if (!it->second.isTensor())
                h.unknown.insert(d);
            else if (it->second.toTensor().requires_grad()) {
                h.reads.push_back(it->second.toTensor());
                h.readBy.push_back(d);
            }
        }
    if (!roots.empty() && !h.reads.empty())
        h.grads = torch::autograd::grad(roots, h.reads, ones, /*retain_graph=*/true, /*create_graph=*/false,
                                        /*allow_unused=*/true);
    return h;
}

// How the gradients handed are laid out, per dep, where the measures' own (denseLike) would not match:
// a slice of a root's gradient that is not contiguous (P34: a concatenation's along the channels, a
// view of `storageElements`), or a dense tensor laid out otherwise than the dep's tensor (P68: a patch
// embedding's, back through a transpose; P80: a permute's view of a contiguous gradient, handed to
// a channels-last layer norm's output).
std::map<int, OpGroup::HandedLayout> handedLayouts(const HandedGradients& h, const std::vector<at::Tensor>& ones)
{
    std::map<int, OpGroup::HandedLayout> layouts;
    for (std::size_t i = 0; i < h.grads.size(); ++i) {
        const at::Tensor& grad = h.grads[i];
        if (!grad.defined())
            continue;
        const bool slice = std::any_of(ones.begin(), ones.end(), [&grad](const at::Tensor& own) {
            return grad.is_alias_of(own) && !(grad.data_ptr() == own.data_ptr() && grad.numel() == own.numel());
        });
        if (slice) {
            if (!grad.is_contiguous())
                layouts[h.readBy[i]] = {grad.sizes().vec(), grad.strides().vec(), grad.storage_offset(),
                                        static_cast<std::int64_t>(grad.storage().nbytes() / grad.element_size()), true};
        } else if (grad.is_non_overlapping_and_dense() && grad.strides() != denseLike(h.reads[i]).strides()) {
            bool held = false;
            for (std::size_t j = 0; j < h.grads.size(); ++j)
                held = held || (h.grads[j].defined() && h.readBy[j] < h.readBy[i] && h.grads[j].is_alias_of(grad));
            layouts[h.readBy[i]] = {grad.sizes().vec(), grad.strides().vec(), 0, grad.numel(), false, held};
        }
    }
    return layouts;
}

// A gradient laid out as `layout` says, of ones.
at::Tensor gradientLaidOut(const OpGroup::HandedLayout& layout, const at::TensorOptions& options)
{
    if (layout.slice)
        return torch::ones({layout.storageElements}, options).as_strided(layout.sizes, layout.strides, layout.offset);
    return at::empty_strided(layout.sizes, layout.strides, options).fill_(1);
}

// What the backward of `group` (from `roots`) sends its deps in its run with autograd (`recorded`):
// nothing to those read for their shape alone or not differentiable; to others the gradient of a
// root itself (P15: same address and size; a view of the whole counts as the tensor, and P79 names
// such views a leaf would keep), a slice of one (P27: its storage), one tensor it forms for several
// of them (P53: same address and size), or a tensor of their own; and how they are laid out. The
// model's inputs are left out (they need none), and so are deps that export anything but tensors.
void findHandedGradients(const std::vector<OpGroup>& groups, OpGroup& group, const Env& recorded,
                         const std::vector<at::Tensor>& roots, const std::vector<at::Tensor>& ones)
{
    const HandedGradients h = handedGradients(groups, group, recorded, roots, ones);
    const auto& [reads, grads, readBy, unknown] = h;
    group.handedLayouts = handedLayouts(h, ones);
    group.depsFormedOneGradient.clear();
    std::set<int> reached, passed, viewed, sliced;
    if (!grads.empty()) {
        for (std::size_t i = 0; i < grads.size(); ++i) {
            if (!grads[i].defined())
                continue;
            reached.insert(readBy[i]);
            for (const at::Tensor& own : ones) {
                if (grads[i].data_ptr() == own.data_ptr() && grads[i].numel() == own.numel()) {
                    passed.insert(readBy[i]);
                    if (grads[i].unsafeGetTensorImpl() != own.unsafeGetTensorImpl() &&
                        obeysLayoutContract(grads[i], reads[i]))
                        viewed.insert(readBy[i]);
                } else if (grads[i].is_alias_of(own)) {
                    sliced.insert(readBy[i]);
                }
            }
        }
        // A dep in two such groups (two exports, two tensors) is left out: the format names it once.
        std::map<std::pair<const void*, std::int64_t>, std::set<int>> formedFor;
        std::map<int, int> groupsOf;
        for (std::size_t i = 0; i < grads.size(); ++i) {
            const int d = readBy[i];
            if (grads[i].defined() && grads[i].numel() > 0 && !passed.count(d) && !sliced.count(d) &&
                !unknown.count(d) && groups[d].input < 0 &&
                formedFor[{grads[i].data_ptr(), grads[i].numel()}].insert(d).second)
                ++groupsOf[d];
        }
        for (auto& [tensor, deps] : formedFor) {
            std::erase_if(deps, [&](int d) { return groupsOf[d] > 1; });
            if (deps.size() > 1)
                group.depsFormedOneGradient.emplace_back(deps.begin(), deps.end());
        }
    }
    group.depsWithoutGradient.clear();
    group.depsPassedGradient.clear();
    group.depsPassedGradientView.clear();
    group.depsSlicedGradient.clear();
    for (int d : group.deps) {
        if (groups[d].input >= 0 || unknown.count(d))
            continue;
        if (!reached.count(d))
            group.depsWithoutGradient.push_back(d);
        else if (passed.count(d)) {
            group.depsPassedGradient.push_back(d);
            if (viewed.count(d))
                group.depsPassedGradientView.push_back(d);
        }
        else if (sliced.count(d))
            group.depsSlicedGradient.push_back(d);
    }
}

}  // namespace

Env TorchProgram::depValues(const OpGroup& group, const Env& values, DepGradient gradient) const
{
    Env env;
    for (int d : group.deps)
        for (const Value* v : m_groups[d].exports) {
            const c10::IValue& value = values.at(v);
            if (!value.isTensor()) {
                env[v] = value;
                continue;
            }
            at::Tensor copy = value.toTensor().detach().clone();
            // The model's inputs get no gradient, as in training (and in the profiler), nor what is made
            // from shapes and constants alone.
            if (gradient != DepGradient::None && copy.is_floating_point() && m_groups[d].carriesGradient) {
                copy = copy.requires_grad_(true);
                if (gradient == DepGradient::NonLeaf)
                    copy = copy.clone();
            }
            env[v] = copy;
        }
    return env;
}

// Groups in dependency order (an in-place op can put a late node into an early group).
std::vector<int> TorchProgram::dependencyOrder() const
{
    std::vector<int> order;
    std::vector<bool> placed(m_groups.size(), false);
    std::function<void(int)> place = [&](int g) {
        if (placed[g])
            return;
        placed[g] = true;
        for (int d : m_groups[g].deps)
            place(d);
        order.push_back(g);
    };
    for (std::size_t g = 0; g < m_groups.size(); ++g)
        place(static_cast<int>(g));
    return order;
}

void TorchProgram::findGradientCarriers()
{
    Env values;
    const auto inputs = randomInputs();
    for (int i = 0; i < inputCount(); ++i)
        values[inputValue(i)] = inputs[static_cast<std::size_t>(i)];
    for (int g : dependencyOrder()) {
        OpGroup& group = m_groups[g];
        Env env = depValues(group, values, DepGradient::NonLeaf);
        if (group.input >= 0)
            env[inputValue(group.input)] = values.at(inputValue(group.input));
        else
            refreshStaticsReadBy(g, false);
        runGroup(g, env);
        bool carries = false;
        for (const Value* v : group.exports)
            if (auto it = env.find(v); it != env.end()) {
                std::vector<at::Tensor> tensors;
                collectTensors(it->second, tensors);
                for (const at::Tensor& t : tensors)
                    carries = carries || (t.defined() && t.requires_grad());
                values[v] = it->second;
            }
        group.carriesGradient = group.input < 0 && carries;
    }
}

// A group's backward keeps a tensor when its autograd nodes hold a reference to it: the input
// itself (a saved input) or its storage (a saved output is stored as a shallow copy). So each
// group runs twice on fresh copies of its inputs, without and with autograd, and a tensor holds
// more references after the second run exactly when the backward saved it. Asking autograd
// rather than keeping a table per aten op follows whatever this LibTorch's derivative formulas
// save, for any op and for composite ops alike. The run with autograd and then its backward
// (from gradients of ones, the parameters' gradients unset as in a fresh step, but for those a later
// group forms first: P71) are measured for scratch memory on the way (rule P8).
void TorchProgram::findSavedTensors()
{
    auto references = [](const c10::IValue& value) {
        std::vector<at::Tensor> tensors;
        collectTensors(value, tensors);
        long count = 0;
        for (const auto& t : tensors)
            if (t.defined())
                count += t.use_count() + (storageOf(t) ? t.storage().use_count() : 0);
        return count;
    };
    // The inputs are non-leaf tensors (a leaf used with autograd is referenced by its gradient
    // accumulator whether saved or not); the parameters need gradients as in training.
    for (const at::Tensor& p : m_module.parameters())
        p.requires_grad_(true);
    refreshStatics();
    // P20: the statics autograd computes from the parameters (weight norm's weights) are made by each
    // run with autograd, as the step makes them before their reader, with what they save: its saved
    // extras, and its backward runs their nodes. Without autograd before it, outside the measures.
    auto staticsWithout = [&](int g) {
        torch::NoGradGuard noGrad;
        refreshStaticsReadBy(g, false);
    };
    auto runWithStatics = [&](int g, Env& env) {
        const std::int64_t made = refreshStaticsReadBy(g, false);
        runGroup(g, env);
        return made;  // the statics' values, which the step holds before the run as it does after
    };
    findGradientCarriers();
    const std::vector<int> order = dependencyOrder();
    Env values;
    {
        torch::NoGradGuard noGrad;
        const auto inputs = randomInputs();
        for (int i = 0; i < inputCount(); ++i)
            values[inputValue(i)] = inputs[static_cast<std::size_t>(i)];
        for (int g : order)
            runGroup(g, values);
    }
    // grad: the inputs as a step with autograd has them, outputs of other nodes; leaves: as
    // ckptx-torch's executor has them in a checkpointed step (P24).
    enum class Inputs { Plain, Grad, Leaves };
    auto copyInputs = [&](const OpGroup& group, Inputs kind) {
        return depValues(group, values, kind == Inputs::Plain  ? DepGradient::None
                                        : kind == Inputs::Grad ? DepGradient::NonLeaf
                                                               : DepGradient::Leaf);
    };
    auto reporter = std::make_shared<ScratchReporter>(device().type());
    c10::DebugInfoGuard reporting(c10::DebugInfoKind::PROFILER_STATE, reporter);
    ScratchMeter* scratch = &reporter->meter;
    auto unsetParameterGradients = [&] {
        for (const at::Tensor& p : m_module.parameters())
            p.mutable_grad() = at::Tensor();
    };
    // P71: a later group's backward formed the gradient of the parameters this one shares with it
    // (P23): the executor's step (P13) has it in `.grad`, where this backward's part is added in place.
    auto setSharedParameterGradients = [&](const OpGroup& group) {
        unsetParameterGradients();
        torch::NoGradGuard noGrad;
        for (const at::Tensor& p : group.sharedParameters)
            p.mutable_grad() = torch::zeros_like(p);
    };
    // P25, P68: the gradient each output gets is made inside the engine, dense, laid out as the
    // output is or as its only reader hands it (a hook replaces the loss's expanded scalar with it);
    // the model's output gets the step's loss, a mean, whose backward makes it. (The product of the
    // scalar with 1.0 took the layout TensorIterator gives a tensor of zero strides, which a
    // convolution's backward copied: one output tensor too many.) P34: where the reader hands a
    // slice that is not contiguous, the gradient is a view of the reader's, which the step holds
    // (P27): the backward starts from such a view, made before the measure, and whatever it copies
    // to read it is its workspace; the view's bytes are added so that the field reads as in the
    // other cases, the gradient inside it. P85: so too where the reader passes its own gradient to
    // another dep as well, whose backward runs later (a transpose and an add: the summands share it),
    // laid out otherwise: the step holds it after the first node has copied it to read it (a linear
    // layer over 3-D values, whose later nodes form the input's gradient beside that copy), where a
    // gradient of the group's own would go. The outputs go with their last reference here, so only
    // what saved them holds them. The inputs stay referenced: their nodes run last, and other
    // readers may hold them.
    // P73 (`released`): the same with the inputs held by nothing but what saved them, as the step
    // holds those whose last saver the group is: they go once the node that saved them has run, and
    // what the last node forms after comes out lower (an attention's `att @ v` frees the attention
    // weights before the split of the packed projection forms its gradient). Then the rise is read
    // whole, the inputs' gradients in it as they came, less the weights' gradients.
    auto engineBackwardWorkspace = [&](int g, const OpGroup::HandedLayout* handedAs, bool released) {
        staticsWithout(g);
        scratch->start();  // before the inputs are copied: their frees count
        Env env = copyInputs(m_groups[g], Inputs::Grad);
        // A dep handed a slice of the gradient gets a view in the step, nothing of its own; here it
        // would get a copy (AccumulateGrad copies a view that is not contiguous) that outlives the
        // measure and so hid as much of what the backward made (P76).
        for (int d : m_groups[g].depsSlicedGradient)
            for (const Value* v : m_groups[d].exports)
                if (auto it = env.find(v); it != env.end() && it->second.isTensor())
                    it->second = it->second.toTensor().detach();
        runWithStatics(g, env);
        std::vector<at::Tensor> outputs, unused;
        rootsOf(m_groups[g], env, g == m_sink, outputs, unused);
        // P77: the rise up to the end of the node that made the one output, the first of its backward.
        std::optional<std::int64_t> firstNode;
        if (!released && outputs.size() == 1 && outputs.front().grad_fn())
            outputs.front().grad_fn()->add_post_hook(std::make_unique<RiseAtNodeEnd>(*scratch, firstNode));
        at::Tensor loss;
        std::int64_t handed = 0;
        for (at::Tensor& output : outputs) {
            if (g == m_sink) {
                loss = loss.defined() ? loss + output.mean() : output.mean();
                continue;
            }
            if (handedAs && (handedAs->slice || handedAs->heldByLaterDep)) {
                const at::Tensor view = gradientLaidOut(*handedAs, output.options().requires_grad(false));
                output.register_hook([view](const at::Tensor&) { return view; });
                handed = output.numel() * static_cast<std::int64_t>(output.element_size());
            } else {
                const at::Tensor like = denseLike(output);
                output.register_hook([sizes = like.sizes().vec(),
                                      strides = handedAs ? handedAs->strides : like.strides().vec(),
                                      options = like.options().requires_grad(false)](const at::Tensor&) {
                    return at::empty_strided(sizes, strides, options).fill_(1);
                });
            }
            loss = loss.defined() ? loss + output.sum() : output.sum();
        }
        // P71: in a step, the gradient of a parameter shared with a later group (P23) waits in the
        // engine's buffer from that group's backward on, and this backward's part is added to it. A
        // term made after the group's run is back-propagated first, as that group's is.
        for (const at::Tensor& p : m_groups[g].sharedParameters)
            loss = loss.defined() ? loss + (p * 0.0).sum() : (p * 0.0).sum();
        outputs.clear();
        unused.clear();
        for (const Value* v : m_groups[g].exports)
            env.erase(v);
        if (released)
            for (int d : m_groups[g].deps)
                if (m_groups[d].input < 0)
                    for (const Value* v : m_groups[d].exports)
                        env.erase(v);
        unsetParameterGradients();
        const at::Tensor one = loss.defined() ? torch::ones_like(loss) : at::Tensor();
        scratch->mark();
        if (loss.defined())
            loss.backward(one);
        if (!released) {
            m_groups[g].engineFirstNodeBytes = firstNode ? std::optional(*firstNode + handed) : std::nullopt;
            return scratch->transientSinceMark() + handed;
        }
        std::int64_t weightGradients = 0;
        for (const at::Tensor& p : distinctParameters(m_module))
            if (p.grad().defined())
                weightGradients += static_cast<std::int64_t>(p.grad().nbytes());
        const std::int64_t rise = std::max<std::int64_t>(0, scratch->riseSinceMark() + handed);
        m_groups[g].engineBackwardReleasedRiseBytes = rise;  // P81
        return std::max<std::int64_t>(0, rise - weightGradients);
    };
    // Where the group's backward may free an input it saved (P73); not with a tied weight's term (P71).
    auto engineBackwardWorkspaceReleased = [&](int g, const OpGroup::HandedLayout* handedAs) -> std::optional<std::int64_t> {
        const OpGroup& group = m_groups[g];
        if (group.savedDeps.empty() || !group.sharedParameters.empty())
            return std::nullopt;
        return engineBackwardWorkspace(g, handedAs, true);
    };
    for (OpGroup& group : m_groups) {
        const int g = static_cast<int>(&group - m_groups.data());
        if (group.input >= 0)
            continue;
        staticsWithout(g);
        Env plain = copyInputs(group, Inputs::Plain);
        Env recorded = copyInputs(group, Inputs::Grad);
        scratch->start();
        {
            torch::NoGradGuard noGrad;
            runGroup(g, plain);
        }
        group.checkpointedForwardWorkspaceBytes = scratch->transient();
        const std::int64_t plainHeld = scratch->held();
        scratch->start();
        const std::int64_t staticsMade = runWithStatics(g, recorded);
        group.forwardWorkspaceBytes = scratch->transient();
        // What the run with autograd holds beyond the plain run's outputs is kept for the backward
        // alone (saved extras): max pooling's argmax indices, BatchNorm's statistics, a dropout
        // mask, the copy of its input an in-place hardtanh_ (ReLU6) saves (P11).
        group.savedBytes = std::max<std::int64_t>(0, scratch->held() - plainHeld - staticsMade);
        for (int d : group.deps)
            for (const Value* v : m_groups[d].exports)
                if (references(recorded.at(v)) > references(plain.at(v)) &&
                    std::find(group.savedDeps.begin(), group.savedDeps.end(), d) == group.savedDeps.end())
                    group.savedDeps.push_back(d);
        for (const Value* v : group.exports)
            if (auto it = recorded.find(v); it != recorded.end() && references(it->second) > references(plain.at(v)))
                group.savesOutput = true;
        std::vector<at::Tensor> roots, ones;
        rootsOf(group, recorded, g == m_sink, roots, ones);
        findHandedGradients(m_groups, group, recorded, roots, ones);
        // The backward's scratch memory counts the saved extras it releases as it goes (P13: an
        // in-place ReLU6's copy of its input is gone before the BatchNorm under it forms the input
        // gradient), not the gradients it leaves (the model counts those).
        auto backwardWorkspace = [&] {
            setSharedParameterGradients(group);
            scratch->mark();
            if (!roots.empty())
                torch::autograd::backward(roots, ones);
            return scratch->transientSinceMark();
        };
        group.backwardWorkspaceBytes = backwardWorkspace();
        // P24: once more on leaves, where an add's gradient handed to both its inputs is copied.
        try {
            staticsWithout(g);
            Env leaves = copyInputs(group, Inputs::Leaves);
            scratch->start();
            runWithStatics(g, leaves);
            rootsOf(group, leaves, g == m_sink, roots, ones);
            group.leafInputsBackwardWorkspaceBytes = backwardWorkspace();
            if (group.sharedParameters.empty())
                group.leafInputsBackwardRiseBytes = std::max<std::int64_t>(0, scratch->riseSinceMark());
        } catch (const c10::Error&) {
            group.leafInputsBackwardWorkspaceBytes.reset();
            group.leafInputsBackwardRiseBytes.reset();
        }
        group.engineBackwardWorkspaceBytes = engineBackwardWorkspace(g, nullptr, false);
        group.engineBackwardWorkspaceReleasedBytes = engineBackwardWorkspaceReleased(g, nullptr);
    }
    // P34, P68, P80 once every reader has said what it hands (they come after the group). In the
    // regular step the engine hands a group the gradient that the first of its readers to send one
    // makes (the topologically last: its backward runs first), laid out as that reader hands it when
    // its own gradient is laid out as the step lays it; several readers' gradients are summed anew
    // (P69), `first + next`, which TensorIterator lays out as the first, densely. So from the last
    // group back, each group whose gradient the step lays out otherwise than the measures' own is
    // measured again with it, and says again what it hands (a permute of a contiguous gradient hands
    // a channels-last layer norm's output one its backward copies to read).
    std::vector<std::vector<int>> gradientReaders(m_groups.size());
    for (std::size_t r = 0; r < m_groups.size(); ++r)
        for (int d : m_groups[r].deps)
            if (std::find(m_groups[r].depsWithoutGradient.begin(), m_groups[r].depsWithoutGradient.end(), d) ==
                m_groups[r].depsWithoutGradient.end())
                gradientReaders[d].push_back(static_cast<int>(r));
    for (int g = static_cast<int>(m_groups.size()) - 1; g >= 0; --g) {
        OpGroup& group = m_groups[g];
        if (group.input >= 0 || gradientReaders[g].empty() || group.exports.size() != 1 || g == m_sink)
            continue;
        const auto& layouts = m_groups[gradientReaders[g].back()].handedLayouts;
        const auto it = layouts.find(g);
        if (it == layouts.end())
            continue;
        staticsWithout(g);
        Env recorded = copyInputs(group, Inputs::Grad);
        runWithStatics(g, recorded);
        std::vector<at::Tensor> roots, ones;
        rootsOf(group, recorded, false, roots, ones);
        if (roots.size() != 1)
            continue;
        OpGroup::HandedLayout layout = it->second;
        ones.front() = gradientLaidOut(layout, roots.front().options().requires_grad(false));
        if (gradientReaders[g].size() > 1) {
            ones.front() = ones.front() + ones.front();
            layout = {ones.front().sizes().vec(), ones.front().strides().vec(), 0, ones.front().numel(), false};
        }
        group.handedLayouts = handedLayouts(handedGradients(m_groups, group, recorded, roots, ones), ones);
        const bool asMeasured = !layout.slice && layout.strides == denseLike(roots.front()).strides();
        recorded.clear();
        roots.clear();
        ones.clear();
        if (asMeasured)
            continue;
        group.engineBackwardWorkspaceBytes = engineBackwardWorkspace(g, &layout, false);
        group.engineBackwardWorkspaceReleasedBytes = engineBackwardWorkspaceReleased(g, &layout);
    }
    unsetParameterGradients();
    {
        torch::NoGradGuard noGrad;
        for (const at::Tensor& p : m_module.parameters())
            p.requires_grad_(false);
        refreshStatics();
    }
    m_savedKnown = true;
}

Graph TorchProgram::toGraph() const
{
    GraphBuilder builder;
    std::string name = m_options.modelPath.substr(m_options.modelPath.find_last_of('/') + 1);
    if (auto dot = name.rfind('.'); dot != std::string::npos && dot > 0)
        name = name.substr(0, dot);
    builder.setName(name);
    builder.setMetadata("source_format", "\"torchscript\"");
    // Who runs this graph's plans: ckptx-torch profile's executor (rule P13 of the pytorch model).
    builder.setMetadata("plan_executor", "\"ckptx-torch\"");
    builder.setMetadata("granularity", nlohmann::json(granularityName(m_options.granularity)).dump());
    try {
        writeInputMetadata(builder, m_options.inputs, m_options.batchDim);
    } catch (const std::invalid_argument& e) {
        fail(e.what());
    }
    builder.setMetadata("parameter_bytes", std::to_string(m_parameterBytes));
    builder.setMetadata("buffer_bytes", std::to_string(m_bufferBytes));
    builder.setMetadata("libtorch_version", nlohmann::json(TORCH_VERSION).dump());
    builder.setMetadata("engine_adds_gradients_in_place", engineAddsGradientsInPlace() ? "true" : "false");
    // Vertex::savedBy inverts OpGroup::savedDeps: the group itself when it saves its output,
    // then the consumers that save it.
    std::vector<std::vector<std::string>> savers(m_groups.size());
    if (m_savedKnown) {
        for (const auto& group : m_groups)
            if (group.savesOutput)
                savers[&group - m_groups.data()].push_back(group.id);
        for (const auto& consumer : m_groups)
            for (int d : consumer.savedDeps)
                savers[d].push_back(consumer.id);
    }
    for (const auto& group : m_groups) {
        Vertex v;
        v.id = group.id;
        v.name = group.id;
        v.op = group.op;
        v.bytes = group.bytes;
        v.shape = group.shape;
        v.dtype = group.dtype;
        v.compute = group.compute;
        v.module = group.module;
        AutogradFacts& facts = v.autograd.write();
        facts.parameterBytes = group.parameterBytes;
        facts.savedBytes = group.savedBytes;
        facts.forwardWorkspaceBytes = group.forwardWorkspaceBytes;
        facts.backwardWorkspaceBytes = group.backwardWorkspaceBytes;
        facts.leafInputsBackwardWorkspaceBytes = group.leafInputsBackwardWorkspaceBytes;
        facts.leafInputsBackwardRiseBytes = group.leafInputsBackwardRiseBytes;
        if (m_savedKnown) {
            facts.checkpointedForwardWorkspaceBytes = group.checkpointedForwardWorkspaceBytes;
            facts.engineBackwardWorkspaceBytes = group.engineBackwardWorkspaceBytes;
            facts.engineBackwardWorkspaceReleasedBytes = group.engineBackwardWorkspaceReleasedBytes;
            facts.engineBackwardReleasedRiseBytes = group.engineBackwardReleasedRiseBytes;
            facts.engineFirstNodeBytes = group.engineFirstNodeBytes;
        }
        v.batchScaled = group.batchScaled;
        if (m_savedKnown)
            facts.savedBy = std::move(savers[&group - m_groups.data()]);
        auto ids = [&](const std::vector<int>& deps) {
            std::vector<std::string> out;
            for (int d : deps)
                out.push_back(m_groups[d].id);
            return out;
        };
        facts.readsWithoutGradient = ids(group.depsWithoutGradient);
        facts.passesGradientTo = ids(group.depsPassedGradient);
        facts.passesGradientViewTo = ids(group.depsPassedGradientView);
        facts.slicesGradientTo = ids(group.depsSlicedGradient);
        for (const auto& formed : group.depsFormedOneGradient)
            facts.formsOneGradientFor.push_back(ids(formed));
        builder.addVertex(std::move(v));
    }
    for (const auto& group : m_groups)
        for (int d : group.deps)
            builder.addEdge(m_groups[d].id, group.id);
    try {
        return builder.build();
    } catch (const GraphError& e) {
        fail("the imported graph is invalid: " + std::string(e.what()));
    }
}

Graph importTorchScript(const ImportOptions& options)
{
    return reportingTorchErrors(options, [&] {
        TorchProgram program(options);
        program.findSavedTensors();
        return program.toGraph();
    });
}

}  // namespace ckpt::torchx
