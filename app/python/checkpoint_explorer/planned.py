"""apply_plan: a module whose forward executes a checkpoint plan with torch.utils.checkpoint.

The plan's checkpoints are kept; every other vertex belongs to a segment (a connected component of
non-checkpoints, as `evaluate()` finds them, Feng & Huang Eq. 2) that runs inside one checkpointed
function together with the checkpoints it feeds (its exits), from the tensors it reads (its entries).
Non-reentrant checkpointing re-forwards that function once, at the backward of its last operation,
which is rule S2 of docs/MEMORY-MODEL.md. Segments that feed one exit are re-forwarded together (as
the memory models assume), so they share a function; so do segments whose functions would read
each other's exits."""
import heapq
import json
import warnings

import torch

from . import _compat, graph_file
from .executor import Executor
from .model_inputs import InputError, ModelInputs
from .path_tests import PathTests
from .program import ConstantRef, ExportError, InputRef, OutputRef, describe_call, record, storage_of_ref
from .vertices import VertexGraph


# Paths recorded per input signature: a model whose tests of its inputs come out otherwise at every call
# (a scalar it reads off them) is recorded again each time, and the oldest record goes.
_PATHS_KEPT = 4


class PlanError(Exception):
    """A plan that cannot be applied to this model; the message says why."""


def read_plan(path):
    try:
        with open(path, encoding="utf-8") as f:
            document = json.load(f)
    except OSError as error:
        raise PlanError(f"{path}: {error.strerror}") from None
    except (ValueError, UnicodeDecodeError) as error:
        raise PlanError(f"{path}: not a JSON plan file ({error})") from None
    if not isinstance(document, dict) or document.get("schema") != "checkpoint-explorer/plan":
        raise PlanError(f"{path}: not a checkpoint-explorer plan file (no \"schema\": \"checkpoint-explorer/plan\")")
    if document.get("version") != 1:
        raise PlanError(f"{path}: plan version {document.get('version')!r} is not supported (expected 1)")
    checkpoints = document.get("checkpoints")
    if not isinstance(checkpoints, list) or not all(isinstance(c, str) for c in checkpoints):
        raise PlanError(f"{path}: /checkpoints: expected an array of vertex ids")
    graph = document.get("graph") if isinstance(document.get("graph"), dict) else {}
    document["path"] = path
    document["fingerprint"] = graph.get("fingerprint")
    document["vertex_count"] = graph.get("vertices")
    return document


def plan_steps(vertex_graph, checkpoint_ids):
    """The plan as steps in execution order: each a list of vertex indices and whether it is a
    checkpointed function (it holds non-checkpoints autograd tracks) or vertices computed plainly."""
    vertices = vertex_graph.vertices
    keep = {v.index for v in vertices if v.id in checkpoint_ids or v.input_index >= 0}
    keep.update(vertex_graph.sinks)
    parent = {v.index: v.index for v in vertices}

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    # A segment (component of non-checkpoints) joins the checkpoints it feeds: its exits.
    for v in vertices:
        for d in v.deps:
            if d not in keep:
                parent[find(d)] = find(v.index)
    members = {}
    for v in vertices:
        members.setdefault(find(v.index), []).append(v.index)
    groups = [sorted(m) for m in members.values()]
    # P36: a group of vertices autograd does not track (frozen layers, the model's own torch.no_grad())
    # runs plainly, in its turn: as a function it would hold its inputs to a backward that never
    # re-forwards it.
    return [(group, any(i not in keep for i in group) and any(vertices[i].requires_grad for i in group))
            for group in _condense(groups, vertices)]


def _first_random(groups, vertices):
    """Per group, its first vertex that draws random numbers (P29), or None."""
    return [next((i for i in group if vertices[i].draws_random), None) for group in groups]


def _condense(groups, vertices):
    """Merges groups that read each other (a cycle among them) and orders the result topologically."""
    while True:
        group_of = {i: g for g, members in enumerate(groups) for i in members}
        edges = {g: set() for g in range(len(groups))}
        for v in vertices:
            for d in v.deps:
                a, b = group_of[d], group_of[v.index]
                if a != b:
                    edges[a].add(b)
        order, cycle = _topological(len(groups), edges, _first_random(groups, vertices))
        if cycle is None:
            return [groups[g] for g in order]
        merged = sorted(i for g in cycle for i in groups[g])
        groups = sorted([m for g, m in enumerate(groups) if g not in cycle] + [merged])


