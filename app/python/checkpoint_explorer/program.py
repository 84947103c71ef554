"""A model's forward as it really ran: the aten operations, recorded below autograd by a
TorchDispatchMode during one concrete call, with the module call each ran in and the tensors autograd
saved for its backward.

Why concrete execution at the dispatcher, not torch.fx: symbolic tracing fails on code people write
(`torch.arange(0, T)` with `B, T, C = x.size()`, data-dependent Python), and TorchScript is deprecated
upstream. The dispatcher sees every operation that allocates, in order, after composite operations are
decomposed into the ones autograd differentiates, so replaying the record (`Program.run_op`) under
autograd builds the same backward graph the model builds. The price: the record is specialised to the
input shapes and to the control flow taken (the planned module re-records per input signature)."""
import contextlib
import dataclasses
import functools
import itertools
import math
import weakref
from collections.abc import Mapping

import torch

from . import _compat
from .model_inputs import ModelInputs


class ExportError(Exception):
    """A model that cannot be recorded or exported; the message names the module and the reason."""


def failure_line(error):
    """The first line of a model's own failure, for an ExportError's reason (its type when it says nothing)."""
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


@dataclasses.dataclass(frozen=True)
class InputRef:
    index: int


@dataclasses.dataclass(frozen=True, eq=False)
class ConstantRef:
    """A parameter, a buffer, or a tensor the forward read from elsewhere (a plain attribute)."""
    value: object


@dataclasses.dataclass(frozen=True)
class OutputRef:
    op: int
    position: int  # in the op's flattened outputs


@dataclasses.dataclass
class TensorInfo:
    shape: tuple
    dtype: torch.dtype
    storage: object  # the recorder's storage id (the address for parameters, buffers), None if empty
    storage_bytes: int
    floating: bool
    requires_grad: bool = False  # autograd tracks it (read after the op, see capture_backward_node)

    @property
    def nbytes(self):
        """Its own elements' bytes (a view's, not its storage's): what a gradient of its shape takes."""
        return math.prod(self.shape) * torch.empty((), dtype=self.dtype).element_size()


@dataclasses.dataclass
class RecordedOp:
    index: int
    func: object  # torch._ops.OpOverload
    leaves: list  # flattened (args, kwargs): refs for tensors, plain values otherwise
    spec: object  # their tree structure
    outputs: list  # TensorInfo or None per flattened output
    out_spec: object
    calls: tuple  # ((module path, call number), ...) outermost first, the model itself excluded
    static: bool  # reads no value computed from the inputs: parameters, constants, shapes only
    kind: str = ""  # "allocating", "inplace", "view" (dynamic ops); "static"; "updated" (_updated_statics)
    fresh: bool = False  # one of its outputs occupies storage no earlier live tensor had
    written: int = -1  # leaf index of the tensor an in-place op writes
    saved: list = dataclasses.field(default_factory=list)  # storage keys autograd saved for its backward
    grad_enabled: bool = True  # the model ran it with autograd on (not in its own torch.no_grad())
    values: tuple = ()  # the Python numbers the op returned (`.item()`, `bool(t)`): the path may test them
    updates_buffer: object = None  # the storage key of the buffer it writes as part of an update from the inputs

    @property
    def name(self):
        return self.func._schema.name

    def tensor_refs(self):
        return [leaf for leaf in self.leaves if isinstance(leaf, (InputRef, ConstantRef, OutputRef))]

    @property
    def draws_random(self):
        """It draws from torch's generator when replayed (P29): an op torch tags so, or a cuDNN RNN's
        dropout, which a replay seeds from it (`_with_seeded_dropout_state`)."""
        return _compat.draws_random(self.func) or draws_from_dropout_state(
            self.func, *_compat.tree_unflatten(self.leaves, self.spec))


@dataclasses.dataclass
class ValueRead:
    """Numbers the forward read off a tensor without an operation torch dispatches: its values
    (`tolist()` or `numpy()` of a CPU tensor), or the shape of one whose shape depends on values
    (`x[mask].size(0)`). A path may branch on them, or pass them on as sizes (`torch.split(x,
    lengths.tolist())`, `torch.zeros(n)`), as it may an op's `values`."""
    ref: object  # the tensor's InputRef or OutputRef
    name: str  # the method that read them
    calls: tuple  # as RecordedOp.calls
    values: tuple
    shape: bool = False  # a shape read: Program.dynamic_shapes names the ops its value depends on

    def tensor_refs(self):
        return [self.ref]


