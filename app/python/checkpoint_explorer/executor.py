"""Runs a VertexGraph's recorded operations vertex by vertex: the interpreter behind the planned module,
the profiler's steps and the export's per-vertex measurements."""
import torch

from .program import ConstantRef, InputRef, OutputRef

_PRODUCTS = ("aten::mm", "aten::bmm", "aten::addmm", "aten::baddbmm")


class Executor:
    def __init__(self, vertex_graph):
        self.graph = vertex_graph
        self.program = vertex_graph.program
        self.statics = {}
        self.held_gradients = []
        self.adds_in_place = _bias_adds(vertex_graph)
        self._local_drops = {}

    def run_statics(self, vertex=None, ops=None, held=()):
        """What parameters, buffers and shapes alone compute (a transposed weight, `torch.arange(T)`,
        BatchNorm's `num_batches_tracked += 1`), outside any checkpoint, so weights' gradients flow
        through them and buffer updates happen once per step: all a step makes (not those nothing
        reads: one may read a value its placed readers let go, RAFT's coordinates scaled for a
        pyramid level it never samples), with `vertex` only those
        it reads (the export measures one vertex at a time: an LSTM transposes its weights at every
        time step, and running them all for each vertex made its export quadratic in the length), or
        `ops` (the planned step's upfront statics; the others it makes where they are read). A gradient
        reaching the value of an op in `held` stops there, kept in `held_gradients` as it comes."""
        self.statics = {}
        self.held_gradients = []
        if ops is None:
            ops = self.graph.made_statics if vertex is None else self.graph.statics_read_by(vertex, shared=True)
        self.run_static_ops([op for op in ops if op.kind == "static"], self.statics, held)

    def run_static_ops(self, ops, store, held=()):
        """Runs static ops in order, their values into `store` (which they may read, as they may read
        the statics already run). A value only statics of these read goes once they have run (an
        MLP's pre-activation, P20)."""
        def value_of(ref):
            return store[ref] if isinstance(ref, OutputRef) and ref in store else self.static_value(ref)

        ran = set()
        for op in ops:
            flat = self.program.run_op(op, value_of)
            for position, value in enumerate(flat):
                if op.index in held and isinstance(value, torch.Tensor) and value.requires_grad:
                    value = _HeldGradient.apply(value.detach().requires_grad_(), self.held_gradients)
                store[OutputRef(op.index, position)] = value
            ran.add(op.index)
            for ref in op.tensor_refs():
                if (isinstance(ref, OutputRef) and ref.op not in self.graph.kept_for_the_step
                        and self.graph.static_readers.get(ref.op, set()) <= ran):
                    store.pop(ref, None)

    def static_chain(self, ref):
        """The static ops that make `ref`, in program order: its op and the static ops it reads
        through (a weight cast to the autocast dtype, then transposed)."""
        chain, pending = set(), [ref.op]
        while pending:
            index = pending.pop()
            if index in chain:
                continue
            chain.add(index)
            pending.extend(r.op for r in self.program.ops[index].tensor_refs()
                           if isinstance(r, OutputRef) and self.program.ops[r.op].static)
        return [self.program.ops[i] for i in sorted(chain)]

    def static_value(self, ref):
        """A constant, or what run_statics computed."""
        if isinstance(ref, ConstantRef):
            return ref.value
        return self.statics[ref]

    def value(self, ref, env, local):
        """A tensor argument: a constant, a static, an exported tensor in `env`, or a view computed here."""
        if isinstance(ref, ConstantRef):
            return ref.value
        if isinstance(ref, InputRef):
            return env[ref]
        if ref in local:
            return local[ref]
        if ref in env:
            return env[ref]
        if ref in self.statics:
            return self.statics[ref]
        op = self.program.ops[ref.op]
        if op.kind != "view":
            raise LookupError(f"value of op {ref.op} ({op.name}) is not available")
        flat = self.program.run_op(op, lambda r: self.value(r, env, local))
        for position, value in enumerate(flat):
            local[OutputRef(op.index, position)] = value
        return local[ref]

    def run_vertex(self, index, env, rewrite=None, observer=None, statics=(), store=None):
        """Runs vertex `index`'s ops, reading other vertices' exports from `env`, adding its own, after
        the static ops `statics` (into `store`, else `env`). `observer` (the profiler's) is told
        before the vertex runs (its statics included) and is shown its exports after."""
        vertex = self.graph.vertices[index]
        if observer is not None:
            observer.before_vertex(vertex)
        self.run_static_ops(statics, env if store is None else store)
        # An input runs what the model writes into it in place (`x.mul_(2)`), if anything.
        if vertex.input_index >= 0 and not vertex.ops:
            if observer is not None:
                observer.after_vertex(vertex, [env[ref] for ref in vertex.exports if ref in env])
            return
        local = {}
        drops = self._drops(vertex)
        for position, op_index in enumerate(vertex.ops):
            op = self.program.ops[op_index]
            func = torch.ops.aten.add_.Tensor if op_index in self.adds_in_place else None
            flat = self.program.run_op(op, lambda r: self.value(r, env, local), rewrite, func)
            for k, value in enumerate(flat):
                local[OutputRef(op_index, k)] = value
            for ref in drops[position]:
                local.pop(ref, None)
        for ref in vertex.exports:
            env[ref] = local[ref]
        if observer is not None:
            observer.after_vertex(vertex, [local[ref] for ref in vertex.exports])

    def _drops(self, vertex):
        """Per op of the vertex, the values of its own ops and the views it computed that no later op
        of it reads and it does not export: they go then, as a Python function's temporaries do (an
        attention's scores before the division), where holding them to the vertex's end kept them
        beside what comes after."""
        found = self._local_drops.get(vertex.index)
        if found is not None:
            return found
        ops = self.program.ops
        last = {}
        for position, op_index in enumerate(vertex.ops):
            for k in range(len(ops[op_index].outputs)):
                last[OutputRef(op_index, k)] = position
            stack = list(ops[op_index].tensor_refs())
            while stack:
                ref = stack.pop()
                if not isinstance(ref, OutputRef) or ops[ref.op].kind == "static":
                    continue
                if ref in last or ops[ref.op].kind == "view":
                    last[ref] = position
                if ops[ref.op].kind == "view":
                    stack.extend(ops[ref.op].tensor_refs())
        kept = set(vertex.exports)
        found = [[] for _ in vertex.ops]
        for ref, position in last.items():
            if ref not in kept:
                found[position].append(ref)
        self._local_drops[vertex.index] = found
        return found

    def output(self, env):
        local = {}
        return self.program.output_from(lambda r: self.value(r, env, local))

    def last_readers(self, order):
        """For each export, the position in `order` (a list of vertex-index lists) after which no
        step reads it: the step may then drop it, as a Python forward drops a local it no longer uses."""
        position_of = {}
        for step, indices in enumerate(order):
            for index in indices:
                position_of[index] = step
        last = {}
        for v in self.graph.vertices:
            for _, base, _ in self.graph.reads(v):
                last[base] = max(last.get(base, -1), position_of[v.index])
        keep = set()
        for ref in self.program.output_refs:
            if ref is not None:
                keep.update(self.graph.base_refs(ref))
        return {ref: step for ref, step in last.items() if ref not in keep}


