"""What apply_plan's executor costs before any recompute (not a test): the peak of one training step of
the plain model against the same model under apply_plan with a plan that keeps every vertex, both
measured on CPU by the package's TransientMeter (c10's allocator events; peaks above the step's start).

    PYTHONPATH=app/python /usr/bin/python3 tests/bench/bench_plain_step.py [--ckptx build/bin/ckptx]
        [--module FILE.py] [--models gpt_bench:8x128:int64:1000,lstm_lm:8x128:int64:500]
"""
import argparse
import importlib.util
import os
import tempfile

import torch

from bench_acceptance import package, run
from checkpoint_explorer import apply_plan
from checkpoint_explorer.cli import make_inputs
from checkpoint_explorer.memory import TransientMeter

HERE = os.path.dirname(os.path.abspath(__file__))


def step_peak(module, inputs):
    def step():
        output = module(*inputs)
        (output[0] if isinstance(output, tuple) else output).float().sum().backward()

    peaks = []
    for _ in range(2):  # the second: after a warm-up, as in training
        for p in module.parameters():
            p.grad = None
        peaks.append(TransientMeter("cpu").peak_and_end(step)[0])
    return peaks[-1]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ckptx", default="build/bin/ckptx")
    parser.add_argument("--module", default=os.path.join(HERE, "..", "python", "models.py"))
    parser.add_argument("--models", default="gpt_bench:8x128:int64:1000,lstm_lm:8x128:int64:500")
    args = parser.parse_args()
    spec = importlib.util.spec_from_file_location("bench_models", args.module)
    factories = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(factories)
    print("| model, input | plain step | apply_plan, every vertex kept | ratio |\n|---|---:|---:|---:|")
    for entry in args.models.split(","):
        name, shapes = entry.split(":", 1)
        specs = shapes.split("+")
        with tempfile.TemporaryDirectory() as folder:
            graph, plan = os.path.join(folder, "graph.json"), os.path.join(folder, "all.json")
            inputs_args = [a for s in specs for a in ("--input", s)]
            package("export", f"{args.module}:{name}", *inputs_args, "-o", graph)
            run(args.ckptx, "solve", graph, "--solver", "checkpoint-all", "-o", plan)
            model = getattr(factories, name)().train()
            inputs = make_inputs(specs, "cpu")
            plain = step_peak(model, inputs)
            planned = apply_plan(model, plan, example_inputs=inputs)
            executed = step_peak(planned, inputs)
        print(f"| {name} {shapes} | {plain} | {executed} | {executed / plain:.2f} |")


if __name__ == "__main__":
    torch.set_num_threads(1)
    main()