def read_values(tensor):
    """A tensor's numbers, flat, as a ValueRead keeps them."""
    return tuple(tensor.detach().reshape(-1).tolist())


def _flat_numbers(value):
    """The numbers `tolist()` or `numpy()` returned, flat, as read_values has a tensor's: read off what
    the model got, since ops run on the tensor here would be recorded as the model's."""
    if hasattr(value, "tolist"):  # a NumPy array or scalar: nested lists of Python numbers, or one
        value = value.tolist()
    return tuple(_compat.tree_flatten(value)[0])


def makes_dynamic_shape(func, args):
    """The op's output shapes depend on its inputs' values: a boolean index (an integer one's do not,
    though torch tags `index` as a whole), nonzero, unique, masked_select..."""
    if func is torch.ops.aten.index.Tensor:
        return any(isinstance(i, torch.Tensor) and i.dtype in (torch.bool, torch.uint8) for i in args[1])
    return _compat.dynamic_output_shape(func)


# Arguments that a composite op sets from whether autograd records it: SDPA's memory-efficient and cuDNN
# kernels return the log-sum-exp their backward reads only when the inputs require grad. A program recorded
# without grad (apply_plan records so, to hold no more than a forward) would replay them without it, and
# their backward fails ("LSE is not correctly aligned", torch 2.x on CUDA): they follow the replay's mode.
_GRAD_MODE_ARGUMENTS = ("compute_log_sumexp",)


@functools.lru_cache(maxsize=None)
def _grad_mode_arguments(func):
    return tuple((position, argument.name) for position, argument in enumerate(func._schema.arguments)
                 if argument.name in _GRAD_MODE_ARGUMENTS)


def _as_grad_mode_asks(func, args, kwargs):
    arguments = _grad_mode_arguments(func)
    if not arguments:
        return args, kwargs
    wanted = torch.is_grad_enabled() and any(isinstance(a, torch.Tensor) and a.requires_grad for a in args)
    for position, name in arguments:
        if position < len(args):
            args = (*args[:position], wanted, *args[position + 1:])
        else:
            kwargs = {**kwargs, name: wanted}
    return args, kwargs


# cuDNN's RNNs (`_cudnn_rnn`) draw their dropout masks from a state of cuDNN's own: a buffer PyTorch seeds
# (`get_dropout_state`: once, and again after a manual_seed) and cuDNN advances at every call, outside torch's
# generators. torch.utils.checkpoint keeps the generators for a re-forward, not that buffer, so a re-forwarded
# LSTM with dropout drew other masks than its forward and the step's gradients were wrong (an H200,
# docs/BENCHMARKS.md "Second GPU run": `embed.weight`, relative norm 0.137, while plans that re-forward no
# LSTM matched). A replay hands each such call a state of its own, seeded from torch's CPU generator (as
# PyTorch 1.13 seeds its cached one; no device sync), which a checkpointed re-forward draws again.
_DROPOUT_STATE_ARGUMENTS = ("dropout", "train", "dropout_state")


@functools.lru_cache(maxsize=None)
def _dropout_state_positions(func):
    names = [argument.name for argument in func._schema.arguments]
    if not all(name in names for name in _DROPOUT_STATE_ARGUMENTS):
        return None
    return tuple(names.index(name) for name in _DROPOUT_STATE_ARGUMENTS)


def _argument(args, kwargs, position, name):
    return args[position] if position < len(args) else kwargs.get(name)


def draws_from_dropout_state(func, args, kwargs):
    """The call draws dropout masks from a state cuDNN advances (a training RNN with dropout)."""
    positions = _dropout_state_positions(func)
    if positions is None:
        return False
    dropout, train, state = (_argument(args, kwargs, p, n) for p, n in zip(positions, _DROPOUT_STATE_ARGUMENTS))
    return bool(train) and dropout is not None and dropout > 0 and state is not None


def _fresh_dropout_state(dropout, seed, like):
    return torch._cudnn_init_dropout_state(dropout, True, seed, dtype=like.dtype, device=like.device)


def _with_seeded_dropout_state(func, args, kwargs):
    if not draws_from_dropout_state(func, args, kwargs):
        return args, kwargs
    dropout_at, _, state_at = _dropout_state_positions(func)
    dropout = _argument(args, kwargs, dropout_at, "dropout")
    seed = int(torch.empty((), dtype=torch.int64).random_())
    state = _fresh_dropout_state(dropout, seed, _argument(args, kwargs, state_at, "dropout_state"))
    if state_at < len(args):
        return (*args[:state_at], state, *args[state_at + 1:]), kwargs
    return args, {**kwargs, "dropout_state": state}