def _bias_adds(vertex_graph):
    """The ops to run in place: a linear layer's composite adds the bias in place (`output.add_(bias)`
    after a product, where its input is not a contiguous matrix: an LSTM's batch-first output, a
    permuted feature map), but out of place (`at::add`) while a dispatch mode records it, for
    composite compliance. Where the sum's first operand is a product of the same vertex, through views,
    that nothing else reads, `add_` is what the model itself runs, and no second output-sized tensor."""
    ops = vertex_graph.program.ops
    readers = vertex_graph.reader_count
    found = set()
    for op in ops:
        if op.func is not torch.ops.aten.add.Tensor or op.kind != "allocating" or len(op.tensor_refs()) != 2:
            continue
        ref = op.leaves[0]
        if not isinstance(ref, OutputRef) or op.outputs[0] is None or readers.get(ref) != 1:
            continue
        operand = ops[ref.op].outputs[ref.position]
        if operand is None or (operand.shape, operand.dtype) != (op.outputs[0].shape, op.outputs[0].dtype):
            continue
        while ops[ref.op].kind == "view" and len(ops[ref.op].tensor_refs()) == 1:
            ref = ops[ref.op].tensor_refs()[0]
            if not isinstance(ref, OutputRef) or readers.get(ref) != 1:
                break
        else:
            if (ops[ref.op].name in _PRODUCTS and ops[ref.op].kind == "allocating"
                    and vertex_graph.vertex_of_op.get(ref.op) == vertex_graph.vertex_of_op.get(op.index)):
                found.add(op.index)
    return found


class _HeldGradient(torch.autograd.Function):
    """A static's value whose gradient stops here, kept in `held` as it comes: no copy, and none of
    the nodes before it run (the export's measure of a later reader, P20). An alias, not a view:
    autograd forbids writing into a view a custom Function returned, and a later static may write
    into it (RAFT's in-place ReLU after a convolution of its static coordinates)."""

    @staticmethod
    def forward(ctx, value, held):
        ctx.held = held
        return value.detach()

    @staticmethod
    def backward(ctx, grad):
        ctx.held.append(grad)
        return None, None
