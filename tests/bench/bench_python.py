"""Benchmarks of the Python package (not a test): export time of torchvision models, and the planned
step's time against the regular step's next to the recompute share the plan implies.

    PYTHONPATH=app/python /usr/bin/python3 tests/bench/bench_python.py [--ckptx build/bin/ckptx]
"""
import argparse
import copy
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import torch
import torchvision

from checkpoint_explorer import apply_plan, export_graph


def median_step(module, inputs, steps=3):
    def step():
        start = time.perf_counter()
        module(*inputs).float().mean().backward()
        return time.perf_counter() - start
    step()  # warm-up
    return statistics.median(step() for _ in range(steps))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ckptx", default="build/bin/ckptx")
    parser.add_argument("--batch", type=int, default=8)
    args = parser.parse_args()
    torch.set_num_threads(os.cpu_count())
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads, load {os.getloadavg()[0]:.1f}")
    for name, shape in (("resnet50", (1, 3, 224, 224)), ("resnet50", (args.batch, 3, 224, 224))):
        model = getattr(torchvision.models, name)()
        x = torch.randn(*shape)
        start = time.perf_counter()
        graph = export_graph(model, (x,))
        print(f"export {name} {'x'.join(map(str, shape))} module: {time.perf_counter() - start:.2f} s, "
              f"{len(graph['vertices'])} vertices")
    with tempfile.TemporaryDirectory() as folder:
        for name, shape in (("resnet50", (args.batch, 3, 224, 224)), ("densenet121", (args.batch, 3, 224, 224))):
            model = getattr(torchvision.models, name)()
            x = torch.randn(*shape)
            graph_path, plan_path = os.path.join(folder, "g.json"), os.path.join(folder, "p.json")
            graph = export_graph(model, (x,), graph_path)
            subprocess.run([args.ckptx, "solve", graph_path, "--solver", "feng-acg", "-o", plan_path], check=True,
                           stdout=subprocess.DEVNULL)
            with open(plan_path) as f:
                kept = set(json.load(f)["checkpoints"])
            total = sum(v.get("compute", 0) for v in graph["vertices"])
            again = sum(v.get("compute", 0) for v in graph["vertices"] if v["id"] not in kept)
            exits = sum(v.get("compute", 0) for v in graph["vertices"]
                        if v["id"] in kept and any(e["to"] == v["id"] and e["from"] not in kept for e in graph["edges"]))
            planned = apply_plan(copy.deepcopy(model), plan_path)
            regular = median_step(model, (x,))
            checkpointed = median_step(planned, (x,))
            print(f"{name} {'x'.join(map(str, shape))} feng-acg: regular {regular * 1000:.0f} ms, planned "
                  f"{checkpointed * 1000:.0f} ms (x{checkpointed / regular:.3f}); re-forward share of the "
                  f"forward FLOPs {again / total:.3f} (+{exits / total:.3f} for the exits torch.utils.checkpoint "
                  f"recomputes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