def describe_call(calls):
    return calls[-1][0] if calls else "the top module"


class Program:
    def __init__(self, model):
        self.model = model
        self.ops = []
        self.inputs = []  # TensorInfo per model input
        self.keywords = ()  # the names the last len(keywords) inputs were passed by (ModelInputs)
        self.output_refs = []  # refs of the model output's tensors
        self.output_spec = None
        self.parameters = {}  # storage key -> (name, bytes)
        self.trained = set()  # storage keys of the parameters that require grad (not frozen)
        self.buffers = {}
        self.module_paths = {}
        self.reads = []  # ValueRead, in the order the forward made them
        # OutputRef -> the indices of the ops of value-dependent output shape (makes_dynamic_shape) its
        # shape may depend on: its own op, or those of the tensors its op read.
        self.dynamic_shapes = {}

    def run_op(self, op, value_of, rewrite=None, func=None):
        """Runs a recorded op (or `func` in its place, with its arguments); `value_of(ref)` gives each
        tensor argument. `rewrite(op, leaves)` may replace arguments (the planned module hands a
        re-forward copies of the running statistics)."""
        leaves = [value_of(leaf) if isinstance(leaf, (InputRef, ConstantRef, OutputRef)) else leaf for leaf in op.leaves]
        if rewrite is not None:
            leaves = rewrite(op, leaves)
        args, kwargs = _compat.tree_unflatten(leaves, op.spec)
        args, kwargs = _as_grad_mode_asks(op.func, args, kwargs)
        args, kwargs = _with_seeded_dropout_state(op.func, args, kwargs)
        # What the model computes in its own torch.no_grad() (a frozen backbone's features) stays there:
        # no gradient for its weights, nothing saved for a backward.
        with contextlib.nullcontext() if op.grad_enabled else torch.no_grad():
            out = (func or op.func)(*args, **kwargs)
        flat, _ = _compat.tree_flatten(out)
        return flat

    def output_from(self, value_of):
        leaves = [value_of(ref) if ref is not None else None for ref in self.output_refs]
        return _compat.tree_unflatten(leaves, self.output_spec)


