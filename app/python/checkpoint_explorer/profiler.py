"""`python3 -m checkpoint_explorer profile`: a regular and a planned training step of the user's model,
where the user trains (CPU or CUDA), measured per training phase on the index the simulators use, and
written in the trace format `ckptx simulate --trace` and the app read (docs/FORMAT.md, "Profile traces")."""
import collections
import contextlib
import copy
import json
import statistics
import time

import torch

from . import _compat, graph_file, memory
from .memory import PhaseMeter, TransientMeter, synchronize
from .optimizer_step import optimizer_for
from .export import input_entries
from .model_inputs import ModelInputs
from .planned import PlanError, PlannedModule, apply_plan, planned_inputs
from .program import flatten_output

RTOL, ATOL = 1e-4, 1e-5
CUDA_RELATIVE = 1e-2


class _PhaseObserver:
    """Marks the phases of one step: forward phase p+1 begins when vertex p (topological position p,
    the input being 0) starts; its backward phase 2N-p when its gradient is complete (a tensor hook)."""

    def __init__(self, meter, position, n):
        self.meter, self.position, self.n = meter, position, n

    def before_vertex(self, vertex):
        self.meter.phase(self.position[vertex.id] + 1)

    def after_vertex(self, vertex, tensors):
        phase = 2 * self.n - self.position[vertex.id]
        for tensor in tensors:
            if isinstance(tensor, torch.Tensor) and tensor.requires_grad:
                tensor.register_hook(lambda grad, phase=phase: self.meter.phase(phase))


def _storage_total(tensors):
    seen = {}
    for t in tensors:
        key = _compat.storage_key(t)
        if key is not None:
            seen[key] = _compat.storage_bytes(t)
    return sum(seen.values())


def _loss(output):
    """What the training script back-propagates: the loss the model returns where it returns one (a
    floating scalar autograd tracks: nanoGPT's `logits, loss = model(x, y)`, a Hugging Face output given
    labels), as `loss.backward()` does; else the mean of every floating output. Adding a mean of the
    logits to the returned loss formed a second logits gradient, and a nanoGPT-style LM's peak
    measured 38 % above the prediction (docs/BENCHMARKS.md, "A loss the model returns"). Each mean is
    taken in its output's dtype: `.float()` first copied a bfloat16 output of an autocast forward, and
    gpt_bench's regular step (8x128 tokens) measured 7 % above the prediction (BENCHMARKS.md, "Mixed
    precision")."""
    flat, _ = flatten_output(output)
    tensors = [t for t in flat if isinstance(t, torch.Tensor) and t.is_floating_point()]
    losses = [t for t in tensors if t.dim() == 0 and t.requires_grad]
    if losses:
        return losses[0] if len(losses) == 1 else sum(losses)
    return sum(t.mean() for t in tensors)


# A step's wall time and its forward pass's (the loss included): the forward's share of a step prices
# the recompute of a plan in time (ckptx simulate --trace; core/memory/StepTimeComparison.h).
_StepTime = collections.namedtuple("_StepTime", "step_ms forward_ms")


def _step(module, model, inputs, label, observer=None, meter=None, n=0, device="cpu", autocast=None,
          accumulate=False):
    """One training step; the forward and the loss in `autocast` (a dtype's name) where the graph was
    exported so, the backward outside it, as PyTorch's mixed-precision recipe runs them. `accumulate`
    (P33): the step adds into the gradients the model holds; else it starts without them."""
    if not accumulate:
        for p in model.parameters():
            p.grad = None
    # As in training, no gradient for the inputs: the first layer's backward forms none (an image's
    # would be the step's last allocation, and on a checkpointed ShuffleNet its peak).
    inputs = ModelInputs.of(inputs).replaced([t.detach() for t in inputs])
    if meter is not None:
        baseline = meter.allocated()
        if baseline is None:
            gradients = [p.grad for p in model.parameters() if p.grad is not None]
            baseline = _storage_total(list(model.parameters()) + gradients + list(model.buffers()) + list(inputs))
        meter.start(baseline)
        meter.phase(0)
        module.observer = observer
    synchronize(device)
    start = time.perf_counter()
    # A memory snapshot taken around the run tells the steps apart by this label (docs/FORMAT.md).
    with memory.profiler_range(f"ckptx:step:{label}"):
        with _compat.autocast(torch.device(device).type, autocast):
            loss = _loss(inputs.call(module))
        synchronize(device)
        forward_end = time.perf_counter()
        loss.backward()
        if meter is not None:
            meter.phase(2 * n + 1)
        del loss
    synchronize(device)
    end = time.perf_counter()
    elapsed = _StepTime((end - start) * 1000.0, (forward_end - start) * 1000.0)
    if meter is None:
        return elapsed, None
    module.observer = None
    phases = meter.stop()
    return elapsed, (baseline, phases)


