"""Exact allocation counts on CPU and CUDA.

CUDA: the caching allocator's `memory_allocated` and `max_memory_allocated` (peak since the last
`reset_peak_memory_stats`), read at boundaries.

CPU: every allocation and free of c10's CPU allocator, as the autograd profiler records it with
`profile_memory=True` (`[memory]` events with signed byte counts, in the order they happened). That is
the same c10 memory reporting `ckptx-torch` installs in C++, so it counts exactly the bytes tensors
occupy (not what malloc or the OS add), and it is in Debian's torch 1.13 and in 2.x. Phase boundaries
are empty profiler ranges in the same event stream, which allocate nothing (`profiler_range`)."""
import contextlib
import os
import sys

import torch
import torch.autograd.profiler as autograd_profiler

MARKER = "ckptx:phase:"


def synchronize(device):
    """Waits for the device's queued work, so that a wall-clock time covers it (CUDA runs asynchronously)."""
    if str(device).startswith("cuda"):
        torch.cuda.synchronize()


def _start(event):
    """When a profiler event began: torch 2.x's events give nanoseconds (`start_ns`), 1.13's microseconds."""
    return event.start_ns() if hasattr(event, "start_ns") else event.start_us() * 1000


def _kineto_memory_events(profile):
    """CPU allocations (signed bytes) and phase markers from the profiler's flat event list, in time
    order: where this torch's profiler has no event tree with block addresses."""
    events = []
    for event in profile.kineto_results.events():
        name = event.name()
        if name == "[memory]":
            if event.device_type() == torch._C._autograd.DeviceType.CPU:
                events.append((_start(event), 0, (None, event.nbytes(), ())))
        elif name.startswith(MARKER):
            events.append((_start(event), 1, int(name[len(MARKER):])))
    # Stable: equal times keep the recorded order (a marker sorts by its start, as recorded).
    events.sort(key=lambda e: e[0])
    return events


LIVE_BLOCKS = 12  # the largest blocks named per phase peak


def _operation(ops):
    """Who allocated a block: the backward node or top-level operation it ran under, and the operation
    that asked for it (`SoftmaxBackward0/aten::_softmax_backward_data`, `aten::linear/aten::addmm`)."""
    outer = next((o for o in ops if o.endswith("Backward0") or o.endswith("Backward1")), None)
    outer = outer or next((o for o in ops if o.startswith("aten::")), ops[-1] if ops else "?")
    inner = next((o for o in reversed(ops) if o.startswith("aten::") and o not in
                  ("aten::empty", "aten::empty_like", "aten::empty_strided")), outer)
    return outer if inner == outer else f"{outer}/{inner}"


def _memory_events(profile):
    """CPU allocations (address, signed bytes, operation) and phase markers, in time order.

    A free counts only where the profile saw the block allocated. c10's CPU reporter keeps each
    block's size from its allocation while a profiler runs, and forgets it at a free only while one
    runs: a block allocated under one profile and freed outside it leaves its size behind, and a later
    block at the same address, allocated outside and freed under a profile, is reported with that
    stale size (31 times in one GPT export). Such frees are what `ckptx-torch`'s meter ignores too."""
    tree = getattr(profile.kineto_results, "experimental_event_tree", None)
    if tree is None:
        return _kineto_memory_events(profile)
    events = []
    stack = [(root, ()) for root in tree()]
    while stack:
        event, ops = stack.pop()
        name = event.name
        if name == "[memory]":
            fields = event.extra_fields
            ptr, size = getattr(fields, "ptr", None), getattr(fields, "alloc_size", None)
            if ptr is None or size is None:
                return _kineto_memory_events(profile)
            if str(getattr(fields, "device", "cpu")).startswith("cpu"):
                events.append((event.start_time_ns, 0, (ptr, size, ops)))
        elif name.startswith(MARKER):
            events.append((event.start_time_ns, 1, int(name[len(MARKER):])))
        else:
            name = name.replace("autograd::engine::evaluate_function: ", "")
            stack.extend((child, ops + (name,)) for child in event.children)
    events.sort(key=lambda e: (e[0], e[1]))
    seen, counted = set(), []
    for event in events:
        if event[1] == 0:
            ptr, size, _ = event[2]
            if size > 0:
                seen.add(ptr)
            elif ptr in seen:
                seen.discard(ptr)
            else:
                continue
        counted.append(event)
    return counted


