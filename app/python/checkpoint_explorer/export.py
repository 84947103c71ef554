"""export_graph: a live nn.Module to the graph file `ckptx` reads, with everything the `pytorch` memory
model uses measured the way `ckptx-torch import` measures it (docs/FORMAT.md)."""
import math
import statistics
import time
import warnings

import torch

from . import _compat, graph_file
from .executor import Executor
from .memory import TransientMeter, synchronize
from .model_inputs import InputError, ModelInputs
from .optimizer_step import measure_optimizer_step, optimizer_for
from .program import ExportError, InputRef, OutputRef, failure_line, record
from .vertices import VertexGraph, dtype_name


def check_module(model):
    if not isinstance(model, torch.nn.Module):
        raise ExportError(f"expected a torch.nn.Module, got {type(model).__name__}")


def check_inputs(inputs):
    """The example inputs as a ModelInputs (one tensor, a sequence of them, or a mapping of keyword arguments)."""
    try:
        return ModelInputs.of_example(inputs)
    except InputError as error:
        raise ExportError(f"example inputs must be one tensor, a sequence of tensors or a mapping of keyword "
                          f"arguments: {error}") from None


def trace(model, inputs, granularity="module", depth=None):
    """Records the model called with `inputs` in training mode and cuts it into vertices (a VertexGraph)."""
    check_module(model)
    inputs = check_inputs(inputs)
    was_training = model.training
    model.train()
    try:
        program = record(model, inputs)
    finally:
        model.train(was_training)
    vertex_graph = VertexGraph(program, granularity, depth)
    for index in vertex_graph.unread_inputs:
        warnings.warn(f"{type(model).__name__}: the output does not depend on {inputs.describe(index)}; the graph is "
                      "the path these input values take (a model may leave out a padding mask of ones): export "
                      "with the batches you train with", stacklevel=3)
    return vertex_graph


def measure_workspace(vertex_graph, inputs, timed=False):
    """Operator scratch memory per vertex (rule P8): each vertex runs once more with autograd on fresh
    copies of its inputs, then its backward from gradients of ones with the parameters' gradients unset
    (as in a fresh step): _vertex_workspace says what each measures. The vertices' inputs come from the
    example inputs the graph was recorded with: where shapes follow the data (a mixture of experts'
    routing, a `nonzero`), the measures are of the tensors the graph sizes. `timed`: each vertex's
    `compute` becomes its forward's wall time (_forward_microseconds) instead of its FLOPs."""
    device = inputs[0].device
    model = vertex_graph.program.model
    executor = Executor(vertex_graph)
    meter = TransientMeter(device)
    saved_grads = [(p, p.grad) for p in model.parameters()]
    state = [(b, b.detach().clone()) for b in model.buffers()]
    rng = torch.get_rng_state()
    cuda_rng = torch.cuda.get_rng_state_all() if device.type == "cuda" else None  # dropout replays draw there
    values = {}
    last_readers = _last_readers(vertex_graph)
    try:
        for p, _ in saved_grads:
            p.grad = None  # a backward here would add into the user's gradients in place
        executor.run_statics()
        with torch.no_grad():
            for i, t in enumerate(inputs):
                values[InputRef(i)] = t.detach().clone()
            for v in vertex_graph.vertices:
                executor.run_vertex(v.index, values)
        # First what each backward hands its inputs (P15, P27, P34): a vertex's measure needs its readers'.
        # Last vertex first, so that each one's gradient is laid out as its readers hand it (P40).
        handed, layouts, readers, first_saver = {}, {}, _gradient_readers(vertex_graph), _first_savers(vertex_graph)
        for v in reversed(vertex_graph.vertices):
            if v.input_index < 0:
                try:
                    whole = {ref: layout for ref, layout in _handed_layouts(v, layouts, readers).items()
                             if _is_whole(layout)}
                    handed[v.index] = _passed_gradient(executor, v, values, layouts, whole)
                except RuntimeError as error:
                    raise _training_fails(model, v, error) from None
                _slices_to_statics(v, handed[v.index][3])
        outlived = _gradients_outliving_their_vertex(vertex_graph, handed)
        for v in vertex_graph.vertices:
            if v.input_index >= 0:
                continue
            try:
                executor.run_statics(v)
                (v.forward_workspace_bytes, v.backward_workspace_bytes,
                 (v.backward_workspace_released_bytes, v.backward_released_rise_bytes),
                 v.first_backward_node_bytes, v.backward_workspace_partly_released,
                 (v.shared_weight_gradient_bytes, v.shared_weight_sum_bytes)) = _vertex_workspace(
                    executor, meter, v, values, _accumulating(vertex_graph, v, last_readers),
                    _handed_layouts(v, layouts, readers), _inputs_outliving(vertex_graph, v, first_saver),
                    v.index in outlived)
                executor.run_statics(v)
                v.checkpointed_forward_workspace_bytes = _checkpointed_forward_workspace(executor, meter, v, values)
                copied = _statics_a_function_copies(vertex_graph, v)
                if copied:
                    v.copied_statics_forward_workspace_bytes = _checkpointed_forward_workspace(
                        executor, meter, v, values, copied)
                if timed:
                    v.compute = _forward_microseconds(executor, v, values, device)
            except RuntimeError as error:
                raise _training_fails(model, v, error) from None
            passed, sliced, one_tensor, _ = handed[v.index]
            producer = {base: vertex_graph.vertices[w].id for _, base, w in vertex_graph.reads(v)}
            v.passes_gradient_to = sorted({producer[base] for base in passed})
            v.slices_gradient_to = sorted({producer[base] for base in sliced})
            v.forms_one_gradient_for = sorted(group for group in (sorted({producer[base] for base in bases})
                                                                  for bases in one_tensor) if len(group) > 1)
    finally:
        for p, g in saved_grads:
            p.grad = g
        with torch.no_grad():
            for b, copy in state:
                b.copy_(copy)
        torch.set_rng_state(rng)
        if cuda_rng is not None:
            torch.cuda.set_rng_state_all(cuda_rng)