def _phase_list(phases, n, baseline, live=None):
    out, end = [], baseline
    for index in range(2 * n + 2):
        if index in phases:
            end, peak = phases[index]
        else:
            peak = end
        out.append({"index": index, "end_bytes": int(end), "peak_bytes": int(max(peak, end))})
        if live and index in live:
            out[-1]["live_at_peak"] = live[index]
    return out


def _relative_difference(regular, planned):
    return float((planned - regular).norm() / regular.norm().clamp_min(1e-30))


def _same_gradient(regular, planned):
    """Elementwise on the CPU. On CUDA, TF32 convolutions and products (cuDNN's default) and kernels
    that add with atomics make two correct steps differ by ~1e-3 of a gradient (Inception-V3's first
    convolution: 4e-3 at most): there the difference is taken relative to the gradient's norm; a wrong
    plan (a stochastic op recomputed with other random numbers) differs by O(1)."""
    if regular.is_cuda:
        return _relative_difference(regular, planned) <= CUDA_RELATIVE
    return torch.allclose(planned, regular, rtol=RTOL, atol=ATOL)


def _first_difference(reference, planned, names=("regular", "planned")):
    """The first parameter whose gradient differs between two (name, gradient) lists, said; or None."""
    for (name, a), (_, b) in zip(reference, planned):
        if (a is None) != (b is None):
            return f"{name}: gradient missing in the {names[1] if b is None else names[0]} step"
        if a is not None and not _same_gradient(a, b):
            return (f"{name}: gradients differ (max |{names[1]} - {names[0]}| = {float((b - a).abs().max()):.3g}, "
                    f"relative norm {_relative_difference(a, b):.3g})")
    return None


def _zero_gradients(model):
    """What `zero_grad(set_to_none=False)` leaves after a step: a zero gradient per trained weight, for an
    accumulation step (P33) to add into; the same in both models, so their gradients compare."""
    for p in model.parameters():
        if p.requires_grad:
            p.grad = torch.zeros_like(p)


def _gradients(model):
    """(name, gradient) per parameter: the tensors themselves, which a next step replaces, not updates."""
    return [(name, p.grad) for name, p in model.named_parameters()]


def _unreproducible(regular, model, inputs, state, device, autocast=None, accumulate=False):
    """Where the regular step's gradients differ from a second regular step's, from the same weights
    and seed, said (torch 1.13's CPU gelu_backward reads a transposed gradient wrongly: a GELU before
    a transpose, as a wav2vec feature extractor has); None where they agree."""
    first = _gradients(model)
    model.load_state_dict(state)
    if accumulate:
        _zero_gradients(model)
    torch.manual_seed(0)
    _step(regular, model, inputs, "regular", device=device, autocast=autocast, accumulate=accumulate)
    return _first_difference(first, _gradients(model), ("first", "second"))


def _optimizer_like(optimizer, model, copied):
    """`optimizer` (the user's, over `model`'s weights, or a name export --optimizer knows) over the weights
    of `copied`, a deep copy of `model`: the same class and parameter groups, each weight mapped to the
    copy's by its position in model.parameters()."""
    if isinstance(optimizer, str):
        return optimizer_for(optimizer, copied)
    if not isinstance(optimizer, torch.optim.Optimizer):
        raise PlanError(f"optimizer must be a torch.optim.Optimizer or a name, got {type(optimizer).__name__}")
    position = {id(p): i for i, p in enumerate(model.parameters())}
    weights = list(copied.parameters())
    groups = []
    for group in optimizer.param_groups:
        if any(id(p) not in position for p in group["params"]):
            raise PlanError("the optimizer holds tensors that are not the model's weights")
        groups.append({**{k: v for k, v in group.items() if k != "params"},
                       "params": [weights[position[id(p)]] for p in group["params"]]})
    try:
        return type(optimizer)(groups)
    except (TypeError, ValueError) as error:
        raise PlanError(f"cannot make a {type(optimizer).__name__} for the profiled copies of the model from its "
                        f"parameter groups ({error}); profile with an optimizer's name instead") from None


HISTORY_ENTRIES = 1_000_000


