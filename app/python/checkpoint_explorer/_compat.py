"""What differs between the torch versions the package runs on (Debian's 1.13, PyTorch 2.x), found by
feature detection: never by comparing version strings."""
import contextlib
import inspect
import sys

import torch
import torch.utils._pytree as _pytree
import torch.utils.checkpoint
from torch.utils._python_dispatch import TorchDispatchMode  # noqa: F401  (1.13 and 2.x)
from torch.overrides import TorchFunctionMode  # noqa: F401  (1.13 and 2.x)
from torch.utils._pytree import tree_flatten, tree_unflatten  # noqa: F401

_CHECKPOINT_PARAMETERS = inspect.signature(torch.utils.checkpoint.checkpoint).parameters

# torch 2.2+ names it without the underscore (and warns on the old name).
register_pytree_node = getattr(_pytree, "register_pytree_node", None) or _pytree._register_pytree_node
SUPPORTED_PYTREE_NODES = _pytree.SUPPORTED_NODES


def storage_key(tensor):
    """Identity of a tensor's storage (device, address), or None when it occupies no memory."""
    storage = tensor.untyped_storage() if hasattr(tensor, "untyped_storage") else tensor.storage()
    nbytes = storage.nbytes()
    if nbytes == 0:
        return None
    return (str(tensor.device), storage.data_ptr())


def storage_bytes(tensor):
    storage = tensor.untyped_storage() if hasattr(tensor, "untyped_storage") else tensor.storage()
    return int(storage.nbytes())


def checkpoint(function, *args):
    """torch.utils.checkpoint, non-reentrant where the installed torch has it: that variant keeps the
    forward's autograd graph (so gradients reach tensors the function only closes over, like weights
    transposed outside it) and recomputes the whole function at the first unpack of a saved tensor,
    i.e. each segment once, at the backward of its last operation that saved something."""
    kwargs = {}
    if "use_reentrant" in _CHECKPOINT_PARAMETERS:
        kwargs["use_reentrant"] = False
    if "preserve_rng_state" in _CHECKPOINT_PARAMETERS:
        kwargs["preserve_rng_state"] = True
    return torch.utils.checkpoint.checkpoint(function, *args, **kwargs)


def _reentrant_plainly(function, _preserve_rng_state, *args):
    return function(*args)


def _without_reentrant_plainly(function, _preserve_rng_state=True, *args, **kwargs):
    return function(*args, **kwargs)


def _around_plainly(*_args, **_kwargs):
    yield


def checkpoint_internals():
    """Where torch.utils.checkpoint runs a checkpointed function, as (owner, attribute, a stand-in that
    runs it plainly): the reentrant variant's autograd Function (1.13 and 2.x), and the non-reentrant
    variant's helper that calls it (1.13) or the generator its call runs between (2.x)."""
    module = torch.utils.checkpoint
    internals = []
    if hasattr(module, "CheckpointFunction"):
        internals.append((module.CheckpointFunction, "apply", staticmethod(_reentrant_plainly)))
    if hasattr(module, "_checkpoint_without_reentrant_generator"):
        internals.append((module, "_checkpoint_without_reentrant_generator", _around_plainly))
    elif hasattr(module, "_checkpoint_without_reentrant"):
        internals.append((module, "_checkpoint_without_reentrant", _without_reentrant_plainly))
    # torch 2.x's composable `checkpoint(module)` imported the generator under its own name.
    composable = sys.modules.get("torch.distributed._composable.checkpoint_activation")
    if hasattr(composable, "_checkpoint_without_reentrant_generator"):
        internals.append((composable, "_checkpoint_without_reentrant_generator", _around_plainly))
    return internals


def saving_nothing():
    """The context a checkpointed function's forward runs in: the non-reentrant variant records the
    graph but packs each saved tensor as a placeholder, the reentrant one runs without autograd."""
    if has_non_reentrant_checkpoint():
        return torch.autograd.graph.saved_tensors_hooks(lambda tensor: None, lambda packed: None)
    return torch.no_grad()


def checkpoint_early_stop():
    """Whether the non-reentrant re-forward stops once the last saved tensor is recomputed (the torch
    2.x implementation, which has `set_checkpoint_early_stop`; on by default) instead of running the
    whole function again (1.13). The `pytorch` memory model reads it from the graph (P9)."""
    return hasattr(torch.utils.checkpoint, "set_checkpoint_early_stop")


def has_non_reentrant_checkpoint():
    return "use_reentrant" in _CHECKPOINT_PARAMETERS


def is_write_argument(argument):
    info = argument.alias_info
    return info is not None and info.is_write


_SEEDED = getattr(getattr(torch, "Tag", None), "nondeterministic_seeded", None)


def draws_random(func):
    """The op draws from the random-number generator: torch tags such ops `nondeterministic_seeded`
    (bernoulli_, native_dropout, randn, ...); a torch without tags tells nothing."""
    return _SEEDED is not None and _SEEDED in getattr(func, "tags", ())


_DYNAMIC_SHAPE = getattr(getattr(torch, "Tag", None), "dynamic_output_shape", None)


def dynamic_output_shape(func):
    """The op's output shapes may depend on its inputs' values (nonzero, unique, indexing): torch tags
    such ops `dynamic_output_shape`; a torch without tags tells nothing."""
    return _DYNAMIC_SHAPE is not None and _DYNAMIC_SHAPE in getattr(func, "tags", ())


AUTOCAST_DTYPES = {"bfloat16": torch.bfloat16, "float16": torch.float16}


def ambient_autocast(device_type):
    """The autocast dtype in effect for `device_type` ("bfloat16", "float16"), or None. torch 2.4+ takes
    the device type (`torch.get_autocast_dtype`); earlier ones have a function per device."""
    if hasattr(torch, "get_autocast_dtype"):
        enabled, dtype = torch.is_autocast_enabled(device_type), torch.get_autocast_dtype(device_type)
    elif device_type == "cpu":
        enabled, dtype = torch.is_autocast_cpu_enabled(), torch.get_autocast_cpu_dtype()
    else:
        enabled, dtype = torch.is_autocast_enabled(), torch.get_autocast_gpu_dtype()
    if not enabled:
        return None
    return next((name for name, d in AUTOCAST_DTYPES.items() if d == dtype), None)


def backward_outside_autocast(device_type):
    """A step's backward runs after its autocast region (a training script calls backward() outside
    it); one run inside it casts the backward's products too, and on torch 2.1-2.4 CUDA its device
    thread casts to float16 whatever the region's dtype."""
    return torch.autocast(device_type, enabled=False)


def autocast(device_type, dtype_name):
    """torch.autocast for `device_type` with a dtype of AUTOCAST_DTYPES, or a context doing nothing for None."""
    if dtype_name is None:
        return contextlib.nullcontext()
    return torch.autocast(device_type, dtype=AUTOCAST_DTYPES[dtype_name])
