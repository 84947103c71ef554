"""The time of the record apply_plan makes of each new input signature (`program.record(...,
saved=False)`: one forward without autograd, under the recorder's modes), median of 11 per model. Run it
with PYTHONPATH at each version of the package to compare, alternating (docs/BENCHMARKS.md):

    PYTHONPATH=/tmp/before/app/python OMP_NUM_THREADS=1 /usr/bin/python3 tests/bench/bench_record.py
    PYTHONPATH=app/python OMP_NUM_THREADS=1 /usr/bin/python3 tests/bench/bench_record.py
"""
import os
import statistics
import sys
import time

import torch
import torchvision

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "python"))
import models  # noqa: E402
from checkpoint_explorer import program  # noqa: E402


def main():
    torch.set_num_threads(1)
    cases = {"resnet50 8x3x64x64": (torchvision.models.resnet50(), (torch.randn(8, 3, 64, 64),)),
             "gpt_bench 8x128 int64": (models.gpt_bench(), (torch.randint(0, 1000, (8, 128)),))}
    for name, (model, inputs) in cases.items():
        times = []
        for _ in range(11):
            start = time.perf_counter()
            program.record(model, inputs, saved=False)
            times.append(time.perf_counter() - start)
        print(f"{name}: median {statistics.median(times):.3f} s", flush=True)


if __name__ == "__main__":
    main()
