"""The graph's vertices cut from a recorded Program, by the rules of the LibTorch importer
(docs/FORMAT.md, "Graphs imported from TorchScript"): a vertex is an operation that allocates, with
the in-place operations on its storage; views and reshapes are no vertices (their readers read the
tensor viewed); what parameters, buffers and shapes alone compute is no vertex; at module granularity
consecutive vertices of one module call merge when only the last is read from outside."""
import dataclasses
import math
import typing

import torch

from . import _compat
from .program import ConstantRef, ExportError, InputRef, OutputRef

_FLOP_OPS = {"aten::convolution", "aten::_convolution", "aten::mm", "aten::addmm", "aten::bmm", "aten::baddbmm"}
# torch 2.x's fused attention kernels, each taking (query, key, value, ...) laid out (batch, heads, length, dim).
_ATTENTION_OPS = {"aten::_scaled_dot_product_flash_attention", "aten::_scaled_dot_product_flash_attention_for_cpu",
                  "aten::_scaled_dot_product_efficient_attention", "aten::_scaled_dot_product_cudnn_attention"}


@dataclasses.dataclass
class Vertex:
    index: int
    ops: list  # op indices, execution order (the allocating op first, then in-place ops on its storage)
    input_index: int = -1  # >= 0: the vertex is the model's input with this index
    id: str = ""
    module: str = ""
    call: tuple = ()
    exports: list = dataclasses.field(default_factory=list)  # base refs other vertices or the output read
    deps: list = dataclasses.field(default_factory=list)
    bytes: int = 0
    shape: tuple = ()
    dtype: str = ""
    compute: float = 0.0
    parameter_bytes: int = 0
    parameter_keys: list = dataclasses.field(default_factory=list)  # storage keys of the weights it owns (P5)
    saved_bytes: int = 0
    saved_deps: list = dataclasses.field(default_factory=list)
    saves_output: bool = False
    saves_other: bool = False  # its backward unpacks a saved weight, constant or shape-made tensor
    requires_grad: bool = True  # autograd tracks what it exports (a dropout's mask, a causal mask: no)
    gradient_bytes: int = 0  # P50: of bytes, those of the exported tensors autograd tracks
    reads_without_gradient: list = dataclasses.field(default_factory=list)  # P50: input vertex ids
    draws_random: bool = False  # an op of its forward draws random numbers (P29)
    forward_workspace_bytes: int = 0
    checkpointed_forward_workspace_bytes: int = 0  # P17: autograd keeping nothing it saves
    copied_statics_forward_workspace_bytes: typing.Optional[int] = None  # P49: making its function's copy first
    backward_workspace_bytes: int = 0
    backward_workspace_released_bytes: int = 0
    backward_released_rise_bytes: typing.Optional[int] = None  # P81: that measure, G and own weights' gradients in
    first_backward_node_bytes: typing.Optional[int] = None  # P43: the released measure to its first node
    backward_workspace_partly_released: typing.Optional[tuple] = None  # P48: (bytes, ids of the inputs held)
    passes_gradient_to: list = dataclasses.field(default_factory=list)  # input vertex ids (P15)
    slices_gradient_to: list = dataclasses.field(default_factory=list)  # input vertex ids (P27)
    forms_one_gradient_for: list = dataclasses.field(default_factory=list)  # groups of input vertex ids (P53)
    static_gradient_bytes: int = 0  # P20
    static_gradient_until: str = ""  # P20: the vertex whose backward ends their hold
    static_gradients_held: dict = dataclasses.field(default_factory=dict)  # P20: static ref -> its bytes of them
    slices_gradient_to_statics: bool = False  # P62: some are slices of its own gradient
    # P44, P45, P47: statics made before it that later vertices read too, per set of readers: (bytes,
    # of them what its own backward keeps, what the statics they need save, the readers' indices)
    static_values: list = dataclasses.field(default_factory=list)
    tied_parameter_bytes: int = 0  # P33: of parameter_bytes, weights an earlier vertex reads too
    tied_parameter_until: str = ""  # P33: that earlier reader (the first)
    # P59: the owner of the weights it reads and another owns (P23), where one vertex owns them all;
    # the bytes of their gradient it forms, and what adding that into the owner's sum allocates beyond it
    adds_weight_gradient_to: str = ""
    shared_weight_gradient_bytes: int = 0
    shared_weight_sum_bytes: int = 0


def dtype_name(dtype):
    return str(dtype).replace("torch.", "")


def _module_call(op, depth):
    """The module call an op is attributed to: the innermost one, or with `depth` the deepest whose
    path has at most `depth` dot-separated parts (e.g. 3 cuts nanoGPT at `transformer.h.0`)."""
    if not op.calls:
        return ("", -1)
    if depth is None:
        return op.calls[-1]
    chosen = op.calls[0]
    for call in op.calls:
        if len(call[0].split(".")) <= depth:
            chosen = call
    return chosen


def _op_compute(op, program):
    """FLOPs (a multiply-add counts 2) of convolutions and matrix products, the output element count
    of every other op: the LibTorch importer's rule. A fused attention kernel counts its two products
    (query by keys, weights by values), as the matrix products it replaces would."""
    out_elements = 0
    for info in op.outputs:
        if info is not None:
            n = 1
            for d in info.shape:
                n *= d
            out_elements += n
    name = op.name
    if name in _ATTENTION_OPS:
        query, key, first = _leaf_shape(op, 0, program), _leaf_shape(op, 1, program), op.outputs[0]
        if query and key and first is not None:
            return 2.0 * math.prod(query[:-1]) * key[-2] * (query[-1] + first.shape[-1])
    if name in _FLOP_OPS:
        first = op.outputs[0]
        if name in ("aten::convolution", "aten::_convolution"):
            weight = _leaf_shape(op, 1, program)
            if weight:
                per_output = 1
                for d in weight[1:]:
                    per_output *= d
                return 2.0 * out_elements * per_output
        else:
            operand = _leaf_shape(op, 1 if name in ("aten::addmm", "aten::baddbmm") else 0, program)
            if operand and first is not None:
                return 2.0 * out_elements * operand[-1]
    return float(out_elements)