class _Recorder(_compat.TorchDispatchMode):
    def __init__(self, program, stack, constants, keep):
        super().__init__()
        self.program = program
        self.stack = stack
        self.constants = constants  # id -> ConstantRef for parameters and buffers
        self.refs = {}  # id(tensor) -> ref
        self.static_refs = set()
        # Recorded tensors either stay alive (`keep`: the export, which reads what autograd saved) or
        # are forgotten when they die, so that a recording holds no more memory than a forward.
        self.keep = [] if keep else None
        self.live = {}  # storage address -> [storage id, number of recorded tensors on it]
        self.serials = itertools.count()
        self.last_outputs = (-1, [])
        self.nodes = {}  # id(backward node) -> (node, op index)
        self.views_written = []  # indices of in-place ops whose output is a view (_probe_saved)
        self.model_no_grad = 0  # the torch.no_grad() blocks of the model's own the recording is in

    def storage_id(self, tensor):
        """A storage's identity for the whole recording: parameters and buffers by address, other
        storages by a serial number, so that an address freed and reused is a new storage."""
        key = _compat.storage_key(tensor)
        # Its ref goes when it dies, views of a weight too: Python reuses the id of a dead tensor, and a
        # stale ref made Swin-V2's mask fill read a 2-D buffer view as its 0-dim value, now and then.
        if self.keep is None:
            weakref.finalize(tensor, self._release, key, id(tensor))
        if key is None or key in self.program.parameters or key in self.program.buffers:
            return key, False
        entry = self.live.get(key)
        fresh = entry is None
        if fresh:
            entry = self.live[key] = [next(self.serials), 0]
        entry[1] += 1
        return entry[0], fresh

    def _release(self, key, tensor_id):
        entry = self.live.get(key)
        if entry is not None:
            entry[1] -= 1
            if entry[1] == 0:
                del self.live[key]
        self.refs.pop(tensor_id, None)

    def ref_of(self, tensor):
        ref = self.refs.get(id(tensor))
        if ref is None:
            ref = self.constants.get(id(tensor))
        if ref is None:
            ref = ConstantRef(tensor)
            self.constants[id(tensor)] = ref
        return ref

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        self.capture_backward_node()
        # The model's grad mode: an export records with autograd, which its torch.no_grad() turns off
        # (dispatch below autograd keeps the mode); apply_plan's record, made without, counts the blocks.
        grad_enabled = self.model_no_grad == 0 and (self.keep is None or torch.is_grad_enabled())
        out = func(*args, **kwargs)
        leaves, spec = _compat.tree_flatten((args, kwargs))
        refs = [self.ref_of(leaf) if isinstance(leaf, torch.Tensor) else leaf for leaf in leaves]
        static = all(isinstance(r, ConstantRef) or r in self.static_refs
                     for r in refs if isinstance(r, (InputRef, ConstantRef, OutputRef)))
        flat, out_spec = _compat.tree_flatten(out)
        index = len(self.program.ops)
        infos = []
        fresh = False
        for position, value in enumerate(flat):
            if not isinstance(value, torch.Tensor):
                infos.append(None)
                continue
            storage, new = self.storage_id(value)
            fresh = fresh or new
            infos.append(_tensor_info(value, storage))
            ref = OutputRef(index, position)
            self.refs[id(value)] = ref
            if static:
                self.static_refs.add(ref)
            if self.keep is not None:
                self.keep.append(value)
        sources = frozenset().union(*(self.program.dynamic_shapes.get(r, ()) for r in refs if isinstance(r, OutputRef)))
        if makes_dynamic_shape(func, args):
            sources |= {index}
        if sources:
            for position, value in enumerate(flat):
                if isinstance(value, torch.Tensor):
                    self.program.dynamic_shapes[OutputRef(index, position)] = sources
        op = RecordedOp(index, func, refs, spec, infos, out_spec, tuple(self.stack), static)
        op.fresh = fresh
        op.grad_enabled = grad_enabled
        # The numbers an op returns instead of a tensor (`.item()`, `torch.equal`): the path may test them.
        # Not those beside its tensors: torch 2.x's flash attention returns its sequence lengths.
        op.values = () if any(isinstance(value, torch.Tensor) for value in flat) else \
            tuple(value for value in flat if isinstance(value, (bool, int, float)))
        self.program.ops.append(op)
        self.last_outputs = (index, [(position, value) for position, value in enumerate(flat)
                                     if isinstance(value, torch.Tensor)])
        return out

    def capture_backward_node(self):
        """Autograd gives an op's outputs their backward node after the op dispatched (and an in-place
        op replaces it after its own dispatch): so the previous op's node is read here, at the next
        op, before anything can replace it. So is whether autograd tracks each output."""
        index, tensors = self.last_outputs
        for position, tensor in tensors:
            if tensor.requires_grad:
                self.program.ops[index].outputs[position].requires_grad = True
            node = tensor.grad_fn
            if node is not None and tensor._is_view() and _written_leaf(self.program.ops[index]) >= 0:
                self.views_written.append(index)
            elif node is not None and id(node) not in self.nodes:
                self.nodes[id(node)] = (node, index)
        self.last_outputs = (-1, [])


def _tensor_info(tensor, storage):
    return TensorInfo(tuple(tensor.shape), tensor.dtype, storage, _compat.storage_bytes(tensor),
                      tensor.is_floating_point())


def flatten_output(output):
    """tree_flatten of what a model returns, looking also into the containers models return beside
    tuples, lists and dicts: dict subclasses (an OrderedDict of named outputs) and dataclasses, which
    are registered with torch's pytree (as Hugging Face registers its ModelOutput) on first sight."""
    _register_containers(output)
    return _compat.tree_flatten(output)


def _register_containers(value):
    if isinstance(value, (tuple, list)):
        children, functions = value, None  # tuple and list subclasses (namedtuples) as pytree sees them
    elif isinstance(value, Mapping):
        children, functions = value.values(), (_mapping_flatten, _mapping_unflatten)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        children, functions = _dataclass_flatten(value)[0], (_dataclass_flatten, _dataclass_unflatten)
    else:
        return
    kind = type(value)
    if functions is not None and kind not in _compat.SUPPORTED_PYTREE_NODES:
        _compat.register_pytree_node(kind, functions[0], functools.partial(functions[1], kind))
    for child in children:
        _register_containers(child)


def _mapping_flatten(value):
    return list(value.values()), list(value.keys())


def _mapping_unflatten(kind, values, keys):
    return kind(zip(keys, values))


def _dataclass_flatten(value):
    names = [f.name for f in dataclasses.fields(value)]
    return [getattr(value, name) for name in names], names


