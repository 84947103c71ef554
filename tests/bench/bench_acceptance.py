"""Acceptance of the recommended plan (issue 15) and of the pytorch memory model's peaks (issue 14), not a
test: per model, every solver's plan is profiled where the user trains (`checkpoint_explorer profile`,
apply_plan), and its measured peak set against the `pytorch` model's prediction. The recommended plan
(`ckptx compare`: least predicted peak, then on CUDA least in the allocator's blocks, then least recompute)
should have the lowest measured peak of all (within 1 %) and a prediction within 2 %. On CUDA the
prediction is counted in the caching allocator's blocks (rule A1), as memory_allocated measures; the
requested bytes' error is listed beside it. Also the step-time overhead: measured (checkpointed over
regular step time) against `ckptx simulate --trace`'s prediction (the recompute overhead times the
regular step's measured forward time, core/memory/StepTimeComparison.h).

    PYTHONPATH=app/python /usr/bin/python3 tests/bench/bench_acceptance.py [--ckptx build/bin/ckptx]
        [--models gpt_bench:8x128:int64:1000,...] [--iterations 3] [--keep DIR]
        [--module FILE.py] [--solvers checkpoint-all,feng-acg,...] [--granularity module|op]
        [--device cpu|cuda] [--time-limit S] [--cost flops|time] [--autocast bfloat16|float16] [--accumulate]

--granularity op exports (and so profiles) one vertex per traced op instead of per module call.
--module takes the factories from another file (models this project has never seen); --solvers profiles
only those plans. A model fed several tensors names them joined by "+" (nanoGPT's `idx, targets`:
`nanogpt:8x128:int64:4096+8x128:int64:4096`). --device cuda exports and profiles on the GPU (where the
user trains); --time-limit bounds each `optimal` solve. A model that cannot be exported or solved is
reported and skipped. --autocast exports (and so profiles) the forward in that mixed precision;
--accumulate, a gradient-accumulation step (it starts with the weights' gradients). --cost
time exports each vertex's measured forward time as its `compute`, which then prices recompute (and so
the predicted step time) instead of FLOPs.

--keep DIR keeps each model's graph, plans and traces in DIR/MODEL/ (SOLVER.json, SOLVER.trace.json), so
that another ckptx can predict the same measurements: `ckptx simulate DIR/M/graph.json --plan DIR/M/S.json
--model pytorch --trace DIR/M/S.trace.json`.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.join(HERE, "..", "python", "models.py")
DEFAULT_MODELS = "resnet18:8x3x64x64,densenet121:8x3x64x64,vit_bench:8x3x64x64,gpt_bench:8x128:int64:1000"
SOLVERS = ["checkpoint-all", "feng-acg", "optimal", "optimal:memory-model=pytorch", "ap-sqrtn", "ap-greedy",
           "linearized-greedy", "hong-dynamic", "random"]


def run(*command):
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)}: {done.stderr.strip()[-400:]}")
    return done.stdout


def package(*arguments):
    return run(sys.executable, "-m", "checkpoint_explorer", *arguments)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ckptx", default="build/bin/ckptx")
    parser.add_argument("--models", default=DEFAULT_MODELS)
    parser.add_argument("--iterations", type=int, default=3)
    parser.add_argument("--keep")
    parser.add_argument("--module", default=MODELS)
    parser.add_argument("--solvers", default=",".join(SOLVERS))
    parser.add_argument("--granularity", choices=("module", "op"), default="module")
    parser.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    parser.add_argument("--time-limit")
    parser.add_argument("--cost", choices=("flops", "time"), default="flops")
    parser.add_argument("--autocast", choices=("bfloat16", "float16"))
    parser.add_argument("--accumulate", action="store_true")
    args = parser.parse_args()
    solvers = args.solvers.split(",")
    print(f"load {os.getloadavg()[0]:.1f}")
    for spec in args.models.split(","):
        name, shape = spec.split(":", 1)
        with tempfile.TemporaryDirectory() as scratch:
            folder = os.path.join(args.keep, name) if args.keep else scratch
            os.makedirs(folder, exist_ok=True)
            try:
                acceptance(args, solvers, name, shape, folder)
            except RuntimeError as error:
                print(f"\n{name} {shape}: skipped ({str(error)[-300:]})")


def acceptance(args, solvers, name, shape, folder):
    """Every solver's plan of one model profiled, predicted and reported."""
    inputs = [a for s in shape.split("+") for a in ("--input", s)]
    where = ["--device", args.device]
    graph = os.path.join(folder, "graph.json")
    package("export", f"{args.module}:{name}", *inputs, "--granularity", args.granularity, *where,
            "--cost", args.cost, *(("--autocast", args.autocast) if args.autocast else ()),
            *(("--accumulate",) if args.accumulate else ()), "-o", graph)
    plain = [s for s in solvers if ":" not in s]  # compare takes solver names without options
    recommended = (json.loads(run(args.ckptx, "compare", graph, "--solvers", ",".join(plain), "--json"))["recommended"]
                   if plain else "none run")
    rows = []
    # The regular step keeps every vertex: each trace's regular step is predicted by that plan.
    keep_all = os.path.join(folder, "regular.json")
    run(args.ckptx, "solve", graph, "--solver", "checkpoint-all", "-o", keep_all)
    for solver in solvers:
        solver_name, _, option = solver.partition(":")
        plan = os.path.join(folder, solver.replace(":", "-").replace("=", "-") + ".json")
        options = ["--option", option] if option else []
        if solver_name == "optimal" and args.time_limit:
            options += ["--option", f"time-limit={args.time_limit}"]
        try:
            run(args.ckptx, "solve", graph, "--solver", solver_name, *options, "-o", plan)
        except RuntimeError as error:
            print(f"  {name} {solver}: not applicable ({str(error)[-120:]})")
            continue
        try:
            rows.append(measured_row(args, solver, f"{args.module}:{name}", inputs, graph, plan, keep_all))
        except RuntimeError as error:
            print(f"  {name} {solver}: not measured ({str(error)[-300:]})")
    report(name, shape, rows, recommended)


