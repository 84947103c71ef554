"""How far `optimal --option memory-model=pytorch` gets in its time limit: per graph, the least peak
and whether it is proven, then the least recompute under budgets of a few times that peak. Each binary
directory given is run on every question one after the other, so that before and after compare in
one run (docs/BENCHMARKS.md, "The recompute left under a cap").

    /usr/bin/python3 tests/bench/bench_peak_search.py --bin /tmp/before --bin build/bin \
        --graphs ../shared/data/checkmate-graphs/*_test_nx.json /tmp/proof/*.json
"""
import argparse
import json
import os
import subprocess
import time


def solve(binary, graph, limit, budget=None):
    command = [os.path.join(binary, "ckptx"), "solve", graph, "--solver", "optimal", "--option",
               "memory-model=pytorch", "--option", f"time-limit={limit}", "--json"]
    if budget is not None:
        command += ["--option", f"budget={budget}"]
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    seconds = time.perf_counter() - start
    plan = json.loads(done.stdout)
    notes = plan["notes"]
    recompute = next(n for n in notes if n.startswith("pytorch-model peak")).split("recomputing ")[1].split(" %")[0]
    settled = any(n.startswith("proven") for n in notes) and not any("not proven to recompute" in n for n in notes)
    least = plan["options"].get("recompute-lower-bound")  # where not settled: the recompute is at least this
    return {"seconds": seconds, "peak": int(plan["options"]["pytorch-peak"]), "recompute": float(recompute),
            "proven": settled, "least": None if least is None else 100 * float(least)}


def row(result):
    gap = "" if result["proven"] or result["least"] is None else f" (at least {result['least']:6.2f} %)"
    return f"{result['seconds']:6.2f} s {'proven' if result['proven'] else 'open  '} " \
           f"peak {result['peak'] / 1e6:9.1f} MB, recomputing {result['recompute']:6.2f} %{gap}"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", action="append", required=True, help="a directory holding ckptx (repeatable)")
    parser.add_argument("--graphs", nargs="+", required=True)
    parser.add_argument("--time-limit", type=float, default=10)
    parser.add_argument("--budgets", default="1.1,1.5", help="budgets as multiples of the least peak")
    options = parser.parse_args()
    for graph in options.graphs:
        name = os.path.basename(graph)[:28]
        least = [solve(b, graph, options.time_limit) for b in options.bin]
        print(f"{name:28} least peak: " + " | ".join(row(r) for r in least), flush=True)
        for factor in (float(f) for f in options.budgets.split(",")):
            budget = int(least[-1]["peak"] * factor)
            found = [solve(b, graph, options.time_limit, budget) for b in options.bin]
            print(f"{name:28} budget x{factor}: " + " | ".join(row(r) for r in found), flush=True)


if __name__ == "__main__":
    main()
