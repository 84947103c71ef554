"""The graph file `ckptx` reads (docs/FORMAT.md, schema checkpoint-explorer/graph version 1), written
atomically, and its fingerprint computed exactly as core/graph/GraphFingerprint.cpp does, so that a
plan `ckptx solve` made for the file can be checked against the live model."""
import heapq
import json
import os
import struct
import tempfile

_FNV_OFFSET = 14695981039346656037
_FNV_PRIME = 1099511628211
_MASK = (1 << 64) - 1


def _fnv(h, data):
    for byte in data:
        h = ((h ^ byte) * _FNV_PRIME) & _MASK
    return h


def fingerprint(vertex_ids, vertex_bytes, edges):
    """FNV-1a over every vertex id (NUL-terminated) and byte size and every edge's endpoint indices, in
    file order, followed by the virtual source and sink GraphBuilder adds to a graph with several
    sources or sinks (0 bytes; edges to each source / from each sink in topological order)."""
    n = len(vertex_ids)
    succ = [[] for _ in range(n)]
    indegree = [0] * n
    for a, b in edges:
        succ[a].append(b)
        indegree[b] += 1
    has_pred = [d > 0 for d in indegree]
    ready = [v for v in range(n) if indegree[v] == 0]
    heapq.heapify(ready)
    topo = []
    while ready:
        v = heapq.heappop(ready)
        topo.append(v)
        for s in succ[v]:
            indegree[s] -= 1
            if indegree[s] == 0:
                heapq.heappush(ready, s)
    sources = [v for v in topo if not has_pred[v]]
    sinks = [v for v in topo if not succ[v]]
    ids, sizes, all_edges = list(vertex_ids), list(vertex_bytes), list(edges)
    taken = set(ids)
    for name, ends, outgoing in (("__virtual_source__", sources, True), ("__virtual_sink__", sinks, False)):
        if len(ends) <= 1:
            continue
        while name in taken:
            name += "_"
        taken.add(name)
        index = len(ids)
        ids.append(name)
        sizes.append(0)
        all_edges.extend((index, v) if outgoing else (v, index) for v in ends)
    h = _FNV_OFFSET
    for vid, size in zip(ids, sizes):
        h = _fnv(h, vid.encode("utf-8") + b"\0")
        h = _fnv(h, struct.pack("<q", size))
    for a, b in all_edges:
        h = _fnv(h, struct.pack("<q", a))
        h = _fnv(h, struct.pack("<q", b))
    return f"fnv1a64:{h:016x}"