def _backward(loss):
    with _compat.backward_outside_autocast(loss.device.type):
        loss.backward()


def _gradients_outliving_their_vertex(vertex_graph, handed):
    """P65: the vertices whose gradient, in a step, is one tensor with another vertex's: an add hands
    its own gradient to both summands (P15), or a backward forms one tensor for several inputs (P53).
    It outlives the vertex's first backward node, which a measure's G does not."""
    shared = set()
    for passed, _, one_tensor, _ in handed.values():
        for bases in [passed] + list(one_tensor):
            producers = {vertex_graph.vertex_of_ref(base) for base in bases}
            if len(producers) > 1:
                shared |= producers
    return shared


def _training_fails(model, vertex, error):
    """The model cannot train here (torch 1.13's CPU has no bfloat16 backward of ReLU6, which a
    MobileNet-V2 under autocast needs): said, not a traceback."""
    return ExportError(f"{type(model).__name__} ({vertex.id}): its training step fails: {failure_line(error)}")


def _handed_layouts(vertex, layouts, readers):
    """Per output of `vertex` (its exported ref) whose gradient a step hands its backward laid out
    otherwise than contiguous, that layout. P34: a view that is not dense (a slice of a concatenation's
    gradient along channels), where only one reader sends it a gradient: the engine passes that view on
    as it is. P40: a whole tensor of its own (a channels-last one, made by the readers' backwards), where
    every reader hands it so laid out: their sum is laid out so too."""
    result = {}
    for ref in vertex.exports:
        sent, reading = layouts.get(ref, []), len(readers.get(ref, ()))
        if not sent or any(layout != sent[0] for layout in sent):
            continue
        if len(sent) == reading if _is_whole(sent[0]) else reading == 1:
            result[ref] = sent[0]
    return result


def _gradient_readers(vertex_graph):
    """Base ref -> the vertices that read it and hand it a gradient (P57): not those autograd does not
    track, nor those that read it only through `detach` or read only its untracked tensors (P50). A
    straight-through Gumbel-softmax reads its soft sample three times (`hard - soft.detach() + soft`
    and the argmax), and only the sum hands it a gradient, a permuted view of the codebook product's:
    counted as three readers, the measure handed the softmax's backward a contiguous gradient and missed
    the copy that backward makes to read the view contiguous."""
    vertices = vertex_graph.vertices
    return {base: {r for r in indices if vertices[r].requires_grad
                   and vertices[vertex_graph.vertex_of_ref(base)].id not in vertices[r].reads_without_gradient}
            for base, indices in vertex_graph.readers().items()}


def _is_whole(layout):
    """The layout (size, stride, offset, storage elements) is a dense tensor of its own storage: a
    permutation of a contiguous one's strides, no slice of a larger gradient."""
    size, _, offset, elements = layout
    return offset == 0 and elements == math.prod(size)


class _HandedGradient(torch.autograd.Function):
    """A loss term that hands `tensor` the gradient `grad` as it is, a view laid out as a reader's
    backward makes it (P34): a product with ones would hand it a contiguous tensor."""

    @staticmethod
    def forward(ctx, tensor, grad):
        ctx.grad = grad
        return tensor.new_zeros(())

    @staticmethod
    def backward(ctx, _):
        return ctx.grad, None