def _topological(n, edges, first_random):
    """(order, None), or (None, the groups of one cycle). Groups are numbered by their first vertex; of
    those ready, the lowest runs first, so that a plan runs in the model's own order wherever its steps
    allow. P29: the groups that draw random numbers (`first_random`: each one's first such vertex, or
    None) take their turns by that vertex, so that a plan draws the masks the model draws; one ready
    out of turn waits unless nothing else can run (core/theory/CheckpointFunctions.h, applyPlanOrder,
    follows the same rules)."""
    indegree = [0] * n
    for a in edges:
        for b in edges[a]:
            indegree[b] += 1
    ready = [g for g in range(n) if indegree[g] == 0]
    heapq.heapify(ready)
    drawing = sorted((g for g in range(n) if first_random[g] is not None), key=lambda g: first_random[g])
    done, deferred, turn = set(), [], 0
    order = []
    while ready or deferred:
        if ready:
            g = heapq.heappop(ready)
            if first_random[g] is not None and g != drawing[turn]:
                deferred.append(g)
                continue
        else:
            g = min(deferred)
            deferred.remove(g)
        order.append(g)
        done.add(g)
        while turn < len(drawing) and drawing[turn] in done:
            turn += 1
        if turn < len(drawing) and drawing[turn] in deferred:
            deferred.remove(drawing[turn])
            heapq.heappush(ready, drawing[turn])
        for b in edges[g]:
            indegree[b] -= 1
            if indegree[b] == 0:
                heapq.heappush(ready, b)
    if len(order) == n:
        return order, None
    # Walk predecessors among the rest until a group repeats: that walk closes a cycle.
    rest = set(range(n)) - set(order)
    preds = {g: [a for a in rest if g in edges[a]] for g in rest}
    g = next(iter(rest))
    path = []
    while g not in path:
        path.append(g)
        g = preds[g][0]
    return None, set(path[path.index(g):])