def write_atomically(path, text):
    """Writes `text` through replace_atomically."""
    def write(temporary):
        with open(temporary, "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
    replace_atomically(path, write)


def replace_atomically(path, write):
    """`write(temporary)` fills a temporary file in the same folder, which is then renamed over the
    target: a killed run leaves the old file or none, never a half-written one."""
    target = os.path.realpath(path)  # write through a symbolic link, not over it
    handle, temporary = tempfile.mkstemp(prefix=os.path.basename(target) + ".", suffix=".tmp",
                                         dir=os.path.dirname(target))
    os.close(handle)
    try:
        write(temporary)
        if os.path.exists(target):
            os.chmod(temporary, os.stat(target).st_mode & 0o7777)
        else:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(temporary, 0o666 & ~umask)
        os.replace(temporary, target)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise


def graph_json(vertex_graph, name, metadata):
    """The graph file's JSON object for a VertexGraph."""
    saved_by = vertex_graph.saved_by()
    read = {d for v in vertex_graph.vertices for d in v.deps}
    vertices = []
    for v in vertex_graph.vertices:
        entry = {"id": v.id, "name": v.id, "op": v.op, "bytes": int(v.bytes), "shape": [int(d) for d in v.shape],
                 "dtype": v.dtype}
        if v.input_index < 0:
            entry.update({"module": v.module, "compute": float(v.compute),
                          "parameter_bytes": int(v.parameter_bytes), "saved_bytes": int(v.saved_bytes),
                          "forward_workspace_bytes": int(v.forward_workspace_bytes),
                          "checkpointed_forward_workspace_bytes": int(v.checkpointed_forward_workspace_bytes),
                          "backward_workspace_bytes": int(v.backward_workspace_bytes),
                          "backward_workspace_released_bytes": int(v.backward_workspace_released_bytes)})
            if v.backward_released_rise_bytes is not None:
                entry["backward_released_rise_bytes"] = int(v.backward_released_rise_bytes)
            if v.first_backward_node_bytes is not None:
                entry["first_backward_node_bytes"] = int(v.first_backward_node_bytes)
            if v.copied_statics_forward_workspace_bytes is not None:
                entry["copied_statics_forward_workspace_bytes"] = int(v.copied_statics_forward_workspace_bytes)
            if v.backward_workspace_partly_released is not None:
                partly, held = v.backward_workspace_partly_released
                entry["backward_workspace_partly_released_bytes"] = int(partly)
                entry["backward_workspace_held_inputs"] = held
        else:
            entry["compute"] = 0.0
        entry["saved_by"] = saved_by[v.index]
        if v.saves_other:
            entry["saves_other"] = True
        if not v.requires_grad and v.input_index < 0:
            entry["requires_grad"] = False
        elif v.input_index < 0 and 0 < v.gradient_bytes < v.bytes:
            entry["gradient_bytes"] = int(v.gradient_bytes)
        if v.reads_without_gradient:
            entry["reads_without_gradient"] = v.reads_without_gradient
        tensors = vertex_graph.tensors(v) if v.input_index < 0 else None
        if tensors:
            entry["tensors"] = [{"bytes": int(size), "read_by": read_by, "saved_by": saved}
                                for size, read_by, saved in tensors]
        if v.draws_random:
            entry["draws_random"] = True
        if v.passes_gradient_to:
            entry["passes_gradient_to"] = v.passes_gradient_to
        if v.slices_gradient_to:
            entry["slices_gradient_to"] = v.slices_gradient_to
        if v.forms_one_gradient_for:
            entry["forms_one_gradient_for"] = v.forms_one_gradient_for
        if v.index in vertex_graph.sinks and v.index in read:  # a sink is an output anyway
            entry["output"] = True
        if v.static_gradient_bytes or v.slices_gradient_to_statics:
            entry["static_gradient_bytes"] = int(v.static_gradient_bytes)
            entry["static_gradient_until"] = v.static_gradient_until
        if v.slices_gradient_to_statics:
            entry["slices_gradient_to_statics"] = True
        if v.static_values:
            entry["static_values"] = []
            for size, kept, remade, readers in v.static_values:
                value = {"bytes": int(size), "readers": [vertex_graph.vertices[w].id for w in readers]}
                if kept:
                    value["saved_bytes"] = int(kept)
                if remade:
                    value["remade_saved_bytes"] = int(remade)
                entry["static_values"].append(value)
        if v.tied_parameter_bytes:
            entry["tied_parameter_bytes"] = int(v.tied_parameter_bytes)
            entry["tied_parameter_until"] = v.tied_parameter_until
        if v.adds_weight_gradient_to and v.shared_weight_gradient_bytes:
            entry["adds_weight_gradient_to"] = v.adds_weight_gradient_to
            entry["shared_weight_gradient_bytes"] = int(v.shared_weight_gradient_bytes)
            entry["shared_weight_sum_bytes"] = int(v.shared_weight_sum_bytes)
        vertices.append(entry)
    edges = [{"from": vertex_graph.vertices[d].id, "to": v.id} for v in vertex_graph.vertices for d in v.deps]
    return {"schema": "checkpoint-explorer/graph", "version": 1, "name": name, "metadata": metadata,
            "vertices": vertices, "edges": edges}


def graph_fingerprint(vertex_graph):
    ids = [v.id for v in vertex_graph.vertices]
    sizes = [int(v.bytes) for v in vertex_graph.vertices]
    edges = [(d, v.index) for v in vertex_graph.vertices for d in v.deps]
    return fingerprint(ids, sizes, edges)


def dumps(document):
    return json.dumps(document, indent=1, sort_keys=False) + "\n"