def _dataclass_unflatten(kind, values, names):
    rebuilt = object.__new__(kind)  # the fields as they were, past __init__, __post_init__ and frozen
    for name, value in zip(names, values):
        object.__setattr__(rebuilt, name, value)
    return rebuilt


class _ValueReads(_compat.TorchFunctionMode):
    """Records the numbers the forward reads off tensors of the call without an op (ValueRead): no
    dispatch mode sees them."""
    VALUES = {torch.Tensor.tolist: "tolist", torch.Tensor.numpy: "numpy", torch.Tensor.__array__: "__array__"}
    SHAPES = {torch.Tensor.size: "size", torch.Tensor.shape.__get__: "shape", torch.Tensor.__len__: "__len__",
              torch.Tensor.numel: "numel"}

    def __init__(self, recorder):
        super().__init__()
        self.recorder = recorder

    def __torch_function__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        if not args or not isinstance(args[0], torch.Tensor):
            return out
        program = self.recorder.program
        ref = self.recorder.refs.get(id(args[0]))
        name = self.VALUES.get(func)
        # A weight's or a constant's numbers are the same every call, and so are most shapes (the
        # inputs' are part of the call's signature).
        if name and isinstance(ref, (InputRef, OutputRef)):
            program.reads.append(ValueRead(ref, name, tuple(self.recorder.stack), _flat_numbers(out)))
        elif func in self.SHAPES and ref in program.dynamic_shapes:
            program.reads.append(ValueRead(ref, self.SHAPES[func], tuple(self.recorder.stack),
                                           tuple(args[0].shape), shape=True))
        return out


@contextlib.contextmanager
def model_no_grad(counter):
    """Counts, in `counter.model_no_grad`, the torch.no_grad() blocks a model being recorded is in: a
    record made without autograd cannot tell them from its own grad mode. torch.no_grad enters and
    exits through its class's methods, as a decorator too (1.13 and 2.x)."""
    no_grad = torch.no_grad
    enter, leave = no_grad.__enter__, no_grad.__exit__

    def counted_enter(self):
        counter.model_no_grad += 1
        return enter(self)

    def counted_leave(self, *args):
        counter.model_no_grad -= 1
        return leave(self, *args)

    no_grad.__enter__, no_grad.__exit__ = counted_enter, counted_leave
    try:
        yield
    finally:
        no_grad.__enter__, no_grad.__exit__ = enter, leave


_ABSENT = object()


@contextlib.contextmanager
def model_checkpoints_plain():
    """Runs the torch.utils.checkpoint calls a model makes itself (Hugging Face's
    gradient_checkpointing_enable, a hand-written checkpoint per block) as plain calls of their
    function while it is recorded: the record is the model's computation, whose checkpointing a plan
    replaces. Recorded as it ran, a reentrant checkpoint's function ran in torch.no_grad(), so its
    layers read as untracked and apply_plan replayed them without autograd: they got no gradients."""
    internals = _compat.checkpoint_internals()
    originals = [(owner, name, vars(owner).get(name, _ABSENT)) for owner, name, _ in internals]
    try:
        for owner, name, stand_in in internals:
            setattr(owner, name, stand_in)
        yield
    finally:
        for owner, name, original in originals:
            if original is _ABSENT:
                delattr(owner, name)
            else:
                setattr(owner, name, original)


def module_paths(model):
    return {id(module): name for name, module in model.named_modules()}