class PlannedModule(torch.nn.Module):
    """`model` with a checkpoint plan applied; parameters and buffers are the model's own."""

    def __init__(self, model, plan, granularity, depth):
        super().__init__()
        self.model = model
        self.plan = plan
        self.granularity = granularity
        self.depth = depth
        self._signatures = {}
        self._structure = None  # (ids, edges) of the graph the plan was verified against
        # Storage -> bytes of the tensors the last forward handed to checkpointed functions: what
        # they keep for their re-forward (torch 1.13 keeps them in a closure, unseen by
        # saved_tensors_hooks; 2.x saves them through autograd).
        self.checkpoint_inputs = {}
        self.observer = None  # the profiler's: told when each vertex runs in the forward
        self._warned_path = self._warned_paths = False

    # What the module lacks, the model has (its layers, a Hugging Face model's `config` and
    # `save_pretrained`), as torch.compile's module answers for the one it compiled.
    def __getattr__(self, name):
        try:
            return super().__getattr__(name)
        except AttributeError:
            if name == "model":
                raise
            return getattr(self.model, name)

    # The model's own state-dict keys, without this module's `model.`: a checkpoint saved while
    # training with the plan loads into the plain model, and the plain model's into this module.
    def state_dict(self, *args, **kwargs):
        return self.model.state_dict(*args, **kwargs)

    def _load_from_state_dict(self, state_dict, prefix, *args):
        under_model = prefix + "model."
        for key in [k for k in state_dict if k.startswith(prefix)]:
            state_dict[under_model + key[len(prefix):]] = state_dict.pop(key)
        metadata = getattr(state_dict, "_metadata", None)  # per module: versions its loading reads
        if metadata is not None:
            for key in [k for k in metadata if prefix == "" or k == prefix[:-1] or k.startswith(prefix)]:
                metadata[(under_model + key[len(prefix):]).rstrip(".")] = metadata[key]
        super()._load_from_state_dict(state_dict, prefix, *args)

    def extra_repr(self):
        return f"plan={self.plan['path']!r}, checkpoints={len(self.plan['checkpoints'])}"

    def vertex_graph(self, inputs):
        """The recorded graph for these inputs (as export_graph takes them; recorded now if this
        signature is new)."""
        return self._prepared(planned_inputs(inputs))["graph"]

    def _prepared(self, inputs):
        # Autocast changes the recorded program (each weight cast to the lower precision first); so do
        # a submodule's mode (a BatchNorm a fine-tuning script keeps in eval), freezing or unfreezing
        # weights (P36) or casting them, and an input that requires grad. The record reads the weights
        # and buffers it was made with: one replaced (load_state_dict(assign=True), a re-tied head) is
        # recorded again.
        device = inputs[0].device.type
        key = (tuple(m.training for m in self.model.modules()), _compat.ambient_autocast(device), inputs.signature(),
               tuple((id(p), p.requires_grad, p.dtype) for p in self.model.parameters()),
               tuple(id(b) for b in self.model.buffers())) + tuple(
            (tuple(t.shape), t.dtype, str(t.device), t.requires_grad) for t in inputs)
        # Per signature, the paths recorded (the latest first): the one whose tests of the inputs'
        # values come out for this call as they did when it was recorded (PathTests).
        paths = self._signatures.setdefault(key, [])
        for position, prepared in enumerate(paths):
            if prepared["tests"].hold(inputs):
                paths.insert(0, paths.pop(position))
                return prepared
        if len(paths) == _PATHS_KEPT and not self._warned_paths:
            self._warned_paths = True
            warnings.warn(f"{type(self.model).__name__}: its tests of the inputs' values keep coming out otherwise "
                          "(a number read off an input with .item()?); apply_plan records the forward again for "
                          "each such call, which costs a forward without autograd", stacklevel=4)
        prepared = self._prepare(inputs)
        paths.insert(0, prepared)
        del paths[_PATHS_KEPT:]
        untested = prepared["tests"].untestable
        if untested and not self._warned_path:
            self._warned_path = True
            warnings.warn(f"{type(self.model).__name__} ({describe_call(untested[0].calls)}) tests a value its forward "
                          f"computes or draws ({untested[0].name}); apply_plan replays the path the first call of "
                          "these shapes took", stacklevel=4)
        return prepared

    def forward(self, *args, **kwargs):
        if not torch.is_grad_enabled() or not any(p.requires_grad for p in self.model.parameters()):
            return self.model(*args, **kwargs)
        inputs = planned_inputs(args, kwargs)
        return self._run(self._prepared(inputs), inputs)

    # -- preparing a signature --------------------------------------------------------------------
    def _prepare(self, inputs):
        # On copies: the call's own tensors are the replay's, and a model that writes an input in place
        # (`x.mul_(2)`) would have it written twice, by the record and by the replay.
        program = record(self.model, inputs.replaced([t.clone() for t in inputs]), saved=False)
        graph = self._verified_graph(program)
        steps = plan_steps(graph, set(self.plan["checkpoints"]))
        readers = graph.readers()
        outputs = {base for r in program.output_refs if r is not None for base in graph.base_refs(r)}
        prepared = []
        for members, checkpointed in steps:
            inside = set(members)
            entries = []
            for index in members:
                for _, base, producer in graph.reads(graph.vertices[index]):
                    if producer not in inside and base not in entries:
                        entries.append(base)
            exits = [ref for index in members for ref in graph.vertices[index].exports
                     if ref in outputs or any(r not in inside for r in readers.get(ref, ()))]
            last_use = {}
            for position, index in enumerate(members):
                for _, base, _ in graph.reads(graph.vertices[index]):
                    last_use[base] = position
            # Inside a function, a tensor goes when its last reader there has run (unless it leaves).
            drop = [[] for _ in members]
            for ref, position in last_use.items():
                if ref not in exits:
                    drop[position].append(ref)
            prepared.append(_Step(members, checkpointed, entries, exits, drop))
        executor = Executor(graph)
        _place_statics(graph, prepared)
        _hold_updated_buffers(self.model, program, graph, prepared)
        # What goes after each function, and after each vertex a plain step runs (P36: a group of
        # untracked vertices is one), as a Python forward drops a local it no longer uses.
        units = [unit for step in prepared for unit in ([step.members] if step.checkpointed else
                                                         [[index] for index in step.members])]
        dropped_after = [[] for _ in units]
        for ref, unit in executor.last_readers(units).items():
            dropped_after[unit].append(ref)
        return {"graph": graph, "executor": executor, "steps": prepared, "dropped_after": dropped_after,
                "tests": PathTests(program)}

    def _verified_graph(self, program):
        """The program cut at the plan's granularity: module, else op (whichever the plan fits). One
        whose graph is the plan's (by fingerprint) comes before one the plan fits only by vertex id: a
        small model's op graph can have as many vertices as its module graph, and the module graph
        every id an op plan keeps (a VAE's), which applied the plan to the other graph."""
        graphs = {}
        for granularity in ((self.granularity,) if self.granularity else ("module", "op")):
            graphs[granularity] = VertexGraph(program, granularity, self.depth)
            if graph_file.graph_fingerprint(graphs[granularity]) == self.plan.get("fingerprint"):
                graphs = {granularity: graphs[granularity]}
                break
        errors = []
        for granularity, graph in graphs.items():
            try:
                self._verify(graph)
                self.granularity = granularity
                return graph
            except PlanError as error:
                errors.append(error)
        raise errors[0]

    def _verify(self, graph):
        structure = ([v.id for v in graph.vertices], [(d, v.index) for v in graph.vertices for d in v.deps])
        if self._structure is not None:
            if structure != self._structure:
                raise PlanError(f"{self.plan['path']}: this call makes a different graph than the one the plan was "
                                "checked against (other inputs, or control flow that depends on their shapes or "
                                "values: a padding mask of ones that the model leaves out, say)")
            return
        wanted = self.plan.get("fingerprint")
        have = graph_file.graph_fingerprint(graph)
        if wanted == have:
            self._structure = structure
            return
        ids = set(structure[0])
        by_path = (self.plan.get("vertex_count") == len(graph.vertices)
                   and all(c in ids for c in self.plan["checkpoints"]))
        if by_path:
            warnings.warn(f"{self.plan['path']}: fingerprint {wanted} differs from this model's {have}; the plan's "
                          "checkpoints are applied by vertex id (module path)", stacklevel=3)
        else:
            # export_graph records training mode: in eval mode dropout is gone from the graph.
            mode = "" if self.model.training else " (the module is in eval mode; export_graph records training mode)"
            raise PlanError(f"{self.plan['path']}: the plan is for another graph (fingerprint {wanted}, this model "
                            f"at these inputs gives {have}{mode}); export this model at the shapes you train "
                            "with, in the autocast you train with, and solve that graph")
        self._structure = structure

    # -- running ----------------------------------------------------------------------------------
    def _run(self, prepared, inputs):
        executor, dropped_after = prepared["executor"], iter(prepared["dropped_after"])
        self.checkpoint_inputs = {}
        executor.run_statics(ops=executor.graph.upfront_statics)
        env = {InputRef(i): t for i, t in enumerate(inputs)}

        def drop():
            for ref in next(dropped_after):
                env.pop(ref, None)

        for step in prepared["steps"]:
            if step.checkpointed:
                self._run_unit(executor, step, env)
                drop()
            else:
                for index in step.members:
                    executor.run_vertex(index, env, observer=self.observer, statics=step.statics_before.get(index, ()),
                                        store=executor.statics)
                    drop()
                    for ref in step.statics_after.get(index, ()):
                        executor.statics.pop(ref, None)
        return executor.output(env)

    def _run_unit(self, executor, step, env):
        calls = [0]

        buffers = executor.program.buffers

        def rewrite(op, leaves):
            # A re-forward must not update BatchNorm's running statistics (or any buffer) again. It
            # reads copies: torch 1.13's native_batch_norm schema does not mark what it writes.
            if calls[0] > 1:
                for position, leaf in enumerate(op.leaves):
                    if isinstance(leaf, ConstantRef) and _compat.storage_key(leaves[position]) in buffers:
                        leaves[position] = leaves[position].clone()
            return leaves

        # A buffer the forward updates from the inputs (an EMA) holds, during the function's re-forward,
        # what the function's forward read: the re-forward computes what the forward did, and an update
        # counts once.
        before = []

        def segment(*tensors):
            calls[0] += 1
            with torch.no_grad():
                now = [buffer.clone() for buffer in step.updated_buffers]
                if calls[0] == 1:
                    before[:] = now
                for buffer, value in zip(step.updated_buffers, before if calls[0] > 1 else ()):
                    buffer.copy_(value)
            local = dict(zip(step.entries, tensors))
            observer = self.observer if calls[0] == 1 else None
            try:
                for position, index in enumerate(step.members):
                    executor.run_vertex(index, local, rewrite, observer, statics=step.statics_before.get(index, ()))
                    for ref in step.drop[position]:
                        local.pop(ref, None)
            finally:  # torch 2.x stops a re-forward early by raising from its last saved tensor's pack
                with torch.no_grad():
                    for buffer, value in zip(step.updated_buffers, now if calls[0] > 1 else ()):
                        buffer.copy_(value)
            return tuple(local[ref] for ref in step.exits)

        entries = [env[ref] for ref in step.entries]
        for tensor in entries:
            key = _compat.storage_key(tensor)
            if key not in self.checkpoint_inputs:
                self.checkpoint_inputs[key] = _compat.storage_bytes(tensor)
        outputs = _compat.checkpoint(segment, *entries)
        for ref, value in zip(step.exits, outputs):
            env[ref] = value