class _LaidOutGradient(torch.autograd.Function):
    """A loss term whose backward forms `tensor`'s gradient laid out as `layout` (P40): a tensor the
    run allocates and autograd frees once the vertex's first backward node has read it, as a product
    with a number forms a contiguous one. It saves nothing of the forward."""

    @staticmethod
    def forward(ctx, tensor, layout):
        ctx.layout, ctx.dtype, ctx.device = layout, tensor.dtype, tensor.device
        return tensor.new_zeros(())

    @staticmethod
    def backward(ctx, _):
        return _view_of_ones(ctx.layout, ctx.dtype, ctx.device), None


class _FormedGradient(torch.autograd.Function):
    """A copy of a vertex input whose gradient is kept as the backward formed it, as a step keeps it
    for the producer's backward: a leaf's AccumulateGrad would copy one that another input shares
    (an add passes one tensor to both summands, P15). The anchor only makes autograd reach it."""

    @staticmethod
    def forward(ctx, tensor, anchor, kept):
        ctx.kept = kept
        return tensor.clone()

    @staticmethod
    def backward(ctx, grad):
        ctx.kept.append(grad)
        return None, None, None


def _fresh_inputs(vertex_graph, vertex, values):
    """Copies of the vertex's inputs, those autograd tracked in the model keeping the gradient the
    backward forms."""
    env, kept = {}, []
    anchor = torch.zeros((), requires_grad=True)
    for _, base, _ in vertex_graph.reads(vertex):
        tensor = values[base].detach()
        tracked = vertex_graph.info_of(base).requires_grad
        env[base] = _FormedGradient.apply(tensor, anchor, kept) if tracked else tensor.clone()
    return env


def _take_weight_gradients(parameters, owned=(), unset=True):
    """The bytes of the weight gradients a backward formed for the weights in `owned` (storage keys:
    those the vertex owns, P5, and those it reads only through statics, P30); with `unset`, every one
    unset again, as in a fresh step. A tied weight's other readers add theirs into the owner's
    gradient, made first: a tensor of the backward's own there."""
    grads = sum(_compat.storage_bytes(p.grad) for p in parameters
                if p.grad is not None and _compat.storage_key(p) in owned)
    if unset:
        for p in parameters:
            p.grad = None
    return grads


def _loss_saving_nothing(roots, layouts):
    """A loss whose backward forms each root's gradient and keeps no tensor of the forward (a product
    with a number saves nothing, where one with `ones_like` would keep the ones until it runs).
    `layouts`: per root, the whole layout its readers hand it (P40), or None: contiguous."""
    return sum((r * 1.0).sum() if layout is None else _LaidOutGradient.apply(r, layout)
               for r, layout in zip(roots, layouts))


def _last_readers(vertex_graph):
    """Per tensor vertices read (an input's base, or a static a vertex's op reads itself: an LSTM's
    transposed weights, read at every time step), the index of the last vertex that reads it."""
    last = {base: max(indices) for base, indices in vertex_graph.readers().items()}
    for ref, v in vertex_graph.last_static_readers().items():
        base = vertex_graph.static_base(ref)
        last[base] = max(last.get(base, -1), v.index)
    return last


def _accumulating(vertex_graph, vertex, last_readers):
    """What `vertex` reads whose gradient a step has already formed when `vertex`'s backward adds to
    it: what a later vertex reads too (P10: an input's gradient is formed at the backward of its
    topologically last reader; P20: a static's, held to its first reader's, summed where the views
    the readers take of it meet: there the gradient of the view `vertex` reads arrives)."""
    refs = {base: base for _, base, _ in vertex_graph.reads(vertex)}
    refs.update((vertex_graph.static_base(ref), ref) for ref in sorted(vertex_graph.static_values_read_by(vertex), key=repr))
    return sorted((ref for base, ref in refs.items() if vertex_graph.info_of(ref).requires_grad
                   and vertex_graph.info_of(ref).floating and last_readers[base] > vertex.index), key=repr)


def _earlier_gradients(executor, env, accumulating):
    """Loss terms whose backward, run first (made last), forms the gradient each tensor in
    `accumulating` already has in a step, so that the vertex's backward adds into it as the step's
    does: out of place on torch 1.13 (the old sum, the new term and their sum live at once; a time
    step of a scan that reads its input through `dt[:, t]` twice added two such terms), in place
    where torch 2.x holds the only reference."""
    return [((env[ref] if ref in env else executor.static_value(ref)) * 1.0).sum() for ref in accumulating]