@contextlib.contextmanager
def allocator_history(path):
    """The CUDA caching allocator's history while the block runs, saved to `path` (a PyTorch memory
    snapshot: every block with the stack that allocated it, and the steps' `ckptx:step` and
    `ckptx:phase` ranges) for `ckptx import-snapshot` and PyTorch's memory viewer. Why a measured
    phase is higher than predicted is in it: CUDA traces name no live blocks. Needs a torch with
    `torch.cuda.memory._dump_snapshot` (cli checks). Nothing is recorded when `path` is None."""
    if path is None:
        yield
        return
    # Stacks of allocations only: recording a stack at every free too (context="all") made the
    # measured backward fail on torch 2.11 with CUDA ("run_backward returned NULL without setting an
    # exception", an H200, docs/BENCHMARKS.md "Second GPU run"), and why a phase is high is in what
    # allocated its blocks.
    torch.cuda.memory._record_memory_history(enabled="all", context="alloc", max_entries=HISTORY_ENTRIES)
    try:
        yield
        graph_file.replace_atomically(path, torch.cuda.memory._dump_snapshot)
    finally:
        torch.cuda.memory._record_memory_history(enabled=None)


def _copy_model(model):
    """copy.deepcopy(model), though the model keeps tensors autograd computed: `nn.utils.weight_norm` sets
    `weight` from `weight_g` and `weight_v` in a pre-hook, and deepcopy refuses every tensor but a graph
    leaf. Those are copied detached; the hook computes them again at the copy's next call."""
    computed = [(m, name, value) for m in model.modules() for name, value in vars(m).items()
                if isinstance(value, torch.Tensor) and not value.is_leaf]
    for m, name, value in computed:
        m.__dict__[name] = value.detach()
    try:
        return copy.deepcopy(model)
    finally:
        for m, name, value in computed:
            m.__dict__[name] = value


