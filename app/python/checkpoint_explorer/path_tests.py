"""The tests a recorded forward's path took on the values of its inputs. A model may branch on what its
inputs hold, not only on their shapes: Hugging Face's SDPA attention leaves out a padding mask that is
all ones (`torch.all(mask == 1)`); it may read numbers off them (`.item()`, `lengths.tolist()`) and pass
them on as sizes, or read the shape of what a mask picks (`hidden[mask].size(0)`). A record is the path
one call took, so the planned module, before it replays a record for another call of the same shapes,
runs those tests on the call's inputs and records the forward again where one comes out otherwise
(replayed, the masked batch trained as if nothing were padded)."""
import torch

from . import _compat
from .program import ConstantRef, InputRef, OutputRef, read_values


class PathTests:
    def __init__(self, program):
        self.program = program
        # The values the tests returned in the record: the ops' in program order, the reads', the shapes'.
        self.expected = []
        self._tests = set()  # the indices of the ops whose Python numbers are tested
        self._reads = []  # the ValueReads of values tested
        self._shapes = []  # (op, whether a stand-in for its indexed tensor will do) whose output shapes are
        needed = set()
        # Tests of values the forward computes with the weights (a hidden state's norm) cannot be run
        # before the forward, nor can those of random numbers it draws (LayerDrop's `torch.rand([]) <
        # p`: running them would draw numbers the model's step does not) or of what it writes in place
        # (an input, a buffer: running them would write it twice); the planned module says it replays
        # the recorded path there.
        self.untestable = []
        # A shape read tests the ops of value-dependent output shape its tensor's shape depends on.
        shaped = sorted({i for read in program.reads if read.shape for i in program.dynamic_shapes[read.ref]})
        tests = ([("values", op, [op.index]) for op in program.ops if op.values] +
                 [("read", read, _producers(read.tensor_refs())) for read in program.reads if not read.shape])
        for index in shaped:
            op = program.ops[index]
            # The shape of `hidden[mask]` is the mask's business: the hidden states, computed with the
            # weights, are stood in for by a tensor of their shape.
            stand_in = _boolean_index_of_static_shape(program, op)
            tests.append(("stand-in" if stand_in else "shape", op, _producers(op.leaves[1:]) if stand_in else [index]))
        for kind, test, roots in tests:
            cone = _cone(program, roots)
            if any(_reads_weights(program, program.ops[i]) or program.ops[i].draws_random
                   or _writes_what_it_did_not_make(program, program.ops[i]) for i in cone):
                self.untestable.append(test)
                continue
            needed |= cone
            if kind == "values":
                self._tests.add(test.index)
                self.expected.extend(test.values)
            elif kind == "read":
                self._reads.append(test)
            else:
                self._shapes.append((test, kind == "stand-in"))
        self.expected.extend(value for read in self._reads for value in read.values)
        self.expected.extend(info.shape for op, _ in self._shapes for info in op.outputs if info is not None)
        self._ops = [program.ops[i] for i in sorted(needed)]

    def hold(self, inputs):
        """Whether every test comes out for `inputs` (the call's tensors, as recorded) as it did."""
        if not self._ops and not self._reads and not self._shapes:
            return True
        values = {}

        def value_of(ref):
            if isinstance(ref, InputRef):
                return inputs[ref.index]
            if isinstance(ref, ConstantRef):
                return ref.value
            return values[ref]

        got = []
        with torch.no_grad():
            for op in self._ops:
                flat = self.program.run_op(op, value_of)
                for position, value in enumerate(flat):
                    values[OutputRef(op.index, position)] = value
                if op.index in self._tests:
                    got.extend(value for value in flat if isinstance(value, (bool, int, float)))
            for read in self._reads:
                got.extend(read_values(value_of(read.ref)))
            for op, stand_in in self._shapes:
                outputs = self._outputs_standing_in(op, value_of) if stand_in else [
                    values[OutputRef(op.index, position)] for position, info in enumerate(op.outputs) if info is not None]
                got.extend(tuple(value.shape) for value in outputs)
        return got == self.expected

    def _outputs_standing_in(self, op, value_of):
        """A boolean index's outputs run on a stand-in for the indexed tensor, of its shape: the shape of
        `hidden[mask]` is the mask's business, and the hidden states are computed with the weights."""
        leaves = [value_of(leaf) if isinstance(leaf, (InputRef, ConstantRef, OutputRef)) else leaf
                  for leaf in op.leaves[1:]]
        index = next(leaf for leaf in leaves if isinstance(leaf, torch.Tensor))
        leaves.insert(0, torch.empty((), dtype=torch.bool, device=index.device).expand(
            _shape_of(self.program, op.leaves[0])))
        args, kwargs = _compat.tree_unflatten(leaves, op.spec)
        flat, _ = _compat.tree_flatten(op.func(*args, **kwargs))
        return [value for value in flat if isinstance(value, torch.Tensor)]


def _producers(leaves):
    return [leaf.op for leaf in leaves if isinstance(leaf, OutputRef)]


def _cone(program, indices):
    """The indices of the ops `indices` name and of those whose outputs they read, through any chain."""
    cone, pending = set(), list(indices)
    while pending:
        index = pending.pop()
        if index not in cone:
            cone.add(index)
            pending.extend(r.op for r in program.ops[index].tensor_refs() if isinstance(r, OutputRef))
    return cone


def _boolean_index_of_static_shape(program, op):
    """`x[mask]` where x's shape is the signature's business (not value-dependent itself)."""
    return (op.func is torch.ops.aten.index.Tensor and isinstance(op.leaves[0], (InputRef, ConstantRef, OutputRef))
            and op.leaves[0] not in program.dynamic_shapes)


def _shape_of(program, ref):
    if isinstance(ref, InputRef):
        return program.inputs[ref.index].shape
    if isinstance(ref, ConstantRef):
        return ref.value.shape
    return program.ops[ref.op].outputs[ref.position].shape


def _reads_weights(program, op):
    return any(isinstance(r, ConstantRef) and isinstance(r.value, torch.Tensor)
               and _compat.storage_key(r.value) in program.parameters for r in op.tensor_refs())


def _writes_what_it_did_not_make(program, op):
    """The op writes in place a tensor that no allocating op of the forward made: an input, a buffer,
    or a view, which may be of either."""
    if op.written < 0:
        return False
    target = op.leaves[op.written]
    return not (isinstance(target, OutputRef) and program.ops[target.op].kind == "allocating")
