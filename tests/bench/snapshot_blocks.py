"""Which blocks make a measured step's peak, from a CUDA memory snapshot that `checkpoint_explorer
profile --snapshot` saved (not a test). For each marked step (`ckptx:step:*`): its peak over the step's
start, the phase it is in (the trace's index, docs/FORMAT.md), and the blocks live there that the
step allocated, grouped by the operator that allocated them (the first ATen or autograd frame of each
block's stack) and by the phase that allocated them. Requested bytes, as `ckptx import-snapshot`
counts. Plain pickle reading: any Python 3, no torch.

    python3 tests/bench/snapshot_blocks.py SNAPSHOT.pickle [--top 20]
"""
import argparse
import collections
import pickle

OPERATOR_FRAMES = ("Backward", "AccumulateGrad", "at::native::", "cudnn", "cublas")


def operator(entry):
    """The first frame that names an operator rather than the allocator."""
    for frame in entry.get("frames", []):
        name = frame.get("name", "")
        if any(k in name for k in OPERATOR_FRAMES) and "Allocator" not in name and "empty" not in name:
            return name[:110]
    return "(no operator frame)"


def events(snapshot, device=0):
    """Allocator events and record_function marks of one device, in time order."""
    marks = [(a["time_us"], 0, a["stage"], a["name"]) for a in snapshot.get("external_annotations", [])
             if a.get("device", device) == device]
    trace = snapshot["device_traces"][device]
    marks += [(e["time_us"], 0, e["frames"][0]["name"], e["frames"][0]["filename"])
              for e in trace if e["action"] == "user_defined" and e.get("frames")]
    merged = [(m[0], 0, i, ("mark",) + m[2:]) for i, m in enumerate(marks)]
    merged += [(e["time_us"], 1, i, ("event", e)) for i, e in enumerate(trace)]
    return [item for *_, item in sorted(merged, key=lambda x: x[:3])]


def steps(snapshot):
    """Per labelled step: start bytes, peak bytes, the peak's phase and the live blocks there."""
    out = {}
    allocated, live, step, phase = 0, {}, None, None
    for item in events(snapshot):
        if item[0] == "mark":
            _, stage, name = item
            if name.startswith("ckptx:step:"):
                step = name.split(":")[2] if stage == "START" else None
                if step:
                    out[step] = {"start": allocated, "peak": allocated, "phase": phase, "live": []}
            elif name.startswith("ckptx:phase:") and stage == "START":
                phase = int(name.split(":")[2])
            continue
        e = item[1]
        if e["action"] == "alloc":
            allocated += e["size"]
            live[e["addr"]] = (e, step, phase)
            if step and allocated > out[step]["peak"]:
                out[step].update(peak=allocated, phase=phase,
                                 live=[(b["size"], p, operator(b)) for b, s, p in live.values() if s == step])
        elif e["action"] == "free_requested":
            allocated -= e["size"]
            live.pop(e["addr"], None)
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("snapshot")
    parser.add_argument("--top", type=int, default=20)
    args = parser.parse_args()
    with open(args.snapshot, "rb") as f:
        snapshot = pickle.load(f)
    for name, s in steps(snapshot).items():
        print(f"step {name}: peak {s['peak'] - s['start']} bytes over its start, in phase {s['phase']}")
        by_operator = collections.defaultdict(lambda: [0, 0, set()])
        for size, phase, op in s["live"]:
            row = by_operator[op]
            row[0] += size
            row[1] += 1
            row[2].add(phase)
        for op, (size, count, phases) in sorted(by_operator.items(), key=lambda kv: -kv[1][0])[:args.top]:
            shown = sorted(phases, key=lambda p: (p is None, p))
            print(f"  {size:>12} in {count:>4} blocks, phases {shown[:4]}{' …' if len(shown) > 4 else ''}: {op}")


if __name__ == "__main__":
    main()