def live_at_peaks(events):
    """Per phase, the largest blocks live at its peak: bytes, the operation that allocated each and the
    phase it was allocated in (`_memory_events`; none where they carry no addresses). Two passes: find
    each phase's peak, then replay to it."""
    if any(kind == 0 and value[0] is None for _, kind, value in events):
        return {}
    # A phase's peak starts at what is live at its marker (as PhaseMeter counts it).
    peak_at, phase, total, peak = {}, None, 0, 0
    for k, (_, kind, value) in enumerate(events):
        if kind == 1:
            phase, peak = value, total
            peak_at[phase] = k
        else:
            total += value[1]
            if phase is not None and total > peak:
                peak = total
                peak_at[phase] = k
    wanted = {k: p for p, k in peak_at.items()}
    live, phase, out = {}, None, {}
    for k, (_, kind, value) in enumerate(events):
        if kind == 1:
            phase = value
        else:
            ptr, size, ops = value
            if size > 0:  # before the first marker: the step's start, phase 0
                live[ptr] = (size, _operation(ops), 0 if phase is None else phase)
            else:
                live.pop(ptr, None)
        if k in wanted:
            blocks = sorted(live.values(), key=lambda b: -b[0])[:LIVE_BLOCKS]
            out[wanted[k]] = [{"bytes": b, "op": op, "since": since} for b, op, since in blocks]
    return out


class TransientMeter:
    """The scratch memory of one run: its peak above the start minus what it leaves allocated."""

    def __init__(self, device):
        self.device = torch.device(device)

    def measure(self, run):
        peak, end = self.peak_and_end(run)
        return max(0, peak - end)

    def peak_and_end(self, run):
        """The run's peak and its end above its start. On CPU the profiler does not see frees of
        blocks allocated before it started (what a backward releases of its forward's tensors), as
        `ckptx-torch import` ignores them; on CUDA the allocator counts them."""
        if self.device.type == "cuda":
            torch.cuda.synchronize(self.device)
            start = torch.cuda.memory_allocated(self.device)
            torch.cuda.reset_peak_memory_stats(self.device)
            run()
            torch.cuda.synchronize(self.device)
            return (torch.cuda.max_memory_allocated(self.device) - start,
                    torch.cuda.memory_allocated(self.device) - start)
        with _native_warnings_silenced(), autograd_profiler.profile(profile_memory=True) as profile:
            run()
        total = peak = 0
        for _, kind, value in _memory_events(profile):
            if kind == 0:
                total += value[1]
                peak = max(peak, total)
        return peak, total


    def peak_after(self, prepare, run):
        """run()'s peak above the memory allocated when it starts, counting the frees of blocks that
        prepare() (run just before it) allocated: what a backward releases of the tensors its
        forward saved, when nothing but autograd holds them. `marks` then holds, per mark number
        that run() marked (a backward node's hook), the peak above that start up to its first mark."""
        self.marks = {}
        if self.device.type == "cuda":
            prepare()
            torch.cuda.synchronize(self.device)
            self._start = torch.cuda.memory_allocated(self.device)
            torch.cuda.reset_peak_memory_stats(self.device)
            run()
            torch.cuda.synchronize(self.device)
            return torch.cuda.max_memory_allocated(self.device) - self._start
        with _native_warnings_silenced(), autograd_profiler.profile(profile_memory=True) as profile:
            prepare()
            PhaseMeter._mark(0)
            run()
        total, start, peak = 0, None, 0
        for _, kind, value in _memory_events(profile):
            if kind == 1 and value == 0:
                start = peak = total
            elif kind == 1:
                self.marks.setdefault(value, peak - start)
            else:
                total += value[1]
                peak = max(peak, total)
        return peak - start

    def mark(self, number):
        """Within peak_after's run: the peak so far goes to `marks[number]` (number > 0), the first
        time only. The allocator's counts are the host's, so a hook on autograd's device thread reads
        them without waiting for the device."""
        if self.device.type == "cuda":
            self.marks.setdefault(number, torch.cuda.max_memory_allocated(self.device) - self._start)
        else:
            PhaseMeter._mark(number)