def _leaf_shape(op, position, program):
    tensors = op.tensor_refs()
    if position >= len(tensors):
        return None
    ref = tensors[position]
    if isinstance(ref, ConstantRef):
        return tuple(ref.value.shape)
    if isinstance(ref, InputRef):
        return program.inputs[ref.index].shape
    info = program.ops[ref.op].outputs[ref.position]
    return info.shape if info is not None else None


class VertexGraph:
    """Vertices, their dependencies and where each op and each value belongs."""

    def __init__(self, program, granularity="module", depth=None):
        if granularity not in ("module", "op"):
            raise ExportError(f"granularity must be module or op, got {granularity!r}")
        self.program = program
        self.granularity = granularity
        self.depth = depth
        self._producers = {}
        self._readers_of_storage = None  # P52, made on first use by tensors()
        self._build()

    # -- producers: which vertex's storage a value reads -------------------------------------------
    def base_refs(self, ref):
        """The refs of allocating/in-place op outputs (or inputs) a value reads, through views."""
        if isinstance(ref, ConstantRef):
            return ()
        if isinstance(ref, InputRef):
            return (ref,)
        cached = self._producers.get(ref)
        if cached is not None:
            return cached
        op = self.program.ops[ref.op]
        if op.kind == "static":
            result = ()
        elif op.kind == "view":
            found = []
            for r in op.tensor_refs():
                for base in self.base_refs(r):
                    if base not in found:
                        found.append(base)
            result = tuple(found)
        else:
            result = (ref,)
        self._producers[ref] = result
        return result

    def vertex_of_ref(self, base):
        if isinstance(base, InputRef):
            return self.input_vertex[base.index]
        return self.vertex_of_op[base.op]

    # -- construction -----------------------------------------------------------------------------
    def _build(self):
        program = self.program
        ops = program.ops
        owner_of_storage = {}
        vertices = []
        self.input_vertex = []
        for i, info in enumerate(program.inputs):
            vertices.append(Vertex(len(vertices), [], input_index=i))
            self.input_vertex.append(len(vertices) - 1)
            if info.storage is not None:
                owner_of_storage[info.storage] = len(vertices) - 1
        group_of_op = {}
        self.buffer_updates = []  # ops of buffer updates from the inputs: their vertices run though nothing reads them
        buffer_owner, pending_updates = {}, {}  # per buffer: its update's vertex; its writes waiting for one
        self.storage_bytes = {}
        for op in ops:
            for info in op.outputs:
                if info is not None and info.storage is not None:
                    self.storage_bytes.setdefault(info.storage, info.storage_bytes)
        for op in ops:
            if op.kind == "allocating":
                v = Vertex(len(vertices), [op.index], call=_module_call(op, self.depth))
                vertices.append(v)
                group_of_op[op.index] = v.index
                for info in op.outputs:
                    if info is not None and info.storage is not None and info.storage not in owner_of_storage:
                        owner_of_storage[info.storage] = v.index
            elif op.updates_buffer is not None:
                # Part of a buffer's update from the inputs (Program._buffer_updates): in the vertex of the
                # last value it or an earlier write of the update reads; a write that reads none (`mul_(m)`)
                # waits for the next one that does, or joins the one before.
                key = op.updates_buffer
                producers = [self.input_vertex[b.index] if isinstance(b, InputRef) else group_of_op[b.op]
                             for r in op.tensor_refs() if r is not op.leaves[op.written] for b in self.base_refs(r)]
                if not producers and key not in buffer_owner:
                    pending_updates.setdefault(key, []).append(op.index)
                    continue
                owner = buffer_owner[key] = max(producers + [buffer_owner.get(key, -1)])
                for index in pending_updates.pop(key, []) + [op.index]:
                    group_of_op[index] = owner
                    vertices[owner].ops.append(index)
                    self.buffer_updates.append(index)
            elif op.kind == "inplace":
                target = op.leaves[op.written]
                bases = self.base_refs(target)
                storage = self._storage_of(target)
                owner = owner_of_storage.get(storage)
                maker = program.ops[bases[0].op] if len(bases) == 1 and isinstance(bases[0], OutputRef) else None
                if owner is None and maker is not None and maker.kind == "updated":
                    # The update allocates, as `static + x` would: one vertex of the two ops.
                    v = Vertex(len(vertices), [maker.index, op.index], call=_module_call(op, self.depth))
                    vertices.append(v)
                    group_of_op[maker.index] = group_of_op[op.index] = v.index
                    owner_of_storage[storage] = v.index
                    continue
                if owner is None:
                    where = op.calls[-1][0] if op.calls else "the top module"
                    raise ExportError(f"{type(program.model).__name__} ({where}): in-place update of a parameter or "
                                      f"buffer from values computed from the input ({op.name}) is not supported")
                if not bases:
                    raise ExportError(f"{op.name}: in-place update of a constant")
                group_of_op[op.index] = owner
                vertices[owner].ops.append(op.index)
        if self.granularity == "module":
            group_of_op, vertices, merged = self._merge_module_calls(group_of_op, vertices)
            owner_of_storage = {s: merged[g] for s, g in owner_of_storage.items()}
        group_of_op, vertices, merged = self._merge_cycles(group_of_op, vertices)
        owner_of_storage = {s: merged[g] for s, g in owner_of_storage.items()}
        self.vertex_of_op = group_of_op
        self._connect(vertices, owner_of_storage)

    def readers(self):
        """Base ref -> indices of the vertices that read it."""
        result = {}
        for v in self.vertices:
            for _, base, _ in self.reads(v):
                result.setdefault(base, set()).add(v.index)
        return result

    def reads(self, vertex):
        """(op index, base ref, producing vertex) for every tensor `vertex` reads from another vertex."""
        return self._reads(vertex, self.vertex_of_op)

    def info_of(self, ref):
        """The TensorInfo of an input or an op output."""
        if isinstance(ref, InputRef):
            return self.program.inputs[ref.index]
        return self.program.ops[ref.op].outputs[ref.position]

    def _storage_of(self, ref):
        if isinstance(ref, ConstantRef):
            return None
        info = self.info_of(ref)
        return info.storage if info is not None else None

    def _reads(self, vertex, group_of_op):
        """(op, base ref, producing vertex) for every tensor an op of `vertex` reads from another vertex."""
        for index in vertex.ops:
            for ref in self.program.ops[index].tensor_refs():
                for base in self.base_refs(ref):
                    producer = self.input_vertex[base.index] if isinstance(base, InputRef) else group_of_op[base.op]
                    if producer != vertex.index:
                        yield index, base, producer

    def _successors(self, vertices, group_of_op):
        """Vertex index -> indices of the vertices that read it."""
        successors = {v.index: set() for v in vertices}
        for v in vertices:
            for _, _, producer in self._reads(v, group_of_op):
                successors[producer].add(v.index)
        return successors

    def _merge(self, groups, group_of_op):
        """One vertex per group of vertices (each group in creation order, the groups too), in the
        place and with the call of its first member; returns the new group_of_op, the vertices and
        old index -> new index."""
        merged, new_vertices = {}, []
        for group in groups:
            ops = sorted(index for m in group for index in m.ops)
            new_vertices.append(Vertex(len(new_vertices), ops, input_index=group[0].input_index, call=group[0].call))
            for m in group:
                merged[m.index] = len(new_vertices) - 1
        self.input_vertex = [merged[g] for g in self.input_vertex]
        return {op: merged[g] for op, g in group_of_op.items()}, new_vertices, merged

    def _merge_module_calls(self, group_of_op, vertices):
        successors = self._successors(vertices, group_of_op)
        for ref in self.program.output_refs:
            if ref is not None:
                for base in self.base_refs(ref):
                    producer = self.input_vertex[base.index] if isinstance(base, InputRef) else group_of_op[base.op]
                    successors[producer].add(-1)
        runs = []
        for v in vertices:
            if v.input_index >= 0:
                runs.append([v])
                continue
            run = runs[-1]
            first = run[0]
            join = first.input_index < 0 and v.call[1] >= 0 and v.call == first.call
            # A vertex stands for one tensor: the run may only feed v (which also rules out a cycle).
            # One no op reads (autograd's copy of what an in-place op overwrites) stays apart: it is
            # no step of the forward, but a saved extra of the vertex whose backward keeps it (P11).
            members = {m.index for m in run}
            if join:
                join = all(successors[m.index] and all(s == v.index or s in members for s in successors[m.index])
                           for m in run)
            if join:
                run.append(v)
            else:
                runs.append([v])
        return self._merge(runs, group_of_op)

    def _merge_cycles(self, group_of_op, vertices):
        """Vertices that read each other become one. An in-place update can read a tensor made from
        the one it updates: Dropout(inplace=True) draws its mask with empty_like(x).bernoulli_() and
        then runs x.mul_(mask), so x's vertex reads the mask's and the mask's reads x's. Merged, the
        mask is a tensor of x's vertex that its backward saves (a saved extra)."""
        successors = self._successors(vertices, group_of_op)
        component = _strongly_connected(list(successors), successors)
        if len(set(component.values())) == len(vertices):
            return group_of_op, vertices, {v.index: v.index for v in vertices}
        members = {}
        for v in vertices:
            members.setdefault(component[v.index], []).append(v)
        return self._merge(list(members.values()), group_of_op)

    def _connect(self, vertices, owner_of_storage):
        program = self.program
        deps = {v.index: set() for v in vertices}
        exports = {v.index: [] for v in vertices}

        def export(producer, base):
            if base not in exports[producer]:
                exports[producer].append(base)

        for v in vertices:
            for _, base, producer in self._reads(v, self.vertex_of_op):
                deps[v.index].add(producer)
                export(producer, base)
        sinks = []
        for ref in program.output_refs:
            if ref is None:
                continue
            for base in self.base_refs(ref):
                producer = self.vertex_of_ref(base)
                export(producer, base)
                if producer not in sinks:
                    sinks.append(producer)
        # Keep what the output needs, and the buffer updates with what they read; nothing else is a vertex.
        needed = set(sinks) | {self.vertex_of_op[i] for i in self.buffer_updates}
        stack = list(needed)
        while stack:
            for d in deps[stack.pop()]:
                if d not in needed:
                    needed.add(d)
                    stack.append(d)
        # An input the output does not depend on (a padding mask of ones, which Hugging Face's SDPA
        # attention tests and then leaves out) is no vertex either: nothing reads it. It stays one of the
        # call's inputs (metadata `inputs`), and a trace's baseline, which holds it, says so (P21).
        self.unread_inputs = [vertices[g].input_index for g in self.input_vertex if g not in needed]
        order = _dependency_order([v for v in vertices if v.index in needed], deps)
        renumber = {old: new for new, old in enumerate(order)}
        self.vertices = []
        for old in order:
            v = vertices[old]
            v.index = renumber[old]
            v.deps = sorted(renumber[d] for d in deps[old])
            v.exports = exports[old]
            self.vertices.append(v)
        self.vertex_of_op = {op: renumber[g] for op, g in self.vertex_of_op.items() if g in renumber}
        self.input_vertex = [renumber.get(g) for g in self.input_vertex]  # None: an unread input
        self.sinks = [renumber[g] for g in sinks]
        self.owner_of_storage = {s: renumber[g] for s, g in owner_of_storage.items() if g in renumber}
        # Tensors of ops the output does not depend on: autograd may still save one (P11).
        self.unread_storages = {s for s, g in owner_of_storage.items() if g not in renumber}
        self._describe()

    def _describe(self):
        program = self.program
        seen_ids = {}
        for v in self.vertices:
            if v.input_index >= 0:
                base = "input"
                v.op = "input"
                info = program.inputs[v.input_index]
                v.bytes = info.storage_bytes
                v.shape, v.dtype = info.shape, dtype_name(info.dtype)
            else:
                first = program.ops[v.ops[0]]
                v.module = first.calls[-1][0] if first.calls else ""
                names = []
                for index in v.ops:
                    if program.ops[index].name not in names:
                        names.append(program.ops[index].name)
                v.op = "+".join(names)
                op_name = first.name.split("::")[-1]
                if self.granularity == "module":
                    base = (v.call[0] if v.call[0] else op_name)
                else:
                    base = f"{v.module}/{op_name}" if v.module else op_name
                storages = set()
                for ref in v.exports:
                    info = program.ops[ref.op].outputs[ref.position]
                    if info.storage is not None and info.storage not in storages:
                        storages.add(info.storage)
                        v.bytes += info.storage_bytes
                exported = program.ops[v.exports[0].op].outputs[v.exports[0].position] if v.exports else None
                if exported is not None:
                    v.shape, v.dtype = exported.shape, dtype_name(exported.dtype)
                v.compute = sum(_op_compute(program.ops[i], program) for i in v.ops)
                v.draws_random = any(program.ops[i].draws_random for i in v.ops)
                if v.exports:
                    v.requires_grad = any(self.info_of(ref).requires_grad for ref in v.exports)
                    tracked = {self.info_of(ref).storage: self.info_of(ref).storage_bytes for ref in v.exports
                               if self.info_of(ref).requires_grad and self.info_of(ref).storage is not None}
                    v.gradient_bytes = sum(tracked.values())
                else:  # a buffer's update, which nothing reads: tracked where its ops' outputs are (P36)
                    v.requires_grad = any(info is not None and info.requires_grad
                                          for i in v.ops for info in program.ops[i].outputs)
            n = seen_ids.get(base, 0) + 1
            seen_ids[base] = n
            v.id = base if n == 1 else f"{base}#{n}"
        # P5: a parameter's gradient exists from the first backward that reads it, that of its
        # topologically last reader (a tied embedding and output layer: the output layer). P30: one
        # that vertices read only through statics is formed where those statics' nodes run, at the
        # backward of their first reader. A frozen one (requires_grad off: fine-tuning a head, LoRA's
        # base weights) gets none and is no vertex's; metadata parameter_bytes still counts it.
        self._statics_of_vertex = {}
        self._place_statics()
        self.weight_owner = {}  # storage key -> the vertex that owns the weight (P5)
        self.read_through_statics = self._weights_read_through_statics()
        formed_at = self._static_weight_gradients_formed_at()
        for vertices, through_statics in ((reversed(self.vertices), False), (self.vertices, True)):
            for v in vertices:
                for index in v.ops:
                    for key in self._parameters_read(program.ops[index]):
                        if key not in program.trained:
                            continue
                        if key not in self.weight_owner and (key in self.read_through_statics) == through_statics:
                            owner = self.vertices[formed_at[key]] if through_statics and key in formed_at else v
                            self.weight_owner[key] = owner
                            owner.parameter_bytes += program.parameters[key][1]
                            owner.parameter_keys.append(key)
        self._static_gradients()
        self._static_values()
        self._tied_weights()
        self._shared_reads = {}
        for v in self.vertices:
            self._shared_weights(v)
        # The sink's shape is the model output's, which may be a view of the sink's tensor.
        if len(self.sinks) == 1 and len(program.output_refs) == 1:
            self.vertices[self.sinks[0]].shape = self.info_of(program.output_refs[0]).shape
        self._saved()
        self._untrack_dead_ends()
        for v in self.vertices:
            v.reads_without_gradient = self._reads_without_gradient(v)

    def _read_with_gradient(self, vertex, tracked_only=False):
        """The vertices `vertex`'s ops read, but through `detach`; with `tracked_only`, only those it
        reads a tensor of that autograd tracks."""
        ops = self.program.ops
        for index in vertex.ops:
            for ref in ops[index].tensor_refs():
                source, detached = ref, False
                while isinstance(source, OutputRef) and ops[source.op].kind == "view" and not detached:
                    detached = ops[source.op].func is torch.ops.aten.detach.default
                    refs = ops[source.op].tensor_refs()
                    source = refs[0] if len(refs) == 1 else None
                if not detached:
                    yield from (self.vertex_of_ref(base) for base in self.base_refs(ref)
                                if not tracked_only or self.info_of(base).requires_grad)

    def _reads_without_gradient(self, vertex):
        """P50: the tracked vertices `vertex` reads and sends no gradient: it reads only their untracked
        tensors (a max-unpooling reads the indices of a max-pooling, not its values) or reads them
        through `detach`."""
        with_gradient = set(self._read_with_gradient(vertex, tracked_only=True))
        return [self.vertices[d].id for d in vertex.deps
                if self.vertices[d].requires_grad and self.vertices[d].input_index < 0 and d not in with_gradient]

    def _untrack_dead_ends(self):
        """P19 for what autograd records but no gradient leaves: a vertex whose tensors reach the outputs
        only through ops that take no gradient (a VQ-VAE's codebook distances, which only argmin reads)
        or through `detach` (a straight-through estimator's `(q - z).detach()`). Its backward never runs:
        its graph goes with its tensor, after its last reader, and with it what it saved. Found by
        walking back from the outputs along the reads of tracked vertices.
        P60: so do the saves of a vertex autograd does not track whose op still recorded a node: a max
        whose values nothing reads, exported for its indices (a straight-through one-hot's `scatter_`
        reads them). Its node hangs off the unread values and goes with them in the forward, so its
        saved indices live only as long as their readers."""
        roots = set(self.sinks)
        roots.update(self.vertex_of_ref(base) for ref in self.program.output_refs if ref is not None
                     for base in self.base_refs(ref))
        live, stack = set(), [r for r in roots if self.vertices[r].requires_grad]
        while stack:
            index = stack.pop()
            if index in live:
                continue
            live.add(index)
            stack.extend(d for d in self._read_with_gradient(self.vertices[index], tracked_only=True)
                         if self.vertices[d].requires_grad)
        dead = set()
        for v in self.vertices:
            saves = v.saves_output or v.saves_other or v.saved_deps or v.saved_bytes
            if (v.requires_grad or saves) and v.index not in live and v.input_index < 0:
                v.requires_grad = False
                v.saved_bytes, v.saved_deps, v.saves_output, v.saves_other = 0, [], False, False
                dead.add(v.index)
        for savers in self._savers_of_storage.values():  # P52's per-tensor savers lose them too
            savers -= dead

    def _weights_read_through_statics(self):
        """P30: the parameters that vertices read only through statics that compute from them (the
        query's and the key-value's parts a packed attention projection splits off, a LayerNorm of
        learned latents, a token expanded to the batch), never themselves or as a whole view (a
        linear layer's transposed weight). No backward of a vertex forms their gradients: the statics'
        nodes do, once the backward of the statics' first reader is done (P20)."""
        read, whole = set(), set()
        for v in self.vertices:
            for index in v.ops:
                op = self.program.ops[index]
                read.update(self._parameters_read(op))
                for ref in op.tensor_refs():
                    if isinstance(ref, ConstantRef):
                        whole.add(_compat.storage_key(ref.value))
                    elif isinstance(ref, OutputRef) and self.program.ops[ref.op].static:
                        whole.add(self._whole_view_of(ref))
        return read - whole

    def _static_weight_gradients_formed_at(self):
        """P30, P87: per weight read only through statics, the vertex at whose backward's end its
        gradient is formed: that of the first reader of a static that reads it, where the static's node
        runs (P20); where several statics read it (a weight-normed block applied three times makes its
        weight three times), the latest of those first readers, whose node runs first."""
        formed_at = {}
        self.static_first_readers = {}  # weight key -> the first readers of the statics that read it
        for index, readers in self.vertices_reading_static.items():
            for ref in self.program.ops[index].tensor_refs():
                if isinstance(ref, ConstantRef):
                    key = _compat.storage_key(ref.value)
                    if key in self.read_through_statics:
                        formed_at[key] = max(formed_at.get(key, readers[0]), readers[0])
                        self.static_first_readers.setdefault(key, set()).add(readers[0])
        return formed_at

    def gradients_not_scratch(self, vertex):
        """The weights whose gradients a backward of `vertex` alone forms and the model does not count
        as its scratch (P8): those it owns (P5), and those its statics read (P30), which in a step
        form at the backward of the statics' first reader, their owner. P87: where `vertex` is the
        first reader of another static over a weight it does not own, that static's node forms a
        term of the weight's gradient at its backward's end and adds it in: scratch."""
        keys = set(vertex.parameter_keys)
        for index in vertex.ops:
            keys.update(k for k in self._parameters_read(self.program.ops[index]) if k in self.read_through_statics
                        and vertex.index not in self.static_first_readers.get(k, ()))
        return keys

    def _place_statics(self):
        """P20: where a step makes what parameters alone compute. apply_plan makes each static just
        before the first vertex that reads it (`first_reader`, `statics_before`), as the model's own
        forward computes a transposed weight or a position bias where it is used, so that autograd's
        engine, which runs the newest ready node first, runs its node right after that vertex's
        backward. Those no vertex reads, those that update a buffer and those that draw random
        numbers, with the statics they read, are made first, once per step (`upfront_statics`).
        A static's value goes once its readers have run (`static_readers`; `read_by_vertices`: those
        a vertex or the output reads, which the step holds for them), as a Python local would; an upfront
        one that statics made later read is held to the step's end (`kept_for_the_step`), since a
        checkpointed function makes those again in its re-forward (an MAE's noise, which the shuffle
        sorts; made once, it cannot be made again).
        The same pass counts every ref's readers (`reader_count`, for the executor's bias adds)."""
        ops = self.program.ops
        self.vertices_reading_static = {}  # static op index -> the vertices that read it, in order
        for v in self.vertices:
            for op in self.statics_read_by(v):
                self.vertices_reading_static.setdefault(op.index, []).append(v.index)
        self.first_reader = {k: self.vertices[readers[0]] for k, readers in self.vertices_reading_static.items()}
        # Nothing reads the `detach` autograd records where a static saves its own result (an exp of a
        # decay, made in the forward): unread, it is not made at all, nor drags what it views upfront.
        read = {r.op for op in ops for r in op.tensor_refs() if isinstance(r, OutputRef)}
        read.update(r.op for r in self.program.output_refs if isinstance(r, OutputRef))
        upfront = set()
        for op in reversed(ops):
            if op.kind == "static" and (op.index in upfront or op.written >= 0 or op.draws_random
                                        or op.index not in self.first_reader and op.index in read):
                upfront.add(op.index)
                upfront.update(r.op for r in op.tensor_refs()
                               if isinstance(r, OutputRef) and ops[r.op].kind == "static")
        self.upfront_statics = [ops[k] for k in sorted(upfront)]
        self.statics_before = {}  # vertex index -> the static ops made just before it
        for op in ops:
            if op.index in upfront:
                self.first_reader.pop(op.index, None)
            elif op.index in self.first_reader:
                self.statics_before.setdefault(self.first_reader[op.index].index, []).append(op)
        placed = upfront | {op.index for made in self.statics_before.values() for op in made}
        self.made_statics = [ops[k] for k in sorted(placed)]  # what a step makes: no unread static
        self.static_readers, self.read_by_vertices = {}, set()
        self.reader_count = {}  # ref -> how many op arguments and model outputs read it
        refs = [(op, ref) for op in ops if op.kind != "static" or op.index in placed for ref in op.tensor_refs()]
        refs += [(None, r) for r in self.program.output_refs]
        for op, ref in refs:
            self.reader_count[ref] = self.reader_count.get(ref, 0) + 1
            if isinstance(ref, OutputRef) and ops[ref.op].kind == "static":
                if op is not None and op.kind == "static":
                    self.static_readers.setdefault(ref.op, set()).add(op.index)
                else:
                    self.read_by_vertices.add(ref.op)
        self.kept_for_the_step = self.read_by_vertices | {
            k for k in upfront if not self.static_readers.get(k, set()) <= upfront}

    def static_values_read_by(self, vertex):
        """The values of statics that `vertex`'s ops read themselves (an LSTM's transposed weights,
        read at every time step), not through views it computes."""
        ops = self.program.ops
        return {ref for index in vertex.ops for ref in ops[index].tensor_refs()
                if isinstance(ref, OutputRef) and ops[ref.op].static}

    def last_static_readers(self):
        """Static value -> the last vertex that reads it (static_values_read_by): its backward, the
        first to run, forms the value's gradient (P20) and the others add into it (P31)."""
        last = {}
        for v in self.vertices:
            for ref in self.static_values_read_by(v):
                last[ref] = v
        return last

    def statics_made_for_earlier(self, vertex):
        """Indices of the statics `vertex` reads that allocate and that the step makes before an earlier
        vertex or upfront (a decay matrix two einsums read): in the step their nodes run at that
        vertex's backward, or the backward's end, not at this one's (P20)."""
        own = {op.index for op in self.statics_before.get(vertex.index, [])}
        return {op.index for op in self.statics_read_by(vertex) if op.index not in own and _allocated_outputs(op)}

    def static_base(self, ref):
        """The static that allocated what static `ref` views (an RWKV block's decay matrix, which two
        einsums read through reshapes of their own): where autograd sums their gradients (P31). `ref`
        itself where it allocates, or where its views lead to a weight."""
        ops, base = self.program.ops, ref
        while True:
            op = ops[base.op]
            refs = [r for r in op.tensor_refs() if isinstance(r, (OutputRef, ConstantRef))]
            viewed = not _allocated_outputs(op) and len(refs) == 1
            if not viewed:
                return base
            if not isinstance(refs[0], OutputRef) or not ops[refs[0].op].static:
                return ref
            base = refs[0]

    def statics_read_by(self, vertex, shared=False):
        """The static ops `vertex` reads, directly, through the views it computes or through other
        statics, in the program's order; with `shared`, also those through which the owners of the
        weights it shares read them (the export's measures read those as their owners do, P23)."""
        found = self._statics_of_vertex.get((vertex.index, shared))
        if found is not None:
            return found
        ops = self.program.ops
        needed, seen = set(), set()
        stack = [ref for index in vertex.ops for ref in ops[index].tensor_refs()]
        if shared:
            stack.extend(self.shared_weight_reads(vertex))
        while stack:
            ref = stack.pop()
            if not isinstance(ref, OutputRef) or ref.op in seen:
                continue
            seen.add(ref.op)
            op = ops[ref.op]
            if op.kind == "static":
                needed.add(op.index)
            if op.kind in ("static", "view"):
                stack.extend(op.tensor_refs())
        found = self._statics_of_vertex[(vertex.index, shared)] = [ops[k] for k in sorted(needed)]
        return found

    def _whole_view_of(self, ref):
        """The parameter a static is all of through views alone (`t`, `view`, `permute`), or None."""
        op = self.program.ops[ref.op]
        refs = op.tensor_refs()
        if len(refs) != 1 or not any(r.alias_info is not None for r in op.func._schema.returns):
            return None
        source = refs[0]
        if isinstance(source, ConstantRef):
            key = _compat.storage_key(source.value)
        elif isinstance(source, OutputRef) and self.program.ops[source.op].static:
            key = self._whole_view_of(source)
        else:
            return None
        info = op.outputs[ref.position]
        if key not in self.program.parameters or info is None:
            return None
        return key if info.nbytes == self.program.parameters[key][1] else None

    def _static_gradients(self):
        """P20: what parameters alone compute and vertices read with a gradient (an LSTM's weights
        transposed at every time step, Swin-V2's position bias, a class token expanded to the batch)
        gets its gradient, in its own shape, at the backward of each vertex that reads it and from
        the node of each static that does. apply_plan makes a static just before its first reader, so
        autograd's engine, which runs the newest ready node first, runs its node (which takes the
        gradient on, to the parameters or the statics it read) once that reader's backward is done;
        a static's readers' nodes run at their own first readers'. Where that is the static's own
        first reader, the gradient comes and goes in that backward (its measured workspace);
        otherwise it is held from there to the end of its first reader's backward: the bytes of the
        vertex whose backward forms it beyond the weights that vertex owns (P5: their gradients take
        those bytes over), `static_gradient_until` its first reader (the earliest, where a vertex
        holds several; none for a static made first, whose node runs after every vertex's backward)."""
        program = self.program
        first = self.first_reader
        upfront = {op.index for op in self.upfront_statics}
        # P56: a weight's view made first (spectral norm's, which its power iteration reads): its node
        # runs last, after every vertex's backward.
        viewed_first = set()
        formed_at = self.last_static_readers()  # static ref -> the vertex whose backward forms its gradient first
        for op in program.ops:
            if op.index in first:
                for ref in op.tensor_refs():
                    if not isinstance(ref, OutputRef):
                        continue
                    if ref.op in upfront and self._whole_view_of(ref) is not None:
                        viewed_first.add(ref)
                    elif ref.op not in first:
                        continue
                    formed_at[ref] = max(formed_at.get(ref, first[op.index]), first[op.index], key=lambda w: w.index)
        direct_readers = {}  # parameter key -> the ops that read it themselves (only P56 asks)
        for op in program.ops if viewed_first else ():
            for ref in op.tensor_refs():
                if isinstance(ref, ConstantRef):
                    direct_readers.setdefault(_compat.storage_key(ref.value), set()).add(op.index)
        until_of = {}  # vertex index -> the earliest first reader of what it holds (-1: the backward's end)
        for ref, v in formed_at.items():
            info = program.ops[ref.op].outputs[ref.position]
            until = first[ref.op].index if ref.op in first else -1  # made first: its node runs last
            if until == v.index or info is None or not info.floating or not info.requires_grad:
                continue
            # A weight v owns takes the gradient's bytes over; not where a view made first (P56) runs
            # its node last, after the weight's other readers gave theirs.
            weights = sum(program.parameters[key][1] for key in self._parameters_read(program.ops[ref.op])
                          if key in v.parameter_keys
                          and (ref not in viewed_first or direct_readers.get(key, set()) <= {ref.op}))
            held = max(0, info.nbytes - weights)
            if held:
                v.static_gradient_bytes += held
                v.static_gradients_held[ref] = held
                until_of[v.index] = min(until_of.get(v.index, until), until)
        for index, until in until_of.items():
            if until >= 0:
                self.vertices[index].static_gradient_until = self.vertices[until].id

    def _static_values(self):
        """P44: the statics apply_plan makes just before a vertex (P20) that later vertices read too (a
        position bias every block reads, a causal mask) stay after it, until the last of their readers
        has run: the storages they allocated that the vertex's run of its statics keeps (not a weight's
        view, not an intermediate only those statics read), at the vertex, grouped by their later
        readers (a causal mask every block reads, a decay matrix only the next einsum reads); and of
        them, those the vertex's own backward keeps (an RWKV block's decay matrix, which its einsum
        saves): its saved extras count them (_saved) while it runs plainly. Last, per group, what the
        statics its readers read save for their own nodes (the exp of the decays the matrix is made
        of): a plain reader after a checkpointed first one makes them again and keeps that (P47)."""
        for index, made in self.statics_before.items():
            v, ran = self.vertices[index], {op.index for op in made}
            allocated = {info.storage for op in made for info in _allocated_outputs(op)}
            held, readers = {}, {}  # storage -> bytes, later readers
            for op in made:
                later = [w for w in self.vertices_reading_static[op.index] if w != index]
                kept = op.index in self.kept_for_the_step or not self.static_readers.get(op.index, set()) <= ran
                if not later or not kept:
                    continue
                for info in op.outputs:
                    if info is not None and info.storage in allocated:
                        held[info.storage] = info.storage_bytes
                        readers.setdefault(info.storage, set()).update(later)
            saved = {key for op in made + [self.program.ops[k] for k in v.ops] for key in op.saved}
            groups = {}  # readers -> [bytes, saved bytes]
            for key, size in held.items():
                group = groups.setdefault(tuple(sorted(readers[key])), [0, 0])
                group[0] += size
                group[1] += size if key in saved else 0
            v.static_values, counted = [], set()  # a storage several groups need counts in the first
            for group, (size, kept) in sorted(groups.items()):
                needed = {op.index for w in group for op in self.statics_read_by(self.vertices[w])}
                remade = {key for op in made if op.index in needed for key in op.saved
                          if key in allocated and key not in held} - counted
                counted |= remade
                v.static_values.append((size, kept, sum(self.storage_bytes[key] for key in remade), list(group)))

    def _tied_weights(self):
        """P33: a weight several vertices read (a tied embedding and output layer, a layer called twice)
        gets a gradient from each reader's backward, and autograd's engine sums them before the weight's
        AccumulateGrad runs, once its first reader's backward (the last to run) is done. A step adding into
        kept gradients frees the rest at once; these wait: per owner (P5), the bytes of the weights an
        earlier vertex reads too, and the earliest such reader."""
        first = {}
        for v in self.vertices:
            for index in v.ops:
                for key in self._parameters_read(self.program.ops[index]):
                    first.setdefault(key, v)
        for v in self.vertices:
            tied = [key for key in v.parameter_keys if first.get(key, v) is not v]
            if tied:
                v.tied_parameter_bytes = sum(self.program.parameters[key][1] for key in tied)
                v.tied_parameter_until = min((first[key] for key in tied), key=lambda w: w.index).id

    def _shared_weights(self, vertex):
        """P23: per weight `vertex` reads itself and another vertex owns (P5; a tied embedding, owned by
        the output layer; P54: a linear layer's earlier calls, owned by its last), the ref through which
        its owner reads it: the weight itself or a static of it (the output layer's transpose). P59: the
        owner, where one vertex owns them all."""
        keys = [key for key in self._weights_read_directly(vertex) if self.weight_owner.get(key, vertex) is not vertex]
        self._shared_reads[vertex.index] = [self._read_through(self.weight_owner[key], key) for key in keys]
        owners = {self.weight_owner[key].id for key in keys}
        if len(owners) == 1:
            vertex.adds_weight_gradient_to = owners.pop()

    def _weights_read_directly(self, vertex):
        """Storage keys of the weights `vertex` reads itself or as a whole view (a linear layer's transposed
        weight, when the layer is called again: a decoder step's output layer), not through a static
        that computes from them."""
        keys = {}
        for index in vertex.ops:
            for ref in self.program.ops[index].tensor_refs():
                if isinstance(ref, ConstantRef):
                    keys[_compat.storage_key(ref.value)] = None
                elif isinstance(ref, OutputRef) and self.program.ops[ref.op].static:
                    key = self._whole_view_of(ref)
                    if key is not None:
                        keys[key] = None
        return keys

    def shared_weight_reads(self, vertex):
        """P23: the refs through which the owners of the weights `vertex` shares read them."""
        return self._shared_reads[vertex.index]

    def _read_through(self, vertex, key):
        for index in vertex.ops:
            for ref in self.program.ops[index].tensor_refs():
                if isinstance(ref, ConstantRef) and _compat.storage_key(ref.value) == key:
                    return ref
                if (isinstance(ref, OutputRef) and self.program.ops[ref.op].static
                        and key in self._parameters_read(self.program.ops[ref.op])):
                    return ref
        raise LookupError(f"{vertex.id} owns a weight it does not read")

    def _parameters_read(self, op, seen=None):
        """Storage keys of the parameters an op reads, directly or through static ops (a transposed weight)."""
        seen = set() if seen is None else seen
        keys = []
        for ref in op.tensor_refs():
            if isinstance(ref, ConstantRef):
                key = _compat.storage_key(ref.value)
                if key in self.program.parameters and key not in keys:
                    keys.append(key)
            elif isinstance(ref, OutputRef) and self.program.ops[ref.op].static and ref.op not in seen:
                seen.add(ref.op)
                for key in self._parameters_read(self.program.ops[ref.op], seen):
                    if key not in keys:
                        keys.append(key)
        return keys

    def _saved(self):
        """What autograd saved for each vertex's backward during the recording (Program ops' `saved`):
        a tensor of another vertex (saved_by of that one), the vertex's own exported tensor, or a
        tensor of its own that no other vertex reads (its saved extras: max-pool indices, a dropout
        mask inside a module, BatchNorm statistics). P20: what the statics made just before it save,
        or it saves of theirs, is its own too (an MLP's activations that make a position bias): their
        nodes run at the end of its backward.
        P11: a tensor no op reads but a backward saves is a saved extra of the topologically first
        vertex that saves it (it lives until the last of their backwards). An in-place op whose
        derivative needs its original input saves a clone made before it writes: ReLU6(inplace=True)
        and Hardtanh(inplace=True) (hardtanh_) keep a copy of their input, ReLU(inplace=True) keeps
        only its result."""
        program = self.program
        weights = set(program.parameters) | set(program.buffers)
        # Not a constant's that a static views (Meta's Llama slices its rotary table, a plain attribute):
        # the model holds that storage.
        static_storages = {info.storage for op in program.ops if op.kind == "static" for info in _allocated_outputs(op)
                           if info.storage is not None and info.storage not in weights}
        claimed = set()
        self._savers_of_storage = {}  # (owner index, storage) -> ids of the vertices that save it (P52)
        for v in self.vertices:
            exported = set()
            for ref in v.exports:
                exported.add(self.info_of(ref).storage)
            extras = {}
            for op in self.statics_before.get(v.index, []):
                for key in op.saved:
                    if key in static_storages and key not in claimed:
                        claimed.add(key)
                        extras[key] = self.storage_bytes[key]
            for index in v.ops:
                for key in program.ops[index].saved:
                    owner = self.owner_of_storage.get(key)
                    if owner is None:
                        claim = (key in self.unread_storages or key in static_storages) and key not in claimed
                        if claim:
                            claimed.add(key)
                            extras[key] = self.storage_bytes[key]
                        if not claim or key in static_storages:  # weights, buffers, constants, statics
                            v.saves_other = True
                        continue
                    if owner != v.index:
                        if owner not in v.saved_deps:
                            v.saved_deps.append(owner)
                        self._savers_of_storage.setdefault((owner, key), set()).add(v.index)
                    elif key in exported:
                        v.saves_output = True
                        self._savers_of_storage.setdefault((owner, key), set()).add(v.index)
                    else:
                        extras[key] = self.storage_bytes[key]
            v.saved_bytes = sum(extras.values())

    def tensors(self, vertex):
        """P52: [(bytes, reader ids, saver ids)] for each tensor `vertex` exports, where it exports
        several that are read or saved apart (a max-pooling's values and indices); None otherwise."""
        if vertex.index in self.sinks:
            return None
        if self._readers_of_storage is None:  # (producer index, storage) -> reader indices, once per export
            self._readers_of_storage = {}
            for base, indices in self.readers().items():
                key = (self.vertex_of_ref(base), self._storage_of(base))
                self._readers_of_storage.setdefault(key, set()).update(indices)
        storages = []
        for ref in vertex.exports:
            info = self.info_of(ref)
            if info.storage is not None and info.storage not in (s for s, _ in storages):
                storages.append((info.storage, info.storage_bytes))
        ids = lambda indices: [self.vertices[i].id for i in sorted(indices)]
        tensors = [(size, ids(self._readers_of_storage.get((vertex.index, storage), ())),
                    ids(self._savers_of_storage.get((vertex.index, storage), ()))) for storage, size in storages]
        if len(tensors) < 2 or all(t[1:] == tensors[0][1:] for t in tensors):
            return None
        return tensors

    def saved_by(self):
        """Vertex index -> ids of the vertices whose backward keeps its tensor (docs/FORMAT.md)."""
        result = {v.index: [] for v in self.vertices}
        for v in self.vertices:
            if v.saves_output:
                result[v.index].append(v.id)
        for consumer in self.vertices:
            for d in consumer.saved_deps:
                result[d].append(consumer.id)
        return result