def profile(model, inputs, graph_path, plan_path, device="cpu", iterations=3, model_name=None, snapshot=None,
            optimizer=None):
    """Runs and measures the steps, the model called with `inputs` (as export_graph takes them: a tensor,
    a sequence of tensors or a mapping of keyword arguments); returns the trace (a dict). Raises
    PlanError when the graph or the plan is not this model's, or when the planned step's gradients
    differ from the regular step's.
    `optimizer` (the one you train with, over `model`'s weights, or "sgd", "momentum", "adam", "adamw"):
    each measured step is followed by its optimizer.step(), from the state a step before left, measured
    on what the step leaves (P35); the model's weights and the optimizer are not touched."""
    inputs = planned_inputs(inputs)
    with open(graph_path, encoding="utf-8") as f:
        graph = json.load(f)
    ids = [v["id"] for v in graph.get("vertices", [])]
    reference_model, planned_model = _copy_model(model), _copy_model(model)
    for m in (reference_model, planned_model):
        m.train()
    planned = apply_plan(planned_model, plan_path)
    autocast = graph.get("metadata", {}).get("autocast")
    if autocast is not None and autocast not in _compat.AUTOCAST_DTYPES:
        raise PlanError(f"{graph_path}: /metadata/autocast: expected one of {', '.join(_compat.AUTOCAST_DTYPES)}, "
                        f"got {autocast!r}")
    accumulate = graph.get("metadata", {}).get("accumulate_gradients", False)
    if not isinstance(accumulate, bool):
        raise PlanError(f"{graph_path}: /metadata/accumulate_gradients: expected true or false, got {accumulate!r}")
    with _compat.autocast(torch.device(device).type, autocast):
        vertex_graph = planned.vertex_graph(inputs)
    if [v.id for v in vertex_graph.vertices] != ids:
        raise PlanError(f"{graph_path}: not this model's graph at inputs "
                        f"{', '.join('x'.join(map(str, t.shape)) for t in inputs)} (export it again)")
    every = {"schema": "checkpoint-explorer/plan", "checkpoints": ids, "path": "(every vertex kept)",
             "fingerprint": graph_file.graph_fingerprint(vertex_graph), "vertex_count": len(ids)}
    regular = PlannedModule(reference_model, every, planned.granularity, planned.depth)
    n = len(ids)
    position = {vid: i for i, vid in enumerate(ids)}
    how = {"device": device, "autocast": autocast, "accumulate": accumulate}
    optimizers = None
    if optimizer is not None:
        optimizers = {"regular": _optimizer_like(optimizer, model, reference_model),
                      "checkpointed": _optimizer_like(optimizer, model, planned_model)}
    # Warm-up, then K timed steps of each, alternating; then one measured step of each.
    state = copy.deepcopy(planned_model.state_dict())
    _step(regular, reference_model, inputs, "regular", **how)
    _step(planned, planned_model, inputs, "checkpointed", **how)
    if optimizers is not None:
        for o in optimizers.values():
            o.step()  # its state exists before the measured step, as in every step after the first
    times = {"regular": [], "checkpointed": []}
    for _ in range(max(1, iterations)):
        times["regular"].append(_step(regular, reference_model, inputs, "regular", **how)[0])
        times["checkpointed"].append(_step(planned, planned_model, inputs, "checkpointed", **how)[0])
    reference_model.load_state_dict(state)
    planned_model.load_state_dict(state)
    if accumulate:
        for m in (reference_model, planned_model):
            _zero_gradients(m)
    results = {}
    with allocator_history(snapshot):
        for name, module, m in (("regular", regular, reference_model), ("checkpointed", planned, planned_model)):
            meter = PhaseMeter(device)
            torch.manual_seed(0)
            _, (baseline, phases) = _step(module, m, inputs, name, _PhaseObserver(meter, position, n), meter, n,
                                          **how)
            listed = _phase_list(phases, n, baseline, meter.live)
            results[name] = {"peak_bytes": max(p["peak_bytes"] for p in listed),
                             "step_ms": statistics.median(t.step_ms for t in times[name]),
                             "forward_ms": statistics.median(t.forward_ms for t in times[name]),
                             "step_ms_all": [t.step_ms for t in times[name]],
                             "phases": listed}
    mismatch = _first_difference(_gradients(reference_model), _gradients(planned_model))
    if mismatch is not None:
        unreproducible = _unreproducible(regular, reference_model, inputs, state, device, autocast, accumulate)
        if unreproducible is not None:
            mismatch += (f"; but two regular steps from the same weights and seed differ too ({unreproducible}): "
                         f"torch {torch.__version__} does not compute this model's gradients reproducibly, so no plan "
                         "can be checked against them")
    if optimizers is not None:
        # After the gradients were compared: a step may change them in place (Adam's weight decay).
        meter = TransientMeter(device)
        for name, o in optimizers.items():
            peak, end = meter.peak_and_end(o.step)
            left = results[name]["phases"][-1]["end_bytes"]
            results[name]["optimizer_step"] = {"end_bytes": left + end, "peak_bytes": left + peak}
    with open(plan_path, encoding="utf-8") as f:
        checkpoints = set(json.load(f)["checkpoints"])
    checkpoints.update(ids[i] for i in vertex_graph.sinks)
    checkpoints.update(ids[i] for i in vertex_graph.input_vertex if i is not None)
    trace = {"schema": "checkpoint-explorer/trace", "version": 1, "model": model_name or type(model).__name__,
             "device": str(device), "input_shape": list(inputs[0].shape),
             "inputs": input_entries(inputs, inputs.keywords),
             "iterations": max(1, iterations), "source": "profile", "profiler": "python",
             "torch_version": torch.__version__,
             "memory_source": "cuda caching allocator" if str(device).startswith("cuda")
             else "c10 CPU allocator events (autograd profiler, profile_memory)",
             "vertices": ids, "checkpoints": [i for i in ids if i in checkpoints],
             "gradients_match": mismatch is None,
             "gradient_tolerance": {"rtol": RTOL, "atol": ATOL, "cuda_relative_norm": CUDA_RELATIVE},
             "baseline_bytes": int(results["regular"]["phases"][0]["end_bytes"]),
             "regular": results["regular"], "checkpointed": results["checkpointed"]}
    if autocast is not None:
        trace["autocast"] = autocast
    if accumulate:
        trace["accumulate_gradients"] = True
    if optimizers is not None:
        trace["optimizer"] = type(optimizers["regular"]).__name__
    if mismatch is not None:
        trace["mismatch"] = mismatch
    return trace


def profile_to_file(model, inputs, graph_path, plan_path, output, device="cpu", iterations=3, model_name=None,
                    snapshot=None, optimizer=None):
    trace = profile(model, inputs, graph_path, plan_path, device, iterations, model_name, snapshot, optimizer)
    if not trace["gradients_match"]:
        raise PlanError(f"the planned step's gradients differ from the regular step's: {trace['mismatch']}")
    graph_file.write_atomically(output, json.dumps(trace, indent=1) + "\n")
    return trace