class _Step:
    def __init__(self, members, checkpointed, entries, exits, drop):
        self.members = members
        self.drop = drop  # per member: the refs no later member reads
        self.checkpointed = checkpointed
        self.entries = entries  # refs it reads from earlier steps
        self.exits = exits  # refs later steps or the output read
        self.statics_before = {}  # member -> static ops run just before it (in the function, if one)
        self.statics_after = {}  # member -> refs of statics no later vertex reads (P20; plain steps)
        self.updated_buffers = []  # the buffers updated from the inputs that its ops read or write


def _hold_updated_buffers(model, program, graph, steps):
    """Per checkpointed function, the buffers the forward updates from the inputs (an EMA,
    Program._buffer_updates) that its ops read or write: its re-forward must see them as its forward did."""
    updated = {op.updates_buffer for op in program.ops} - {None}
    if not updated:
        return
    buffers = {_compat.storage_key(buffer): buffer for buffer in model.buffers()}
    for step in steps:
        ops = [program.ops[i] for index in step.members for i in graph.vertices[index].ops]
        ops += [op for statics in step.statics_before.values() for op in statics]
        touched = {storage_of_ref(program, ref) for op in ops for ref in op.tensor_refs()}
        step.updated_buffers = [buffers[key] for key in updated & touched]


