"""Shared by the Python package's tests: where the built tools are, and one training step."""
import copy
import json
import os
import subprocess
import sys
import tempfile

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(SOURCE, "app", "python"))
sys.path.insert(0, HERE)
BIN = os.environ.get("CKPT_BIN_DIR", os.path.join(SOURCE, "build", "bin"))
CKPTX = os.path.join(BIN, "ckptx")
# Gradients of the planned step against the plain model's: |planned - plain| <= ATOL + RTOL * |plain|.
RTOL, ATOL = 1e-4, 1e-6


def solve(graph, solver, plan, *options):
    """`ckptx solve` with `options` (KEY=VALUE); the optimal solver stops within 20 s."""
    arguments = [a for option in options + (("time-limit=20",) if solver == "optimal" else ()) for a in ("--option", option)]
    subprocess.run([CKPTX, "solve", graph, "--solver", solver, *arguments, "-o", plan], check=True,
                   stdout=subprocess.DEVNULL)


def plan_keeping(graph, plan, keep):
    """Writes to `plan` a plan for `graph` (one no solver makes) whose checkpoints are those `keep` picks
    from every vertex's id; returns them."""
    solve(graph, "checkpoint-all", plan)
    with open(plan) as f:
        document = json.load(f)
    document["checkpoints"] = keep(document["checkpoints"])
    with open(plan, "w") as f:
        json.dump(document, f)
    return document["checkpoints"]


def step(model, inputs, seed=0):
    """One training step's forward and backward (loss = mean of the output); returns the loss and the
    bytes of the distinct activation storages kept for the backward: what autograd saved outside
    checkpointed functions and what those functions keep for their re-forward."""
    parameters = {_key(t) for t in list(model.parameters()) + list(model.buffers())}
    saved = {}

    def pack(tensor):
        key = _key(tensor)
        if key not in parameters:
            saved[key] = _bytes(tensor)
        return tensor

    torch.manual_seed(seed)
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        loss = model(*inputs).float().mean()
    loss.backward()
    for key, size in getattr(model, "checkpoint_inputs", {}).items():
        if key not in parameters:
            saved[key] = size
    return loss.detach(), sum(saved.values())


def _key(t):
    s = t.untyped_storage() if hasattr(t, "untyped_storage") else t.storage()
    return (str(t.device), s.data_ptr())


def _bytes(t):
    s = t.untyped_storage() if hasattr(t, "untyped_storage") else t.storage()
    return s.nbytes()


def first_difference(reference, planned):
    """The first parameter or buffer whose gradient or value differs, or None."""
    for (name, a), (_, b) in zip(reference.named_parameters(), planned.named_parameters()):
        if (a.grad is None) != (b.grad is None):
            return f"{name}: gradient missing on one side"
        if a.grad is not None and not torch.allclose(b.grad, a.grad, rtol=RTOL, atol=ATOL):
            return f"{name}: gradients differ (max {float((a.grad - b.grad).abs().max()):.3g})"
    for (name, a), (_, b) in zip(reference.named_buffers(), planned.named_buffers()):
        if not torch.equal(a, b):
            return f"{name}: buffers differ after one step"
    return None


def planned_copy(model, inputs, solver):
    """apply_plan of `solver`'s plan for `model` exported at `inputs`, on a copy of the model (the plan
    is read when applied; its document is the module's `plan`)."""
    from checkpoint_explorer import apply_plan, export_graph
    with scratch() as folder:
        graph, plan = os.path.join(folder, "graph.json"), os.path.join(folder, "plan.json")
        export_graph(model, inputs, graph)
        solve(graph, solver, plan)
        return apply_plan(copy.deepcopy(model), plan)


def copies(model):
    return copy.deepcopy(model), copy.deepcopy(model)


def scratch():
    return tempfile.TemporaryDirectory(prefix="ckpt-python-")
