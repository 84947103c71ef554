"""Exact allocation counts on CPU and CUDA.

CUDA: the caching allocator's `memory_allocated` and `max_memory_allocated` (peak since the last
`reset_peak_memory_stats`), read at boundaries.

CPU: every allocation and free of c10's CPU allocator, as the autograd profiler records it with
`profile_memory=True` (`[memory]` events with signed byte counts, in the order they happened). That is
the same c10 memory reporting `ckptx-torch` installs in C++, so it counts exactly the bytes tensors
occupy (not what malloc or the OS add), and it is in Debian's torch 1.13 and in 2.x. Phase boundaries
are `record_function` markers in the same event stream; the markers' own bookkeeping (a few bytes,
freed at once) is counted with them."""
import torch
import torch.autograd.profiler as autograd_profiler

MARKER = "ckptx:phase:"


def _memory_events(profile, device_type):
    events = []
    for event in profile.kineto_results.events():
        name = event.name()
        if name == "[memory]":
            if event.device_type() == device_type:
                events.append((event.start_us(), 0, event.nbytes()))
        elif name.startswith(MARKER):
            events.append((event.start_us(), 1, int(name[len(MARKER):])))
    # Stable: equal times keep the recorded order (a marker sorts by its start, as recorded).
    events.sort(key=lambda e: e[0])
    return events


class TransientMeter:
    """The scratch memory of one run: its peak above the start minus what it leaves allocated."""

    def __init__(self, device):
        self.device = torch.device(device)

    def measure(self, run):
        if self.device.type == "cuda":
            torch.cuda.synchronize(self.device)
            start = torch.cuda.memory_allocated(self.device)
            torch.cuda.reset_peak_memory_stats(self.device)
            run()
            torch.cuda.synchronize(self.device)
            peak = torch.cuda.max_memory_allocated(self.device) - start
            end = torch.cuda.memory_allocated(self.device) - start
            return max(0, peak - end)
        with autograd_profiler.profile(profile_memory=True) as profile:
            run()
        total = peak = 0
        for _, kind, value in _memory_events(profile, torch._C._autograd.DeviceType.CPU):
            if kind == 0:
                total += value
                peak = max(peak, total)
        return max(0, peak - total)


class PhaseMeter:
    """Memory per training phase (end and peak, absolute bytes) between `phase(i)` calls."""

    def __init__(self, device):
        self.device = torch.device(device)
        self.phases = {}
        self._profile = None
        self._current = None

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
            with autograd_profiler.record_function(f"{MARKER}{index}"):
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
        for _, kind, value in _memory_events(self._profile, torch._C._autograd.DeviceType.CPU):
            if kind == 1:
                if current is not None:
                    self.phases[current] = (total, peak)
                current, peak = value, total
            else:
                total += value
                peak = max(peak, total)
        if current is not None:
            self.phases[current] = (total, peak)
        self._profile = None
        return self.phases