def _first_savers(vertex_graph):
    """Per vertex index, the index of the first vertex whose backward keeps its tensor, or None."""
    index_of = {v.id: v.index for v in vertex_graph.vertices}
    return {u: min((index_of[w] for w in ids), default=None) for u, ids in vertex_graph.saved_by().items()}


def _inputs_outliving(vertex_graph, vertex, first_saver):
    """P48: the inputs `vertex` saved that an earlier vertex's backward, run after this one, needs too
    (a chunk of a gelu output the other chunk's norm saved), where it saved another that only autograd
    holds past it: the step's own inputs, which it holds (P37), are neither. Ids, or none."""
    saved = [vertex_graph.vertices[u] for u in vertex.saved_deps if vertex_graph.vertices[u].input_index < 0]
    outliving = sorted(u.id for u in saved if first_saver[u.index] < vertex.index)
    return outliving if 0 < len(outliving) < len(saved) else []


def _vertex_workspace(executor, meter, vertex, values, accumulating=(), layouts=None, outliving=(),
                      gradient_outlives=False):
    """Forward: the run's peak minus what it leaves. Backward: the gradient of the vertex's output
    (G) comes from a product, so that the run allocates it and autograd frees it once the vertex's
    first backward node has read it, as in a step (a Python reference would keep it alive);
    peak - G - the weight gradients is what P10 adds between the weight gradients and the input
    gradients, with G live (docs/MEMORY-MODEL.md P8). Measured twice: with the inputs and outputs
    held (the backward frees nothing it did not allocate), and with nothing but autograd holding them,
    so that the backward frees what it saved as soon as the operation that read it is done (P14, P16);
    the second comes with its whole rise, G and the weight gradients in it (P81). Also the
    inputs whose gradient is G itself, the same tensor (an add passes it to both summands; P15). The
    inputs in `accumulating` have their gradient before the backward (_earlier_gradients), which the
    model counts (P10) and the measures leave out. An output in `layouts` gets its gradient as the step
    hands it (P34): a view of a tensor made before the measure (the model counts the whole, P27), so
    what the backward copies to read it contiguous is its workspace. Last, where the vertex saved its
    own output: the released run's peak up to the end of its first backward node (P43), or None. And
    where some inputs it saved outlive its backward (`outliving`, ids), the released measure with those
    held, with them (P48), or None. P65: where the step's tensor of G is another vertex's gradient too
    (`gradient_outlives`), the measures hold G to their end, as the step does."""
    layouts = layouts or {}
    env = _fresh_inputs(executor.graph, vertex, values)
    forward = meter.measure(lambda: _run_as_in_a_step(executor, vertex, env))
    root_refs = [ref for ref in vertex.exports if _is_root(env.get(ref))]
    if not root_refs:
        return forward, 0, (0, None), None, None, (0, 0)
    parameters = list(executor.program.model.parameters())
    _take_weight_gradients(parameters)
    handed = [ref for ref in root_refs if ref in layouts and not _is_whole(layouts[ref])]
    formed = [ref for ref in root_refs if ref not in handed]
    # G has each root's shape, views too; a handed one is not the run's.
    output_grads = sum(env[ref].numel() * env[ref].element_size() for ref in root_refs if ref not in handed)
    # What the model counts elsewhere is no scratch: G, the owners' contributions (P5, P23) and the
    # statics' gradients (P20); so are the vertex's own weight gradients (P5), taken after each run.
    shared = [executor.static_value(ref) for ref in executor.graph.shared_weight_reads(vertex)]
    owners = sum(t.numel() * t.element_size() for t in shared if t.requires_grad)
    earlier = sum(executor.graph.info_of(ref).nbytes for ref in accumulating)
    counted = output_grads + owners + vertex.static_gradient_bytes + earlier
    taken = executor.graph.gradients_not_scratch(vertex)
    # The ones are made before the measure, so that their free in the backward does not count (a
    # block older than the run). The vertex runs again inside it: the CPU meter counts a free only
    # where it saw the allocation, and the frees of what a multi-operation vertex saved are its own.
    # P78: the model's output gets it as the step's loss (its mean) hands it, contiguous whatever the
    # output's layout (a channels-last convolution copies it); any other as a reader's backward does.
    outputs = set(executor.program.output_refs)
    ones = {ref: _view_of_ones(layouts[ref], env[ref].dtype, env[ref].device) if ref in layouts
            else torch.ones(env[ref].shape, dtype=env[ref].dtype, device=env[ref].device) if ref in outputs
            else torch.ones_like(env[ref]) for ref in root_refs}
    del env
    step = {}

    def handed_terms(env):
        return sum(_HandedGradient.apply(env[ref], ones[ref]) for ref in handed)

    # Outside the measures: its profile then records the vertex alone. What statics made for an earlier
    # reader allocate takes the gradient where the step holds it (P20), their nodes waiting for that one.
    made_earlier = executor.graph.statics_made_for_earlier(vertex)
    own_statics = executor.graph.statics_before.get(vertex.index, [])

    def run_vertex(inputs):
        """The vertex, after the statics made for it (an RWKV block's decay matrix, which its einsum
        saves): made again here, where the meter sees their frees, and left to autograd once the loss
        is made, as the step lets them go after their readers' forwards (P44)."""
        executor.run_vertex(vertex.index, inputs, statics=own_statics, store=executor.statics)

    def let_go_of_own_statics():
        for op in own_statics:
            for position in range(len(op.outputs)):
                executor.statics.pop(OutputRef(op.index, position), None)

    rises = []

    def backward_peak(prepare, elsewhere=counted):
        """One measure: the statics made afresh (a backward before went through them), `prepare`, then
        the loss's backward; its peak less what the model counts elsewhere. P61: the gradients of
        weights another vertex owns (P30), which the statics' nodes form at the measure's end, are
        no part of a peak before those nodes run. P81: in `rises`, the same with G and the vertex's
        own weights' gradients left in (the whole rise where they come after what the backward frees)."""
        executor.run_statics(vertex, held=made_earlier)
        peak = meter.peak_after(prepare, lambda: _backward(step.pop("loss")))
        own = _take_weight_gradients(parameters, vertex.parameter_keys, unset=False)
        others = _take_weight_gradients(parameters, taken - set(vertex.parameter_keys))
        rise = peak - (elsewhere - output_grads) - others
        peak -= elsewhere + own + others
        if _STATICS_RUN in meter.marks:
            peak = max(peak, meter.marks[_STATICS_RUN] - elsewhere - own)
            rise = max(rise, meter.marks[_STATICS_RUN] - (elsewhere - output_grads))
        rises.append(max(0, rise))
        step.clear()
        return max(0, peak)

    def hold_gradients(inputs):
        for ref in formed if gradient_outlives else ():
            inputs[ref].register_hook(lambda grad: step.setdefault("gradients", []).append(grad))

    def prepare_held(contributions=True):
        step["inputs"] = _fresh_inputs(executor.graph, vertex, values)
        run_vertex(step["inputs"])
        _mark_when_statics_run(executor, meter)
        hold_gradients(step["inputs"])
        step["loss"] = (sum((step["inputs"][ref] * ones[ref]).sum() for ref in formed)
                        + handed_terms(step["inputs"])
                        + (sum(_owners_contributions(executor, vertex)) if contributions else 0)
                        + sum(_earlier_gradients(executor, step["inputs"], accumulating)))
        let_go_of_own_statics()

    held = backward_peak(prepare_held)
    # P59: where the vertex's gradient reaches the shared weights first (a plan ran the owner earlier),
    # no sum is made: what the held measure allocated beyond that (torch 1.13: the sum, out of place).
    shared_sum = (owners, 0)
    if owners and vertex.adds_weight_gradient_to:
        alone = backward_peak(lambda: prepare_held(contributions=False), counted - owners)
        shared_sum = (owners, max(0, held - alone))

    # P43: where the vertex saved its own output, its first backward node (the operation that made it,
    # an in-place ReLU's) may be the run's peak, before any weight gradient is formed.
    first_node = vertex.saves_output and len(root_refs) == 1 and not handed

    def prepare(kept=()):
        inputs = _fresh_inputs(executor.graph, vertex, values)
        run_vertex(inputs)
        _mark_when_statics_run(executor, meter)
        hold_gradients(inputs)
        step["kept"] = [inputs[ref] for ref in kept]
        if first_node:
            inputs[root_refs[0]].grad_fn.register_hook(lambda *grads: meter.mark(_FIRST_NODE_DONE))
        # Only autograd holds the outputs too (P16): one the vertex saved goes after the node that read it.
        step["loss"] = (_loss_saving_nothing([inputs[ref] for ref in formed], [layouts.get(ref) for ref in formed])
                        + handed_terms(inputs)
                        + sum(_owners_contributions(executor, vertex))
                        + sum(_earlier_gradients(executor, inputs, accumulating)))
        let_go_of_own_statics()

    released = (backward_peak(prepare), rises[-1])
    # What comes before that node: G, the owners' contributions and the earlier gradients.
    first = (max(0, meter.marks[_FIRST_NODE_DONE] - output_grads - owners - earlier)
             if first_node and _FIRST_NODE_DONE in meter.marks else None)
    partly = None
    if outliving:
        kept = [base for _, base, w in executor.graph.reads(vertex) if executor.graph.vertices[w].id in outliving]
        partly = (backward_peak(lambda: prepare(kept)), list(outliving))
    return forward, held, released, first, partly, shared_sum