def measured_row(args, solver, model, inputs, graph, plan, keep_all):
    """One plan profiled where the user trains and predicted by the `pytorch` model."""
    with open(plan) as f:
        planned = json.load(f)
    trace = plan[:-len(".json")] + ".trace.json"
    package("profile", model, "--graph", graph, "--plan", plan, *inputs, "--device",
            args.device, "--iterations", str(args.iterations), "-o", trace)
    simulated = json.loads(run(args.ckptx, "simulate", graph, "--plan", plan, "--model", "pytorch",
                               "--trace", trace, "--json"))
    regular = json.loads(run(args.ckptx, "simulate", graph, "--plan", keep_all, "--model", "pytorch",
                             "--trace", trace, "--step", "regular", "--json"))["trace"]
    # On CUDA the comparison above counts the caching allocator's blocks (rule A1); the bytes the
    # tensors request are what compare ranks plans by first.
    requested = json.loads(run(args.ckptx, "simulate", graph, "--plan", plan, "--model", "pytorch",
                               "--trace", trace, "--allocator", "requested", "--json"))
    comparison = simulated["trace"]
    return {"solver": solver, "predicted": simulated["peak_bytes"], "requested": requested["peak_bytes"],
            "requested_error": requested["trace"]["peak_error_percent"],
            "measured": comparison["measured_peak_bytes"],
            "error": comparison["peak_error_percent"],
            "mean": comparison["mean_abs_error_percent"],
            "regular": f"{regular['mean_abs_error_percent']:.2f} % / {regular['peak_error_percent']:+.2f} %",
            "overhead": planned["recompute"]["overhead"],
            "step_predicted": comparison["step_time"]["predicted_overhead"],
            "step": comparison["step_time"]["measured_overhead"]}


def report(name, shape, rows, recommended_by_compare):
    print(f"\n{name} {shape}")
    if not rows:
        print("no plan measured")
        return
    print("| solver | predicted peak | measured peak | peak error | mean error | peak error, requested bytes "
          "| step overhead: predicted | measured | regular step: mean / peak error |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['solver']} | {r['predicted']} | {r['measured']} | {r['error']:+.2f} % | {r['mean']:.2f} % | "
              f"{r['requested_error']:+.2f} % | {r['step_predicted']:+.0%} | {r['step']:+.0%} | {r['regular']} |")
    # compare's rule: the requested peak, then (on CUDA) the blocks, then recompute.
    best = min(rows, key=lambda r: (r["requested"], r["predicted"], r["overhead"]))
    lowest = min(r["measured"] for r in rows)
    print(f"recommended (least predicted peak): {best['solver']} (compare, over its solvers: "
          f"{recommended_by_compare}); its measured peak is {best['measured'] / lowest - 1:+.2%} over the lowest "
          f"measured; its prediction {best['error']:+.2f} %")


if __name__ == "__main__":
    main()