def record(model, inputs, saved=True):
    """Runs the model called with `inputs` (a ModelInputs, or positional tensors) once and records it.
    With `saved`, it runs with autograd and finds what autograd saves for each op's backward (the
    export needs it; every recorded tensor is kept until then); without, it runs without autograd and
    holds no tensor longer than the forward does (the planned module records so: with autograd some
    ATen code takes other paths, a GRU cell clones its gates, and the planned step was measured and
    modelled on these). Either way each op records whether the model ran it in a torch.no_grad() of
    its own (`RecordedOp.grad_enabled`), and the model's own torch.utils.checkpoint calls run plainly
    (`model_checkpoints_plain`). Buffers (BatchNorm running statistics) and the random-number
    state are restored afterwards: recording is not a step."""
    inputs = ModelInputs.of(inputs).distinct()
    program = Program(model)
    paths = module_paths(model)
    program.module_paths = paths
    constants = {}
    for name, p in model.named_parameters():
        constants[id(p)] = ConstantRef(p)
        key = _compat.storage_key(p)
        if key is not None and key not in program.parameters:
            program.parameters[key] = (name, _compat.storage_bytes(p))
        if key is not None and p.requires_grad:
            program.trained.add(key)
    for name, b in model.named_buffers():
        constants[id(b)] = ConstantRef(b)
        key = _compat.storage_key(b)
        if key is not None:
            program.buffers[key] = (name, _compat.storage_bytes(b))
    stack = []
    counter = itertools.count()
    handles = []

    def pre_hook(module, _inputs):
        stack.append((paths.get(id(module), "?"), next(counter)))

    def post_hook(module, _inputs, _output):
        stack.pop()

    for module in model.modules():
        if module is model:
            continue
        handles.append(module.register_forward_pre_hook(pre_hook))
        handles.append(module.register_forward_hook(post_hook))
    recorder = _Recorder(program, stack, constants, keep=saved)
    program.keywords = inputs.keywords
    for i, tensor in enumerate(inputs):
        recorder.refs[id(tensor)] = InputRef(i)
        program.inputs.append(_tensor_info(tensor, recorder.storage_id(tensor)[0]))

    saved_state = _save_state(model)
    try:
        with recorder, _ValueReads(recorder), torch.set_grad_enabled(saved), model_no_grad(recorder), \
                model_checkpoints_plain():
            try:
                output = inputs.call(model)
            except ExportError:
                raise
            except Exception as error:  # the model's own failure, named by the module it ran in
                where = describe_call(tuple(stack))
                raise ExportError(f"{type(model).__name__} ({where}): {failure_line(error)}") from None
    finally:
        for handle in handles:
            handle.remove()
        stack.clear()
        _restore_state(model, saved_state)
    flat, program.output_spec = flatten_output(output)
    for value in flat:
        if isinstance(value, torch.Tensor):
            ref = recorder.refs.get(id(value))
            if ref is None:
                raise ExportError(f"{type(model).__name__}: the output is not computed from the inputs")
            program.output_refs.append(ref)
        else:
            program.output_refs.append(None)
    if not any(isinstance(ref, OutputRef) for ref in program.output_refs):
        raise ExportError(f"{type(model).__name__}: the output is not computed by any operation on the inputs "
                          "(the forward returns an input or a constant)")
    if saved:
        recorder.capture_backward_node()
        _collect_saved(program, recorder.nodes, recorder.live)
        for index in recorder.views_written:
            _probe_saved(program, program.ops[index])
    writes = [_written_leaf(op) for op in program.ops]
    _mark_tracked(program, writes, None if saved else inputs)
    _classify(program, writes)
    program.keep = recorder.keep
    program.output = output
    return program


def _saved_tensors(node):
    """The tensors a backward node keeps (its `_saved_*` attributes: inputs, `result`, indices...)."""
    found = []
    for name in dir(node):
        if not name.startswith("_saved_"):
            continue
        try:
            value = getattr(node, name)
        except RuntimeError:  # a saved tensor already released
            continue
        values = value if isinstance(value, (list, tuple)) else (value,)
        found.extend(v for v in values if isinstance(v, torch.Tensor))
    return found


def _collect_saved(program, nodes, live):
    for node, index in nodes.values():
        for tensor in _saved_tensors(node):
            key = _compat.storage_key(tensor)
            if key in live:
                key = live[key][0]
            if key is not None and key not in program.ops[index].saved:
                program.ops[index].saved.append(key)


def _probe_saved(program, op):
    """What an in-place op on a view saved for its backward (InstanceNorm's output, a view of the
    normalised batch, then ReLU(inplace=True)): autograd wraps its node in the base's CopySlices and
    gives the view a node of its own that saves only sizes, so the recording cannot read it. The op
    runs again on fresh tensors of the same shapes, none of them a view, and what its node saves there
    names the originals: its result (the op's output) or one of its arguments. An op that cannot run
    on such tensors is left as recorded."""
    storage_of = {}

    def stand_in(leaf):
        if not isinstance(leaf, (InputRef, ConstantRef, OutputRef)):
            return leaf
        like = leaf.value if isinstance(leaf, ConstantRef) else None
        info = program.inputs[leaf.index] if isinstance(leaf, InputRef) else \
            program.ops[leaf.op].outputs[leaf.position] if isinstance(leaf, OutputRef) else None
        tensor = torch.ones(like.shape if like is not None else info.shape,
                            dtype=like.dtype if like is not None else info.dtype)
        if tensor.is_floating_point():
            tensor = tensor.requires_grad_().clone()  # tracked, and no leaf: in-place ops may write it
        storage_of[tensor.data_ptr()] = _compat.storage_key(like) if like is not None else info.storage
        return tensor

    values = [stand_in(leaf) for leaf in op.leaves]
    args, kwargs = _compat.tree_unflatten(values, op.spec)
    try:
        with torch.enable_grad():
            op.func(*args, **kwargs)
    except Exception:  # noqa: BLE001 (an op that needs valid values, indices say)
        return
    node = values[_written_leaf(op)].grad_fn
    for tensor in _saved_tensors(node) if node is not None else ():
        key = storage_of.get(tensor.data_ptr())
        if key is not None and key not in op.saved:
            op.saved.append(key)