_FIRST_NODE_DONE, _STATICS_RUN = 1, 2  # the measures' marks (TransientMeter.mark)


def _mark_when_statics_run(executor, meter):
    """Marks the moment the first node of a static the vertex read is about to run: after every node
    of the vertex's own (the statics were made before it, so autograd's engine, newest first, reaches
    them last). A hook on a value whose gradient is complete runs before its node."""
    for value in executor.statics.values():
        if isinstance(value, torch.Tensor) and value.grad_fn is not None:
            value.register_hook(lambda grad: meter.mark(_STATICS_RUN))


def _is_root(value):
    return isinstance(value, torch.Tensor) and value.requires_grad


def _view_of_ones(layout, dtype, device):
    size, stride, offset, elements = layout
    return torch.ones(elements, dtype=dtype, device=device).as_strided(size, stride, offset)


def _run_as_in_a_step(executor, vertex, env, made=None):
    """The vertex's forward with the statics a step makes just before it (P20: an MLP that makes a
    position bias), or `made`, whose values go at its end unless another vertex reads them; what they
    save stays with the vertex's outputs (its saved extras)."""
    if made is None:
        made = executor.graph.statics_before.get(vertex.index, [])
    executor.run_vertex(vertex.index, env, statics=made)
    for op in made:
        for position in range(len(op.outputs)):
            env.pop(OutputRef(op.index, position), None)