def _allocated_outputs(op):
    """The outputs `op` allocates: those its schema does not declare a view of an argument (a slice of a
    constant the model holds, `Tensor(a)`), which storage the step did not make."""
    returns = op.func._schema.returns
    return [info for position, info in enumerate(op.outputs) if info is not None and
            (returns[0] if len(returns) == 1 else returns[min(position, len(returns) - 1)]).alias_info is None]


def _strongly_connected(nodes, successors):
    """Node -> a label shared by exactly the nodes of its strongly connected component (Tarjan's
    algorithm with an explicit stack: a model can have many thousands of vertices)."""
    index, low, label = {}, {}, {}
    on_stack, stack, counter = set(), [], 0
    for root in nodes:
        if root in index:
            continue
        work = [(root, iter(sorted(successors[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            advanced = False
            for nxt in edges:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(successors[nxt]))))
                    advanced = True
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    label[member] = node
                    if member == node:
                        break
    return label


def _dependency_order(vertices, deps):
    """Vertices in creation order, except that one comes after everything it reads (an in-place op can
    put a late read into an early vertex)."""
    placed, visiting, order = set(), set(), []
    for v in vertices:
        stack = [(v.index, False)]
        while stack:
            index, expanded = stack.pop()
            if index in placed:
                continue
            if expanded:
                placed.add(index)
                visiting.discard(index)
                order.append(index)
                continue
            if index in visiting:
                raise AssertionError("a dependency cycle survived _merge_cycles")
            visiting.add(index)
            stack.append((index, True))
            for d in sorted(deps[index], reverse=True):
                if d not in placed:
                    stack.append((d, False))
    return order
