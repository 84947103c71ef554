"""The whole training iteration with its optimizer step (rule P35), not a test: per model and optimizer, the
export measures the optimizer (`export_graph(..., optimizer=)`), each plan is applied (apply_plan) and one
iteration — forward, backward, optimizer.step() — is measured from the weights and the optimizer's state;
the prediction is `ckptx simulate`'s iteration peak, max(the plan's `pytorch` peak, what the step leaves +
the measured step scratch), as `ckptx max-batch` counts it, and beside it the step's peak alone (what was counted before P35).

    PYTHONPATH=app/python OMP_NUM_THREADS=1 /usr/bin/python3 tests/bench/bench_optimizer_step.py
        [--ckptx build/bin/ckptx] [--models gpt_bench:8x128:int64:1000,...] [--module FILE.py]
        [--optimizers adamw,adamw-foreach,momentum] [--solvers checkpoint-all,optimal:memory-model=pytorch]
        [--device cpu|cuda] [--time-limit S]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
from checkpoint_explorer import apply_plan, export_graph  # noqa: E402
from checkpoint_explorer.cli import load_factory, make_inputs  # noqa: E402
from checkpoint_explorer.memory import TransientMeter, synchronize  # noqa: E402
from checkpoint_explorer.profiler import _loss  # noqa: E402

MODELS = os.path.join(HERE, "..", "python", "models.py")
OPTIMIZERS = {
    "adamw-default": lambda params: torch.optim.AdamW(params),  # the implementation this torch picks
    "adamw": lambda params: torch.optim.AdamW(params, foreach=False),
    "adamw-foreach": lambda params: torch.optim.AdamW(params, foreach=True),
    "adam-decay-foreach": lambda params: torch.optim.Adam(params, weight_decay=0.01, foreach=True),
    "momentum": lambda params: torch.optim.SGD(params, lr=1e-3, momentum=0.9),
}


def ckptx(args, *command):
    return subprocess.run([args.ckptx, *command], check=True, capture_output=True, text=True).stdout


def iteration_peak(model, optimizer, inputs, device):
    """One iteration's peak above its start (the weights and the optimizer's state): a fresh batch (as a
    data loader hands one over), the forward and its loss, the backward, the optimizer's step."""
    def iteration():
        batch = tuple(t.clone() for t in inputs)
        loss = _loss(model(*batch))
        loss.backward()
        optimizer.step()

    for _ in range(2):  # the state exists, as in every step after the first
        optimizer.zero_grad(set_to_none=True)
        iteration()
    optimizer.zero_grad(set_to_none=True)
    synchronize(device)
    peak, _ = TransientMeter(device).peak_and_end(iteration)
    return peak


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ckptx", default="build/bin/ckptx")
    parser.add_argument("--models", default="gpt_bench:8x128:int64:1000,vit_bench:8x3x64x64,resnet18:8x3x64x64")
    parser.add_argument("--module", default=MODELS)
    parser.add_argument("--optimizers", default="adamw,adamw-foreach,momentum")
    parser.add_argument("--solvers", default="checkpoint-all,optimal:memory-model=pytorch")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--time-limit", default="10")
    args = parser.parse_args()
    print("| model | optimizer | plan | recompute | state | step scratch | predicted | measured | error | step alone |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for spec in args.models.split(","):
        name, _, shape = spec.partition(":")
        for optimizer_name in args.optimizers.split(","):
            with tempfile.TemporaryDirectory() as folder:
                torch.manual_seed(0)
                model = load_factory(f"{args.module}:{name}").to(args.device)
                inputs = make_inputs(shape.split("+"), args.device)
                optimizer = OPTIMIZERS[optimizer_name](model.parameters())
                graph = os.path.join(folder, "graph.json")
                meta = export_graph(model, inputs, graph, optimizer=optimizer)["metadata"]
                for solver in args.solvers.split(","):
                    solver_name, _, option = solver.partition(":")
                    plan = os.path.join(folder, "plan.json")
                    options = ["--option", option] if option else []
                    if solver_name == "optimal":
                        options += ["--option", f"time-limit={args.time_limit}"]
                    ckptx(args, "solve", graph, "--solver", solver_name, *options, "-o", plan)
                    # On CUDA memory_allocated counts the caching allocator's blocks (rule A1).
                    allocator = ["--allocator", "cuda" if args.device.startswith("cuda") else "requested"]
                    memory = json.loads(ckptx(args, "simulate", graph, "--plan", plan, "--model", "pytorch",
                                              *allocator, "--json"))
                    predicted = memory["iteration_peak_bytes"]
                    measured = iteration_peak(apply_plan(model, plan), optimizer, inputs, args.device)
                    with open(plan) as f:
                        overhead = json.load(f)["recompute"]["overhead"]
                    print(f"| {name} {shape} | {optimizer_name} | {solver} | {100 * overhead:.0f} % | "
                          f"{meta['optimizer_state_bytes']:,} | "
                          f"{meta['optimizer_step_workspace_bytes']:,} | {predicted:,} | {measured:,} | "
                          f"{100.0 * (predicted - measured) / measured:+.2f} % | "
                          f"{100.0 * (memory['peak_bytes'] - measured) / measured:+.2f} % |", flush=True)


if __name__ == "__main__":
    main()
