"""The tests a recorded forward's path took on the values of its inputs. A model may branch on what its
inputs hold, not only on their shapes: Hugging Face's SDPA attention leaves out a padding mask that is
all ones (`torch.all(mask == 1)`). A record is the path one call took, so the planned module, before it
replays a record for another call of the same shapes, runs those tests on the call's inputs and
records the forward again where one comes out otherwise (replayed, the masked batch trained as if
nothing were padded)."""
import torch

from . import _compat
from .program import ConstantRef, InputRef, OutputRef


class PathTests:
    def __init__(self, program):
        self.program = program
        self.expected = []  # the values the tests returned in the record, in program order
        self._tests = set()
        needed = set()
        # Tests of values the forward computes with the weights (a hidden state's norm) cannot be run
        # before the forward, nor can those of random numbers it draws (LayerDrop's `torch.rand([]) <
        # p`: running them would draw numbers the model's step does not) or of what it writes in place
        # (an input, a buffer: running them would write it twice); the planned module says it replays
        # the recorded path there.
        self.untestable = []
        for op in program.ops:
            if not op.values:
                continue
            cone = _cone(program, op)
            if any(_reads_weights(program, program.ops[i]) or program.ops[i].draws_random
                   or _writes_what_it_did_not_make(program, program.ops[i]) for i in cone):
                self.untestable.append(op)
                continue
            needed |= cone
            self._tests.add(op.index)
            self.expected.extend(op.values)
        self._ops = [program.ops[i] for i in sorted(needed)]

    def hold(self, inputs):
        """Whether every test comes out for `inputs` (the call's tensors, as recorded) as it did."""
        if not self._ops:
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
        return got == self.expected


def _cone(program, op):
    """The indices of the ops whose outputs `op` reads, through any chain, and its own."""
    cone, pending = set(), [op.index]
    while pending:
        index = pending.pop()
        if index not in cone:
            cone.add(index)
            pending.extend(r.op for r in program.ops[index].tensor_refs() if isinstance(r, OutputRef))
    return cone


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