def _save_state(model):
    buffers = [(b, b.detach().clone()) for b in model.buffers()]
    grads = [(p, p.grad) for p in model.parameters()]
    rng = torch.get_rng_state()
    cuda_rng = torch.cuda.get_rng_state_all() if torch.cuda.is_available() and torch.cuda.is_initialized() else None
    return buffers, grads, rng, cuda_rng


def _restore_state(model, state):
    buffers, grads, rng, cuda_rng = state
    with torch.no_grad():
        for buffer, copy in buffers:
            # Only those the run changed (BatchNorm's statistics): writing one would bump the version of
            # a buffer a backward saved (DLRM's index pairs), which the recording then could not read.
            if not torch.equal(buffer, copy):
                buffer.copy_(copy)
    for p, g in grads:
        p.grad = g
    torch.set_rng_state(rng)
    if cuda_rng is not None:
        torch.cuda.set_rng_state_all(cuda_rng)


# Ops whose output autograd does not track whatever they read.
_UNTRACKED_OPS = frozenset({"aten::detach"})


def _mark_tracked(program, writes, inputs=None):
    """Which outputs autograd tracks (`TensorInfo.requires_grad`). A record with autograd read it off the
    tensors; one made without it (`inputs` given) infers it: an op's floating or complex outputs where the model ran it
    with grad on and it reads a tracked value, that is an input that requires grad, a parameter trained
    (not frozen), or a tracked output. Views and in-place ops follow from their operands as autograd's
    do. Either way, a tensor made untracked that an in-place op then writes a tracked value into is tracked
    from then on, as autograd makes it (its CopySlices; P55): pad_packed_sequence fills `full(...)` with an
    LSTM's packed output by `copy_`. Counted untracked, its vertex got no gradient and the walk for dead
    ends (P46) left everything before it untracked too."""
    def tracked(ref):
        if isinstance(ref, ConstantRef):
            return isinstance(ref.value, torch.Tensor) and ref.value.requires_grad
        if isinstance(ref, InputRef):
            return inputs[ref.index].requires_grad
        info = program.ops[ref.op].outputs[ref.position]
        return info is not None and info.requires_grad

    on_storage = {}  # storage -> the floating tensors recorded on it so far
    for op in program.ops:
        if (inputs is not None and op.grad_enabled and op.name not in _UNTRACKED_OPS
                and any(tracked(r) for r in op.tensor_refs())):
            for info in op.outputs:
                if info is not None and _differentiable(info):
                    info.requires_grad = True
        written = writes[op.index]
        if written >= 0 and any(info is not None and info.requires_grad for info in op.outputs):
            for info in on_storage.get(storage_of_ref(program, op.leaves[written]), ()):
                info.requires_grad = True
        for info in op.outputs:
            if info is not None and _differentiable(info) and info.storage is not None:
                on_storage.setdefault(info.storage, []).append(info)


def _differentiable(info):
    """Autograd tracks floating and complex tensors: Meta's Llama rotates its queries and keys as complex
    numbers, and counted untracked there, apply_plan left its attention's first linear layers untracked."""
    return info.floating or info.dtype.is_complex


def _classify(program, writes):
    """Allocating, in-place and view ops, as the LibTorch importer tells them apart: an op allocates
    when one of its outputs occupies storage no earlier tensor had; an op that writes one of its
    arguments (schema alias info, `writes`: per op, _written_leaf's) without allocating is in-place;
    anything else is a view."""
    for op in program.ops:
        if op.static:
            op.kind = "static"
            op.written = writes[op.index]  # a buffer's update: once per step, never re-forwarded
        else:
            _classify_dynamic(op, writes[op.index])
    _updated_statics(program, writes)
    _buffer_updates(program)