def _place_statics(graph, steps):
    """P20: each static runs just before the first vertex that reads it (VertexGraph._place_statics).
    A checkpointed function makes its own copy of each static its members read, just before the first
    of them, so that its re-forward makes it again, as a hand-written checkpoint of the block would,
    and nothing outside holds it for that; the plain steps share one, made before the first of them
    that reads it, which goes after the last (`step.statics_after`), as a Python local would. So does a
    static that vertices read only through other statics (a relative position bias every block
    unsqueezes): before, nothing let it go, and the step held it to its end."""
    returned = {ref.op for ref in graph.program.output_refs if isinstance(ref, OutputRef)}
    place_of = {index: (position, order, index) for position, step in enumerate(steps)
                for order, index in enumerate(step.members)}
    for op in graph.program.ops:
        if op.index not in graph.first_reader:
            continue
        dropped = op.index not in returned
        outputs = [OutputRef(op.index, k) for k in range(len(op.outputs))]
        by_step = {}
        for place in sorted(place_of[index] for index in graph.vertices_reading_static[op.index]):
            by_step.setdefault(place[0] if steps[place[0]].checkpointed else "plain", []).append(place)
        for key, places in by_step.items():
            position, _, index = places[0]
            steps[position].statics_before.setdefault(index, []).append(op)
            if not dropped:
                continue
            if key == "plain":
                last_step, _, last_reader = places[-1]
                steps[last_step].statics_after.setdefault(last_reader, []).extend(outputs)
            else:
                steps[position].drop[max(order for _, order, _ in places)].extend(outputs)


def planned_inputs(example, kwargs=None):
    """A call's inputs: `example` as export_graph takes example inputs, or positional beside `kwargs`."""
    try:
        return ModelInputs.of_example(example) if kwargs is None else ModelInputs.of(example, kwargs)
    except InputError as error:
        raise PlanError(f"the planned module takes tensors: {error}") from None


def apply_plan(model, plan_path, granularity=None, depth=None, example_inputs=None):
    """A module whose forward runs `model` with the plan's checkpoints (torch.utils.checkpoint,
    non-reentrant where the installed torch has it). The plan must come from the graph that
    `export_graph` writes for this model (checked by fingerprint at the first forward, or at once with
    `example_inputs`); a module-granularity plan from `ckptx-torch import` of the same model applies by
    module path when it names as many vertices as this export has."""
    if not isinstance(model, torch.nn.Module):
        raise PlanError(f"expected a torch.nn.Module, got {type(model).__name__}")
    plan = read_plan(plan_path)
    planned = PlannedModule(model, plan, granularity, depth)
    if example_inputs is not None:
        inputs = planned_inputs(example_inputs)
        try:
            planned._prepare(inputs)
        except ExportError as error:
            raise PlanError(str(error)) from None
    return planned