def _owners_contributions(executor, vertex):
    """P23: a term per weight the vertex reads and another vertex owns, read as the owner reads it (the
    weight, or its transpose, made afresh), whose gradient is the owner's contribution. Made after the
    vertex's forward, their nodes run first, as in a step the owner's backward and then its static's
    node (P20) run before the vertex's; the engine then adds the vertex's contribution as the step
    does: out of place on torch 1.13 (the owner's, the vertex's and their sum live at once), in place
    where torch 2.x can. The owner's contribution is its weight gradient (P5), not workspace."""
    terms = []
    for ref in executor.graph.shared_weight_reads(vertex):
        if isinstance(ref, OutputRef):
            made = {}
            executor.run_static_ops(executor.static_chain(ref), made)
            value = made[ref]
        else:
            value = executor.static_value(ref)
        if value.requires_grad:
            terms.append((value * 1.0).sum())
    return terms


TIMED_RUNS = 5


def _forward_microseconds(executor, vertex, values, device):
    """The vertex's forward as a re-forward runs it (apply_plan's executor, autograd recording), in
    microseconds: the median of TIMED_RUNS runs after a warm-up. What FLOPs leave out (a memory-bound
    BatchNorm, ReLU or concatenation; a kernel launch; the executor's own Python) is in it."""
    times = []
    for _ in range(TIMED_RUNS + 1):
        env = _fresh_inputs(executor.graph, vertex, values)
        synchronize(device)
        start = time.perf_counter()
        executor.run_vertex(vertex.index, env)
        synchronize(device)
        times.append(time.perf_counter() - start)
        del env
    return statistics.median(times[1:]) * 1e6


def _checkpointed_forward_workspace(executor, meter, vertex, values, made=None):
    """The forward's scratch memory as a checkpointed function runs it (P17): autograd keeps none of
    the tensors it saves, so a softmax's scores or a dropout's mask go once read. With `made`, the
    static ops made just before it instead of those the step makes there (P49)."""
    env = _fresh_inputs(executor.graph, vertex, values)
    with _compat.saving_nothing():
        return meter.measure(lambda: _run_as_in_a_step(executor, vertex, env, made))


def _statics_a_function_copies(vertex_graph, vertex):
    """P49: the static ops a checkpointed function makes again just before `vertex` where it is the
    first of the function's readers of statics the step makes for an earlier vertex (an RWKV block's
    decay matrix, whose second einsum runs in another function than the first): every static it reads
    but those made once per step upfront (apply_plan's _place_statics). None where it reads no such
    static."""
    if not vertex_graph.statics_made_for_earlier(vertex):
        return None
    upfront = {op.index for op in vertex_graph.upfront_statics}
    return [op for op in vertex_graph.statics_read_by(vertex) if op.index not in upfront]