def _buffer_updates(program):
    """A buffer the forward updates in place from the inputs (a running mean, an EMA:
    `buf.mul_(m).add_(x.mean(0), alpha=1 - m)`, `buf.copy_(m * buf + ...)`, a queue's slice): every
    in-place op on its storage is part of the update and runs in its turn, in the vertex of the last value
    it reads (a static one, `mul_(m)`, would run once upfront, before what reads the buffer first). What
    reads the buffer must do so before its first write: a reader after it may run before the update in
    a plan's order (P18), which no edge ties it to."""
    ops = program.ops

    def written_buffer(op):
        if op.written < 0:
            return None
        target = op.leaves[op.written]
        key = storage_of_ref(program, target)
        return key if key in program.buffers else None

    written = {op.index: written_buffer(op) for op in ops}
    updated = {written[op.index] for op in ops if op.kind == "inplace"} - {None}
    if not updated:
        return
    for op in ops:
        if written[op.index] in updated:
            op.updates_buffer = written[op.index]
            op.static, op.kind = False, "inplace"
    begun = set()  # the updated buffers whose first write has run
    for op in ops:
        if op.updates_buffer is not None:
            begun.add(op.updates_buffer)
            continue
        outputs = [info.storage for info in op.outputs if info is not None]
        for key in begun & {storage_of_ref(program, r) for r in op.tensor_refs()}:
            if op.kind in ("static", "view") and outputs and all(storage == key for storage in outputs):
                continue  # a view of it
            raise ExportError(f"{type(program.model).__name__} ({describe_call(op.calls)}): {op.name} reads buffer "
                              f"'{program.buffers[key][0]}' after the forward began to update it in place from the "
                              "inputs: not supported (read it before the update)")


def storage_of_ref(program, ref):
    """The storage key (a buffer's, a parameter's) or the recorder's storage id of what `ref` is."""
    if isinstance(ref, ConstantRef):
        return _compat.storage_key(ref.value) if isinstance(ref.value, torch.Tensor) else None
    if isinstance(ref, InputRef):
        return program.inputs[ref.index].storage
    info = program.ops[ref.op].outputs[ref.position]
    return info.storage if info is not None else None


def _classify_dynamic(op, written):
    if op.fresh:
        op.kind = "allocating"
    elif written >= 0:
        op.kind = "inplace"
        op.written = written
    else:
        op.kind = "view"


def _updated_statics(program, writes):
    """A value parameters alone compute that an op then updates in place from the inputs is the
    update's operand, not a static: an LSTM cell's `addmm(b_hh, h0, W_hh^T).add_(x W_ih^T)`, where the
    initial state h0 is zeros, or a GRU cell's, which updates chunks of it (static views). Its op runs
    with the update, in the updating vertex, so that a re-forward makes it afresh (a static, made once
    per step, would take the update twice). What statics compute from it is dynamic too: its views, and
    autograd's copy of a chunk that `mul_` then overwrites (which no op reads: a saved extra, P11)."""
    ops = program.ops
    readers = {}
    for op in ops:
        if op.kind == "static":
            for ref in op.tensor_refs():
                if isinstance(ref, OutputRef):
                    readers.setdefault(ref.op, []).append(op.index)
    for op in ops:
        if op.kind != "inplace":
            continue
        maker = _static_allocation(ops, op.leaves[op.written])
        if maker is None:
            continue
        maker.static, maker.kind = False, "updated"
        stack = list(readers.get(maker.index, ()))
        while stack:
            reader = ops[stack.pop()]
            if reader.kind == "static":
                reader.static = False
                _classify_dynamic(reader, writes[reader.index])
                stack.extend(readers.get(reader.index, ()))


def _static_allocation(ops, ref):
    """The static op that allocated the storage `ref` reads, through static views; None where that is
    not a static's (a parameter, a buffer, a dynamic value)."""
    while isinstance(ref, OutputRef) and ops[ref.op].kind == "static":
        op = ops[ref.op]
        if op.fresh:
            return op
        operands = op.tensor_refs()  # a view of one static value, and nothing else
        if len(operands) != 1:
            return None
        ref = operands[0]
    return None


def _written_leaf(op):
    """The leaf index of the first tensor argument the op's schema marks as written (`Tensor(a!)`), or -1."""
    arguments = op.func._schema.arguments
    args, kwargs = _compat.tree_unflatten(list(range(len(op.leaves))), op.spec)
    for position, argument in enumerate(arguments):
        if not _compat.is_write_argument(argument):
            continue
        leaf = args[position] if position < len(args) else kwargs.get(argument.name)
        if isinstance(leaf, int) and isinstance(op.leaves[leaf], (InputRef, ConstantRef, OutputRef)):
            return leaf
    return -1