@contextlib.contextmanager
def profiler_range(name):
    """A `record_function` range that allocates nothing: through the handle torch 2.x's record_function
    uses, where this torch has it. torch 1.13's record_function makes a one-element tensor for its
    handle, which outlives the range: 4 bytes counted in every phase after a marker."""
    try:
        enter, leave = torch.ops.profiler._record_function_enter_new, torch.ops.profiler._record_function_exit
    except (AttributeError, RuntimeError):
        with autograd_profiler.record_function(name):
            yield
        return
    handle = enter(name, None)
    try:
        yield
    finally:
        leave._RecordFunction(handle)


@contextlib.contextmanager
def _native_warnings_silenced():
    """c10 logs to the process's stderr, once per thousand, that the profiler will not report the free
    of a block allocated before it started: expected here, and noise in a user's terminal."""
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with open(os.devnull, "wb") as null:
            os.dup2(null.fileno(), 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


class PhaseMeter:
    """Memory per training phase (end and peak, absolute bytes) between `phase(i)` calls."""

    def __init__(self, device):
        self.device = torch.device(device)
        self.phases = {}
        self._profile = None
        self._current = None
        self.live = {}  # per phase: the largest blocks live at its peak (CPU; live_at_peaks)

    def allocated(self):
        if self.device.type == "cuda":
            torch.cuda.synchronize(self.device)
            return torch.cuda.memory_allocated(self.device)
        return None

    def start(self, baseline):
        """`baseline`: bytes allocated before the step (on CPU the caller tells; c10 reports no total)."""
        self.baseline = baseline
        if self.device.type == "cuda":
            torch.cuda.synchronize(self.device)
            torch.cuda.reset_peak_memory_stats(self.device)
        else:
            self._profile = autograd_profiler.profile(profile_memory=True)
            self._profile.__enter__()

    @staticmethod
    def _mark(index):
        # An empty range in the thread that crosses the boundary (CUDA backward hooks run on
        # autograd's device thread): a phase lasts from its marker to the next one.
        if index is not None:
            with profiler_range(f"{MARKER}{index}"):
                pass

    def phase(self, index):
        """Phase `index` begins now (the previous one ends). Both devices mark it with a
        `record_function` range: on CPU the profiler's stream is split there; on CUDA a memory
        snapshot recorded around the run names its phases."""
        if self.device.type == "cuda":
            torch.cuda.synchronize(self.device)
            now = torch.cuda.memory_allocated(self.device)
            if self._current is not None:
                peak = torch.cuda.max_memory_allocated(self.device)
                self.phases[self._current] = (now, peak)
            torch.cuda.reset_peak_memory_stats(self.device)
            self._current = index
        self._mark(index)

    def stop(self):
        if self.device.type == "cuda":
            self.phase(None)
            return self.phases
        self._mark(None)
        self._profile.__exit__(None, None, None)
        total = self.baseline
        current, peak = None, total
        events = _memory_events(self._profile)
        for _, kind, value in events:
            if kind == 1:
                if current is not None:
                    self.phases[current] = (total, peak)
                current, peak = value, total
            else:
                total += value[1]
                peak = max(peak, total)
        if current is not None:
            self.phases[current] = (total, peak)
        self.live = live_at_peaks(events)
        self._profile = None
        return self.phases
