"""What `optimizer.step()` takes beside the training step's own memory (rule P35, docs/MEMORY-MODEL.md):
the state it keeps from step to step and the scratch memory one step allocates and frees.

Both are measured, not looked up: how much scratch a step takes depends on the implementation this
torch picks (one tensor at a time, `foreach` over all weights, or `fused`) and changes between torch
versions: Adam's step takes about two copies of its largest weight one tensor at a time, and one or two
copies of all the weights with `foreach` (1.13 keeps both `sqrt(v)` and the denominator)."""
import copy

import torch

from .memory import TransientMeter
from .program import ExportError

OPTIMIZERS = ("sgd", "momentum", "adam", "adamw")


def optimizer_for(name, model):
    """The optimizer `name` (one of OPTIMIZERS, what `ckptx max-batch --optimizer` knows) over the
    model's weights, with torch's defaults (momentum 0.9): what `export --optimizer` measures."""
    params = [p for p in model.parameters() if p.requires_grad]
    if name == "sgd":
        return torch.optim.SGD(params, lr=1e-3)
    if name == "momentum":
        return torch.optim.SGD(params, lr=1e-3, momentum=0.9)
    if name == "adam":
        return torch.optim.Adam(params)
    if name == "adamw":
        return torch.optim.AdamW(params)
    raise ExportError(f"optimizer must be one of {', '.join(OPTIMIZERS)}, got {name!r}")


def _trained_weights(optimizer):
    return [p for group in optimizer.param_groups for p in group["params"] if p.requires_grad]


def measure_optimizer_step(optimizer, device):
    """{"optimizer", "optimizer_state_bytes", "optimizer_step_workspace_bytes"} of `optimizer` on
    `device`, measured over two steps from an empty state on zero gradients; the weights, their
    gradients and the optimizer's state are as they were afterwards.

    The state is what the first step leaves allocated (its lazily created buffers; a scalar `step`
    counter counts only where it lives on `device`). The workspace is the larger of the two steps' peaks
    above what each leaves: the first also allocates the state, the second is every later step."""
    if not isinstance(optimizer, torch.optim.Optimizer):
        raise ExportError(f"optimizer must be a torch.optim.Optimizer, got {type(optimizer).__name__}")
    weights = _trained_weights(optimizer)
    if not weights:
        raise ExportError("the optimizer has no weights that require gradients")
    kept_state = copy.deepcopy(optimizer.state_dict())
    kept_gradients = [p.grad for p in weights]
    with torch.no_grad():
        kept_weights = [p.detach().clone() for p in weights]
    meter = TransientMeter(device)
    try:
        optimizer.state.clear()
        for p in weights:
            p.grad = torch.zeros_like(p)
        first_peak, state_bytes = meter.peak_and_end(optimizer.step)
        second_peak, second_end = meter.peak_and_end(optimizer.step)
    finally:
        with torch.no_grad():
            for p, w, g in zip(weights, kept_weights, kept_gradients):
                p.copy_(w)
                p.grad = g
        optimizer.load_state_dict(kept_state)
    return {"optimizer": type(optimizer).__name__,
            "optimizer_state_bytes": state_bytes,
            "optimizer_step_workspace_bytes": max(first_peak - state_bytes, second_peak - second_end, 0)}


__all__ = ["measure_optimizer_step", "optimizer_for", "OPTIMIZERS"]
