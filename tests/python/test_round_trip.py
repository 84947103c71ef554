"""Export -> ckptx solve -> apply_plan on the suite of models.py, both granularities, feng-acg and optimal
plans: the planned step's loss, gradients and BatchNorm buffers equal the plain model's, and autograd
saves less, no more than the checkpoints the plan keeps."""
import json
import os
import sys
import unittest

import torch

import support
from checkpoint_explorer import apply_plan, export_graph
from checkpoint_explorer.inputs import parse_input
import models


class RoundTrip(unittest.TestCase):
    def check(self, name):
        factory, texts = models.SUITE[name]
        for granularity in ("module", "op"):
            torch.manual_seed(0)
            model = factory()
            inputs = tuple(parse_input(t).make() for t in texts)
            with support.scratch() as folder:
                graph_path = os.path.join(folder, "graph.json")
                graph = export_graph(model, inputs, graph_path, granularity=granularity)
                vertices = {v["id"]: v for v in graph["vertices"]}
                for solver in ("feng-acg", "optimal"):
                    with self.subTest(granularity=granularity, solver=solver):
                        plan_path = os.path.join(folder, solver + ".json")
                        support.solve(graph_path, solver, plan_path)
                        with open(plan_path) as f:
                            plan = json.load(f)
                        checkpoints = plan["checkpoints"]
                        reference, target = support.copies(model)
                        planned = apply_plan(target, plan_path)
                        loss, saved_plain = support.step(reference, inputs)
                        planned_loss, saved_planned = support.step(planned, inputs)
                        self.assertTrue(torch.allclose(planned_loss, loss, rtol=support.RTOL, atol=support.ATOL),
                                        f"loss {planned_loss} != {loss}")
                        self.assertIsNone(support.first_difference(reference, target))
                        # What the plan keeps: at least the checkpoints a segment reads, at most every
                        # checkpoint with what its own backward saves.
                        most = sum(vertices[c]["bytes"] + vertices[c].get("saved_bytes", 0) for c in checkpoints)
                        least = sum(vertices[c]["bytes"] for c in _entries(graph, set(checkpoints)))
                        print(f"{name} {granularity} {solver}: {len(vertices)} vertices, {len(checkpoints)} "
                              f"checkpoints, saved {saved_plain} -> {saved_planned} bytes (plan keeps "
                              f"{least}..{most})", file=sys.stderr)
                        self.assertLessEqual(saved_planned, most)
                        if plan["is_plan"]:
                            # General plans may keep less: segments that read each other's exits
                            # share one checkpointed function (docs/PYTHON.md).
                            self.assertGreaterEqual(saved_planned, least)
                        if len(checkpoints) < len(vertices):
                            self.assertLess(saved_planned, saved_plain)


def _entries(graph, checkpoints):
    """Checkpoints a segment reads: what an IS plan keeps for its re-forwards."""
    return {e["from"] for e in graph["edges"] if e["from"] in checkpoints and e["to"] not in checkpoints}


for _name in models.SUITE:
    setattr(RoundTrip, f"test_{_name}", lambda self, n=_name: self.check(n))

if __name__ == "__main__":
    unittest.main()
