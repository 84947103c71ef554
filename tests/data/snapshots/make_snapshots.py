"""Writes the memory-snapshot test fixtures of tests/core/io and tests/cli (run with /usr/bin/python3).

Each is a dict shaped like torch.cuda.memory._snapshot() (torch/csrc/cuda/Module.cpp): segments
with blocks, device_traces with alloc / free_requested / free_completed / segment_* entries
carrying addr, size, stream, time_us and frames, and record_function annotations either as
torch 2.4's user_defined trace entries or as torch >= 2.5's external_annotations. The numbers are
small and chosen so the tests can check the phases by hand (see the comments in the tests).
"""
import os
import pickle
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
BASE_ADDR = 139_900_000_000_000  # above 2**32, written as LONG1 like real addresses
T0 = 1_713_558_427_168_556      # a real time_us


class History:
    """A device's trace and the blocks live at its end."""

    def __init__(self):
        self.entries = []
        self.live = {}
        self.next_addr = BASE_ADDR
        self.t = T0
        frame = {"filename": "train.py", "line": 12, "name": "step"}
        self.frames = [frame, frame]  # shared: pickled once, then memo references

    def _entry(self, action, addr, size, **extra):
        self.t += 10
        e = {"action": action, "addr": addr, "size": size, "stream": 0, "time_us": self.t}
        e.update(extra)
        if action == "alloc":
            e["frames"] = self.frames
        self.entries.append(e)

    def alloc(self, size):
        addr = self.next_addr
        self.next_addr += size
        self.live[addr] = size
        self._entry("alloc", addr, size)
        return addr

    def free(self, addr):
        size = self.live.pop(addr)
        self._entry("free_requested", addr, size)
        self._entry("free_completed", addr, size)

    def segment(self, size):
        self._entry("segment_alloc", self.next_addr, size)

    def mark(self, style, stage, name, annotations):
        """A record_function START or END, as torch 2.4 (user_defined) or >= 2.5 (external) writes it."""
        self.t += 10
        if style == "user_defined":
            self.entries.append({"action": "user_defined", "addr": 0, "size": 0, "stream": 0, "time_us": self.t,
                                 "frames": [{"name": stage, "filename": name, "line": 0}]})
        else:
            annotations.append({"device": 0, "time_us": self.t, "stage": stage, "name": name})

    def segments(self, device):
        blocks = [{"address": a, "size": s, "requested_size": s, "state": "active_allocated", "frames": self.frames}
                  for a, s in sorted(self.live.items())]
        blocks.append({"address": self.next_addr, "size": 2048, "requested_size": 0, "state": "inactive",
                       "frames": []})
        total = sum(b["size"] for b in blocks)
        return [{"device": device, "address": BASE_ADDR, "total_size": total, "allocated_size": total - 2048,
                 "active_size": total - 2048, "requested_size": total - 2048, "stream": 0,
                 "segment_type": "large", "segment_pool_id": (0, 0), "is_expandable": False,
                 "frames": [], "blocks": blocks}]


def snapshot(segments, traces, annotations=None):
    s = {"segments": segments, "device_traces": traces,
         "allocator_settings": {"PYTORCH_CUDA_ALLOC_CONF": "", "max_split_size": -1,
                                "garbage_collection_threshold": 0.0, "expandable_segments": False,
                                "roundup_power2_divisions": {"1": 0}}}
    if annotations is not None:
        s["external_annotations"] = annotations
    return s


def marked_step(h, style, annotations, label, as_profile=False):
    """One training step of chain.json (input -> a -> out, V = 3) on the trace's phase index
    0..2V+1 = 0..7, the input's phases (1, its forward, and 6, its backward) unmarked, as
    `checkpoint_explorer profile` marks it. Each phase's range encloses the phase; `as_profile` marks
    as profile does instead: an empty range at each phase's start, the step's range opened just
    after phase 0's marker, so the last phase ends with the step's range. In bytes: 0 before the
    step: nothing; 2 forward of a: +4096 (a); 3 forward of out: +256 scratch, +512 (out), -256;
    4 backward of out: +512 (out's gradient), -512 (out); 5 backward of a: +1024 scratch, +4096
    (a's gradient), -1024, -4096 (a), -512 (out's gradient); 7 after the step: -4096 (a's gradient).
    """
    def phase(p, body):
        h.mark(style, "START", f"ckptx:phase:{p}", annotations)
        if as_profile:
            h.mark(style, "END", f"ckptx:phase:{p}", annotations)
        body()
        if not as_profile:
            h.mark(style, "END", f"ckptx:phase:{p}", annotations)

    live = {}
    if label and not as_profile:
        h.mark(style, "START", label, annotations)
    phase(0, lambda: None)
    if label and as_profile:
        h.mark(style, "START", label, annotations)
    phase(2, lambda: live.update(a=h.alloc(4096)))

    def forward_out():
        scratch = h.alloc(256)
        live["out"] = h.alloc(512)
        h.free(scratch)

    def backward_out():
        live["grad_out"] = h.alloc(512)
        h.free(live.pop("out"))

    def backward_a():
        scratch = h.alloc(1024)
        live["grad_a"] = h.alloc(4096)
        h.free(scratch)
        h.free(live.pop("a"))
        h.free(live.pop("grad_out"))

    phase(3, forward_out)
    phase(4, backward_out)
    phase(5, backward_a)
    phase(7, lambda: h.free(live.pop("grad_a")))
    if label:
        h.mark(style, "END", label, annotations)


def write(name, data, protocol):
    with open(os.path.join(HERE, name), "wb") as f:
        pickle.dump(data, f, protocol=protocol)


def main():
    # torch >= 2.5: external annotations; a labelled regular step, then a checkpointed one labelled as
    # profile labels it (its range opens after phase 0's marker).
    h = History()
    weights = h.alloc(10_000)
    h.segment(1 << 20)
    annotations = []
    inp = h.alloc(1024)
    marked_step(h, "external", annotations, "ckptx:step:regular")
    marked_step(h, "external", annotations, "ckptx:step:checkpointed", as_profile=True)
    write("marked.pickle", snapshot(h.segments(0), [h.entries, []], annotations), 4)

    # torch 2.4: user_defined trace entries; an unlabelled warm-up step and a step cut short.
    h = History()
    h.alloc(10_000)
    h.alloc(1024)
    marked_step(h, "user_defined", None, None)
    marked_step(h, "user_defined", None, None)
    h.mark("user_defined", "START", "ckptx:phase:0", None)
    h.alloc(300)
    write("marked-user-defined.pickle", snapshot(h.segments(0), [h.entries]), 2)

    # No markers, protocol 5; the first allocations happened before recording began.
    h = History()
    before = [h.alloc(8192), h.alloc(2048)]
    h.entries.clear()
    x = h.alloc(1000)
    y = h.alloc(3000)
    h.free(before[1])
    h.free(x)
    h._entry("oom", 0, 1 << 40, device_free=123)
    z = h.alloc(500)
    write("unmarked.pickle", snapshot(h.segments(0), [h.entries]), 5)

    # Histories on two devices.
    h0, h1 = History(), History()
    h0.alloc(100)
    h1.alloc(200)
    h1.alloc(300)
    write("two-devices.pickle", snapshot(h0.segments(0) + h1.segments(1), [h0.entries, h1.entries]), 4)

    # _record_memory_history never ran: segments, empty traces.
    h = History()
    h.alloc(4096)
    write("segments-only.pickle", snapshot(h.segments(0), [[]]), 4)


if __name__ == "__main__":
    sys.exit(main())