def _passed_gradient(executor, vertex, values, layouts, own_layouts):
    """The inputs whose gradient is the vertex's output gradient itself, the same tensor (P15), and
    those whose gradient is a slice of it, another tensor of the same storage (a concatenation's
    backward; P27), or a slice of a tensor of its size that the backward made before it sliced (a
    concatenation whose output a channel shuffle transposed: ShuffleNet's blocks): an unmeasured run
    whose hooks keep each gradient alive, so that no address is reused. A view of the whole (a
    reshape's) counts as the tensor itself; the first slice starts where the whole does, and its
    size tells them apart. Third, the groups of inputs whose gradients are one tensor the backward formed
    (P53: an add whose sum a ReLU in the same vertex reads hands the ReLU's input gradient to both
    summands). Also, into `layouts`, each input's gradient that is not contiguous (P34): its
    size, stride, offset and its storage's elements, appended per reader. The vertex's own gradient is
    laid out as `own_layouts` says, the whole layouts its readers hand it (P40). Fourth, the static
    values the vertex reads whose gradient is its own or a slice of it (P62)."""
    executor.run_statics(vertex)
    env = _fresh_inputs(executor.graph, vertex, values)
    inputs = dict(env)  # the run adds the vertex's exports to env
    executor.run_vertex(vertex.index, env)
    root_refs = [ref for ref in vertex.exports if _is_root(env.get(ref))]
    if not root_refs:  # no backward runs (an untracked vertex's)
        return [], [], [], []
    statics = {ref: executor.statics[ref] for ref in executor.graph.static_values_read_by(vertex)
               if ref in executor.statics and _is_root(executor.statics[ref])}
    roots = [env[ref] for ref in root_refs]
    kept = {}

    def keep(key):
        return lambda grad: kept.__setitem__(key, grad)

    for k, r in enumerate(roots):
        r.register_hook(keep(k))
    for base, tensor in list(inputs.items()) + list(statics.items()):
        if tensor.requires_grad:
            tensor.register_hook(keep(base))
    _backward(_loss_saving_nothing(roots, [own_layouts.get(ref) for ref in root_refs]))
    _take_weight_gradients(list(executor.program.model.parameters()))
    own = [kept[k] for k in range(len(roots)) if k in kept]
    passed, sliced, formed = [], [], {}
    for base in inputs:
        grad = kept.get(base)
        if grad is None or _compat.storage_key(grad) is None:
            continue
        if not grad.is_contiguous():
            layouts.setdefault(base, []).append((tuple(grad.shape), grad.stride(), grad.storage_offset(),
                                                 _compat.storage_bytes(grad) // grad.element_size()))
        if any(grad.data_ptr() == g.data_ptr() and grad.numel() == g.numel() for g in own):
            passed.append(base)
        elif any(_compat.storage_key(grad) == _compat.storage_key(g) for g in own) or _slices_a_copy(grad, own):
            sliced.append(base)
        else:
            formed.setdefault((grad.data_ptr(), grad.numel()), []).append(base)
    parts_of_own = [ref for ref in statics if kept.get(ref) is not None and _compat.storage_key(kept[ref]) is not None
                    and any(_compat.storage_key(kept[ref]) == _compat.storage_key(g) for g in own)]
    return passed, sliced, [bases for bases in formed.values() if len(bases) > 1], parts_of_own


def _slices_to_statics(vertex, parts_of_own):
    """P62: a static's gradient that the vertex's backward hands as its own gradient or a slice of it (a
    concatenation with a static branch) has no bytes of its own: it holds the vertex's gradient until
    the static's node runs, where P20 held the static's own."""
    held = [ref for ref in parts_of_own if ref in vertex.static_gradients_held]
    if held:
        vertex.static_gradient_bytes -= sum(vertex.static_gradients_held.pop(ref) for ref in held)
        vertex.slices_gradient_to_statics = True


def _slices_a_copy(grad, own):
    """`grad` is a slice of a tensor as large as one of the vertex's output gradients."""
    whole = _compat.storage_bytes(grad)
    return grad.numel() * grad.element_size() < whole and any(whole == _compat.storage_bytes(g) for g in own)


COMPUTE_UNITS = {"flops": "flops", "time": "microseconds"}


def input_entries(tensors, keywords):
    """The graph's and the trace's `inputs`: shape and dtype per input, and the keyword a keyword input
    was passed by (ModelInputs)."""
    entries = [{"shape": list(t.shape), "dtype": dtype_name(t.dtype)} for t in tensors]
    for entry, keyword in zip(entries[len(entries) - len(keywords):], keywords):
        entry["keyword"] = keyword
    return entries


def metadata(vertex_graph, granularity, depth, device="cpu", cost="flops", autocast=None, accumulate=False):
    program = vertex_graph.program
    params = sum(b for _, b in program.parameters.values())
    buffers = sum(b for _, b in program.buffers.values())
    inputs = input_entries(program.inputs, program.keywords)
    meta = {"source_format": "pytorch", "granularity": granularity, "inputs": inputs,
            "input_shape": inputs[0]["shape"], "input_dtype": inputs[0]["dtype"],
            "batch_dim": 0, "batch_size": inputs[0]["shape"][0] if inputs[0]["shape"] else 1,
            "parameter_bytes": params, "buffer_bytes": buffers, "mode": "train",
            "plan_executor": "torch.utils.checkpoint", "checkpoint_early_stop": _compat.checkpoint_early_stop(),
            "model_class": type(program.model).__name__, "torch_version": torch.__version__,
            "compute_unit": COMPUTE_UNITS[cost], "device": str(device)}
    if depth is not None:
        meta["depth"] = depth
    if autocast is not None:
        # The forward ran in mixed precision: `profile` runs the steps' forwards so too.
        meta["autocast"] = autocast
    if accumulate:
        # P33: the step to predict adds into the weights' gradients of an earlier one (gradient
        # accumulation): `profile` runs it so, and ckptx counts those gradients as there before it.
        meta["accumulate_gradients"] = True
    if torch.device(device).type == "cpu":
        # P22: each checkpointed function stashes the CPU generator's state, which a CPU step counts
        # (on CUDA it is host memory, which memory_allocated does not count).
        state = torch.get_rng_state()
        meta["checkpoint_rng_state_bytes"] = state.numel() * state.element_size()
    return meta


def _autocast_for(device, autocast):
    """The autocast dtype's name the export runs in: `autocast` where given, else the ambient one."""
    if autocast is None:
        return _compat.ambient_autocast(device.type)
    name = str(autocast).replace("torch.", "")
    if name not in _compat.AUTOCAST_DTYPES:
        raise ExportError(f"autocast must be one of {', '.join(_compat.AUTOCAST_DTYPES)}, got {autocast!r}")
    refused = ExportError(f"this torch ({torch.__version__}) has no {name} autocast on {device.type}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the refusal says it better than autocast's warning
        try:
            with _compat.autocast(device.type, name):
                if _compat.ambient_autocast(device.type) != name:
                    raise refused
        except RuntimeError:  # torch 1.13: "AutocastCPU only support Bfloat16"
            raise refused from None
    return name


def export_graph(model, example_inputs, path=None, granularity="module", depth=None, name=None, cost="flops",
                 autocast=None, accumulate=False, optimizer=None):
    """Records `model(*example_inputs)` as it really runs (training mode, with autograd) and writes the
    graph file `ckptx` reads to `path` (atomically); `example_inputs` may also be a mapping, the keyword
    arguments the model is called with (`model(**batch)`, Hugging Face's `input_ids=`, `attention_mask=`,
    `labels=`). Returns the graph as a dict. Byte sizes hold for
    the example inputs' shapes: export at the batch you train with. `cost`: what each vertex's
    `compute` (the price of recomputing it) counts, "flops" or "time" (its forward measured here, on
    the inputs' device). `autocast` ("bfloat16", "float16"): the forward runs in that mixed precision,
    as under `torch.autocast`; called inside `torch.autocast`, the export records that one. `accumulate`:
    the step to predict is a gradient-accumulation micro-batch after the first (or any step after
    `zero_grad(set_to_none=False)`), which starts with the weights' gradients and adds into them.
    `optimizer`: the torch.optim optimizer you train with (or "sgd", "momentum", "adam", "adamw" over the
    model's weights): its state and one step's scratch memory are measured here (the weights, their
    gradients and its state are left as they were), for `ckptx max-batch` (P35)."""
    if cost not in COMPUTE_UNITS:
        raise ExportError(f"cost must be one of {', '.join(COMPUTE_UNITS)}, got {cost!r}")
    inputs = check_inputs(example_inputs)
    device = inputs[0].device
    mixed = _autocast_for(device, autocast)
    with _compat.autocast(device.type, mixed):
        vertex_graph = trace(model, inputs, granularity, depth)
        was_training = model.training
        model.train()
        try:
            measure_workspace(vertex_graph, inputs, timed=cost == "time")
        finally:
            model.train(was_training)
    meta = metadata(vertex_graph, granularity, depth, device, cost, mixed, accumulate)
    if optimizer is not None:
        if isinstance(optimizer, str):
            optimizer = optimizer_for(optimizer, model)
        meta.update(measure_optimizer_step(optimizer, device))
    document = graph_file.graph_json(vertex_graph, name or type(model).__name__, meta)
    document["metadata"]["fingerprint"] = graph_file.graph_fingerprint(vertex_graph)
    if path is not None:
        graph_file.write_atomically(path, graph_file.dumps(document))
    return document


__all__ = ["export_graph", "ExportError"]
