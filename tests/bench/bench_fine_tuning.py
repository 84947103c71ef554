"""Fine-tuning as users run it, predicted against measured (docs/BENCHMARKS.md, "Fine-tuning and Hugging
Face calls"): gpt_bench with LoRA adapters (every other weight frozen), ResNet-18 with layer1-3 frozen, a
ResNet-18 backbone run in torch.no_grad() under a trained head, and a Hugging Face-style LM called with
keyword arguments (labels=input_ids, one tensor in two places) in bfloat16 autocast with AdamW. Each is
exported with export_graph, solved by ckptx, profiled with checkpoint_explorer.profiler.profile (the
planned step runs apply_plan) and compared by `ckptx simulate --trace`.

    PYTHONPATH=app/python OMP_NUM_THREADS=2 /usr/bin/python3 tests/bench/bench_fine_tuning.py [--ckptx build/bin/ckptx]
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
import models  # noqa: E402  (tests/python/models.py)
from checkpoint_explorer import export_graph, profiler  # noqa: E402


def hugging_face_call():
    ids = torch.randint(0, 1000, (8, 64), generator=torch.Generator().manual_seed(0))
    return {"input_ids": ids, "attention_mask": torch.ones_like(ids), "labels": ids}


CASES = [
    ("lora_gpt", models.lora_gpt, lambda: torch.randint(0, 1000, (8, 128)), {}),
    ("frozen_resnet", models.frozen_resnet, lambda: torch.randn(8, 3, 64, 64), {}),
    ("no_grad_backbone", models.frozen_backbone, lambda: torch.randn(8, 3, 64, 64), {}),
    ("keyword_lm", models.keyword_lm, hugging_face_call, {"autocast": "bfloat16", "optimizer": "adamw"}),
]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ckptx", default="build/bin/ckptx")
    parser.add_argument("--solvers", default="checkpoint-all,feng-acg,optimal")
    args = parser.parse_args()
    torch.manual_seed(0)
    for name, make, inputs, options in CASES:
        model, example = make(), inputs()
        optimizer = torch.optim.AdamW(model.parameters()) if options.get("optimizer") else None
        with tempfile.TemporaryDirectory() as folder:
            graph = os.path.join(folder, "graph.json")
            export_graph(model, example, graph, autocast=options.get("autocast"), optimizer=optimizer)
            for solver in args.solvers.split(","):
                plan, trace = os.path.join(folder, f"{solver}.json"), os.path.join(folder, "trace.json")
                extra = ["--option", "memory-model=pytorch"] if solver == "optimal" else []
                subprocess.run([args.ckptx, "solve", graph, "--solver", solver, *extra, "-o", plan], check=True,
                               capture_output=True)
                with open(trace, "w") as f:
                    json.dump(profiler.profile(model, example, graph, plan, iterations=1, optimizer=optimizer), f)
                for step in ("regular", "checkpointed") if solver == "checkpoint-all" else ("checkpointed",):
                    out = subprocess.run([args.ckptx, "simulate", graph, "--plan", plan, "--model", "pytorch",
                                          "--trace", trace, "--step", step], check=True, capture_output=True,
                                         text=True).stdout
                    line = next(line for line in out.splitlines() if line.startswith("vs trace"))
                    print(f"{name} {solver} {step}: {line}")


if __name__ == "__main__":
    main()
