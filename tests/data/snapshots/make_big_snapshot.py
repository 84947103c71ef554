"""A large synthetic memory snapshot for timing ckptx import-snapshot (docs/BENCHMARKS.md):
python3 make_big_snapshot.py EVENTS OUT.pickle. Not a test fixture; nothing is committed from it."""
import pickle, sys
n = int(sys.argv[1])
frames = [{"filename": f"/lib/python3/site-packages/torch/nn/modules/m{i}.py", "line": i, "name": f"forward{i}"} for i in range(20)]
entries = []
t = 1_713_558_427_168_556
addr = 139_900_000_000_000
live = []
for i in range(n):
    t += 3
    if i % 3 != 2:
        entries.append({"action": "alloc", "addr": addr + i * 512, "size": 512 * (1 + i % 7), "stream": 0, "time_us": t, "frames": frames[i % 5: i % 5 + 12]})
        live.append((addr + i * 512, 512 * (1 + i % 7)))
    else:
        a, s = live.pop()
        entries.append({"action": "free_requested", "addr": a, "size": s, "stream": 0, "time_us": t, "frames": frames[:8]})
        entries.append({"action": "free_completed", "addr": a, "size": s, "stream": 0, "time_us": t, "frames": frames[:8]})
blocks = [{"address": a, "size": s, "requested_size": s, "state": "active_allocated", "frames": frames[:3]} for a, s in live]
snap = {"segments": [{"device": 0, "address": addr, "total_size": 1, "allocated_size": 1, "active_size": 1, "requested_size": 1, "stream": 0, "segment_type": "large", "segment_pool_id": (0, 0), "is_expandable": False, "frames": [], "blocks": blocks}], "device_traces": [entries]}
pickle.dump(snap, open(sys.argv[2], "wb"))
