"""`python3 -m checkpoint_explorer export`: a model with token inputs exports and `ckptx` reads it; bad
input gives exit 1, one line naming the file and the problem, and no output file. apply_plan refuses a
plan made for another model."""
import collections
import contextlib
import copy
import dataclasses
import json
import os
import pickle
import random
import subprocess
import sys
import unittest
import unittest.mock
import warnings

import torch
import torchvision

import support
import models
from checkpoint_explorer import ExportError, PlanError, apply_plan, export_graph, profiler
from checkpoint_explorer.cli import make_inputs
from checkpoint_explorer.memory import TransientMeter
from checkpoint_explorer.path_tests import PathTests
from checkpoint_explorer.program import record
from checkpoint_explorer.vertices import VertexGraph

MODELS = os.path.join(support.HERE, "models.py")


def export(*arguments, output):
    env = dict(os.environ, PYTHONPATH=os.path.join(support.SOURCE, "app", "python"))
    return subprocess.run([sys.executable, "-m", "checkpoint_explorer", "export", *arguments, "-o", output],
                          capture_output=True, text=True, env=env)


class Cli(unittest.TestCase):
    def test_token_model_exports_and_ckptx_reads_it(self):
        with support.scratch() as folder:
            out = os.path.join(folder, "gpt.json")
            run = export(f"{MODELS}:gpt", "--input", "4x32:int64:100", "--granularity", "op", output=out)
            self.assertEqual(run.returncode, 0, run.stderr)
            info = subprocess.run([support.CKPTX, "info", out], capture_output=True, text=True)
            self.assertEqual(info.returncode, 0, info.stderr)
            self.assertIn("source:      input", info.stdout)

    def test_tied_weights_belong_to_their_last_reader(self):
        # P5: the gradient of a weight read twice (GPT's embedding and output layer) is formed at the
        # first backward that reads it, the output layer's, so its bytes go to that vertex.
        torch.manual_seed(0)
        graph = export_graph(models.gpt(), (torch.randint(0, 100, (2, 32)),))
        params = {v["id"]: v.get("parameter_bytes", 0) for v in graph["vertices"]}
        tied = 100 * 32 * 4
        self.assertEqual(params["transformer.wte"], 0)
        self.assertEqual(params["lm_head"], tied)
        # P30: the position embedding is read only through a static (the lookup of arange's
        # positions): its gradient is formed where that static's node runs, after the backward of its
        # reader, the add of the token and position embeddings, which owns it.
        wpe = 32 * 32 * 4
        self.assertEqual(sum(params.values()), graph["metadata"]["parameter_bytes"])
        self.assertEqual([v for v, b in params.items() if b == wpe], ["add"])
        # The embedding's backward forms its part of that gradient as a tensor of its own, which the
        # step adds into the output layer's: scratch of the embedding's backward, not a weight gradient.
        embedding = next(v for v in graph["vertices"] if v["id"] == "transformer.wte")
        for measure in ("backward_workspace_bytes", "backward_workspace_released_bytes"):
            self.assertGreater(embedding[measure], 0.9 * tied, measure)  # a few bytes of the loss's scalars aside
        self.assertIs(graph["metadata"]["checkpoint_early_stop"],
                      hasattr(torch.utils.checkpoint, "set_checkpoint_early_stop"))

    def test_frees_of_blocks_allocated_outside_the_measure_are_not_counted(self):
        # c10's CPU reporter remembers a block's size from an allocation under a profile until a free
        # under one: a block freed outside leaves its size behind, and another block at the same
        # address, allocated outside and freed under the meter, was reported with that stale size
        # (GPT's embedding workspace measured 9220 bytes where 17412 are, once in CI).
        meter = TransientMeter("cpu")
        for _ in range(50):
            with torch.autograd.profiler.profile(profile_memory=True):
                stale = torch.empty(1024)
            address = stale.data_ptr()
            del stale
            held = [torch.empty(1000)]
            if held[0].data_ptr() == address:
                break
        else:
            self.skipTest("the CPU allocator never reused the address")
        self.assertEqual(meter.peak_and_end(held.clear), (0, 0))

    def test_inplace_hardtanh_saves_a_copy_of_its_input(self):
        # P11: ReLU6(inplace=True) saves a clone of its input made before it writes (its derivative
        # needs the original); ReLU(inplace=True) keeps only its result. The clone is read by no op, so
        # it is a saved extra of the vertex that saves it, here the BatchNorm the activation writes.
        for activation, copy in ((torch.nn.ReLU6(inplace=True), True), (torch.nn.ReLU(inplace=True), False)):
            model = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.BatchNorm2d(4), activation,
                                        torch.nn.Conv2d(4, 2, 1))
            graph = export_graph(model, (torch.randn(2, 3, 8, 8),))
            norm = next(v for v in graph["vertices"] if v["id"] == "1")
            output = 2 * 4 * 6 * 6 * 4
            statistics = 2 * 4 * 4  # the batch mean and inverse deviation
            with self.subTest(activation=type(activation).__name__):
                self.assertEqual(norm["bytes"], output)
                self.assertEqual(norm["saved_bytes"], statistics + (output if copy else 0))

    def test_slices_of_a_shuffled_concatenation(self):
        # P27: a ShuffleNet block concatenates its two halves and shuffles the channels (view,
        # transpose, contiguous). Its backward reshapes its gradient into a copy before the
        # concatenation's backward slices it, so the branch's gradient is a slice of that copy, which
        # it holds until the branch's backward (0.06 MB at 8x3x64x64 between the two). The half that
        # bypasses the branch gets a gradient of its own: the chunk's backward concatenates it.
        block = torchvision.models.shufflenetv2.InvertedResidual(8, 8, 1)
        graph = export_graph(torch.nn.Sequential(torch.nn.Conv2d(3, 8, 1), block), (torch.randn(2, 3, 8, 8),))
        out = next(v for v in graph["vertices"] if v["id"] == "1")
        self.assertEqual(out["op"], "aten::cat+aten::clone")
        self.assertEqual(out["slices_gradient_to"], ["1.branch2.6"])

    def test_a_regular_step_that_is_not_reproducible_is_named(self):
        # torch 1.13's CPU gelu_backward reads a transposed gradient wrongly (garbage, sometimes NaN):
        # a wav2vec feature extractor's planned and regular steps then "differ" whatever the plan. The
        # profile repeats the regular step from the same weights and seed and says when it differs too.
        # A stand-in for the kernel: a step scaled by a number no seed fixes.
        model, x = torch.nn.Linear(4, 4), torch.randn(3, 4)
        state = copy.deepcopy(model.state_dict())

        class Scaled(torch.nn.Module):
            def __init__(self, noisy):
                super().__init__()
                self.noisy = noisy

            def forward(self, t):
                return model(t) * (random.random() if self.noisy else 1.0)

        for noisy in (True, False):
            regular = Scaled(noisy)
            profiler._step(regular, model, (x,), "regular")
            said = profiler._unreproducible(regular, model, (x,), state, "cpu")
            with self.subTest(noisy=noisy):
                if noisy:
                    self.assertIn("weight: gradients differ (max |second - first|", said)
                else:
                    self.assertIsNone(said)

    def test_inplace_dropout_mask_is_a_saved_extra(self):
        # Dropout(inplace=True) draws its mask from empty_like(x) and then multiplies x by it in place:
        # the two vertices would read each other (EfficientNet's classifier). They are one vertex, whose
        # backward saves the mask. Torch draws the mask in the input's dtype (float32 here).
        for granularity in ("module", "op"):
            model = torch.nn.Sequential(torch.nn.Linear(6, 5), torch.nn.Dropout(0.2, inplace=True), torch.nn.Linear(5, 3))
            graph = export_graph(model, (torch.randn(4, 6),), granularity=granularity)
            with self.subTest(granularity=granularity):
                self.assertEqual(len(graph["vertices"]), 3, [v["id"] for v in graph["vertices"]])
                updated = graph["vertices"][1]
                self.assertEqual(updated["bytes"], 4 * 5 * 4)
                self.assertEqual(updated["saved_bytes"], 4 * 5 * 4)

    def test_workspaces_of_routed_rows_are_measured_on_the_exported_batch(self):
        # A mixture of experts' shapes follow the data: the rows an expert gets are the tokens routed to
        # it. The workspaces are measured on the batch the graph was recorded with (they were measured
        # on token ids of zero, which routed no row here: a backward workspace of 4 bytes).
        class Routed(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.embed = torch.nn.Embedding(10, 64)
                self.expert = torch.nn.Linear(64, 64)

            def forward(self, ids):
                x = self.embed(ids).reshape(-1, 64)
                routed = ids.reshape(-1) > 0
                return torch.zeros_like(x).index_put((routed,), self.expert(x[routed]))

        ids = torch.randint(1, 10, (4, 32))
        graph = export_graph(Routed(), (ids,))
        expert = next(v for v in graph["vertices"] if v["id"] == "expert")
        rows = 4 * 32
        self.assertEqual(expert["bytes"], rows * 64 * 4)
        self.assertGreaterEqual(expert["backward_workspace_bytes"], rows * 64 * 4)  # its input's gradient

    def test_same_inputs_in_every_command(self):
        # export and profile draw their inputs alike, whatever a factory did to torch's random state.
        first = make_inputs(["4x16:int64:1000", "4x3"], "cpu")
        torch.manual_seed(123)
        second = make_inputs(["4x16:int64:1000", "4x3"], "cpu")
        for a, b in zip(first, second):
            self.assertTrue(torch.equal(a, b))

    def test_workspaces_as_the_step_holds_tensors(self):
        # P17: a dropout's mask is kept for the backward where autograd records, scratch where it keeps
        # nothing it saves (a checkpointed function's forward). P16: an add hands its gradient to both
        # summands as one tensor, which the measure keeps as the backward formed it: no copy per summand
        # (a leaf's AccumulateGrad made one each, a released workspace of twice the add's bytes).
        class Residual(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.linear = torch.nn.Linear(128, 128)
                self.drop = torch.nn.Dropout(0.5)

            def forward(self, x):
                h = self.linear(x)
                return h + self.drop(h)

        graph = export_graph(Residual(), (torch.randn(512, 128),))
        vertices = {v["id"]: v for v in graph["vertices"]}
        tensor = 512 * 128 * 4
        drop, add = vertices["drop"], vertices["add"]
        self.assertEqual(drop["saved_bytes"], tensor)
        self.assertLess(drop["forward_workspace_bytes"], tensor)
        self.assertGreaterEqual(drop["checkpointed_forward_workspace_bytes"], tensor)
        self.assertEqual(sorted(add["passes_gradient_to"]), ["drop", "linear"])
        self.assertLess(add["backward_workspace_released_bytes"], tensor)
        self.assertLess(add["backward_workspace_bytes"], tensor)

    def test_held_backward_counts_what_the_vertex_frees_of_its_own(self):
        # P8's held measure: a module of three operations frees the tanh's output, which two of its
        # nodes saved, before the first linear's backward makes the input gradient. The measure runs
        # the vertex's forward in its backward's profile, so that the free counts: the tanh's input
        # gradient and the input gradient, less that output, are the scratch, one tensor less G (the
        # weights' gradients are not scratch). With the forward measured in a profile of its own the
        # free was dropped (a CPU meter counts only frees of what it saw allocated): two tensors.
        class Block(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.stem = torch.nn.Linear(1024, 1024)
                self.block = torch.nn.Sequential(torch.nn.Linear(1024, 1024), torch.nn.Tanh(),
                                                  torch.nn.Linear(1024, 16))

            def forward(self, x):
                return self.block(self.stem(x))

        graph = export_graph(Block(), (torch.randn(256, 1024),), depth=1)
        block = next(v for v in graph["vertices"] if v["id"] == "block")
        tensor = 256 * 1024 * 4
        self.assertGreaterEqual(block["backward_workspace_bytes"], tensor - block["bytes"])
        self.assertLess(block["backward_workspace_bytes"], 1.5 * tensor)

    def test_plan_steps_run_in_the_models_order(self):
        # P18: of the steps ready to run, apply_plan runs the one whose first vertex the model computes
        # first (it ran the first one ready: a plan keeping everything ran branches breadth first). A
        # checkpoint whose input is a checkpoint still runs before the function that reads it, however
        # early that function's first vertex: ResNet's downsampling before its block's convolutions.
        from checkpoint_explorer.export import trace
        from checkpoint_explorer.planned import plan_steps

        class Block(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.stem, self.c1, self.c2, self.down = (torch.nn.Linear(4, 4) for _ in range(4))

            def forward(self, x):
                m = self.stem(x)
                return self.c2(self.c1(m)) + self.down(m)

        graph = trace(Block(), [torch.randn(2, 4)])
        ids = [v.id for v in graph.vertices]
        self.assertEqual(ids, ["input", "stem", "c1", "c2", "down", "add"])

        def order(checkpoints):
            return [ids[i] for group, _ in plan_steps(graph, set(checkpoints)) for i in group]

        self.assertEqual(order(ids), ids)
        self.assertEqual(order(["input", "stem", "down", "add"]), ["input", "stem", "down", "c1", "c2", "add"])

    def test_untracked_tensors_are_marked(self):
        # P19: at op granularity a dropout's mask (empty_like, bernoulli_) is a vertex of its own, which
        # autograd does not track: no gradient reaches it, and the product's backward measured forms
        # none for it (it formed one as large as the mask when every floating input required one).
        model = torch.nn.Sequential(torch.nn.Linear(128, 128), torch.nn.Dropout(0.5), torch.nn.Linear(128, 4))
        graph = export_graph(model, (torch.randn(512, 128),), granularity="op")
        tracked = {v["id"]: v.get("requires_grad", True) for v in graph["vertices"][1:]}
        masks = [i for i in tracked if "empty_like" in i]
        self.assertEqual(len(masks), 1, tracked)
        self.assertEqual([i for i, t in tracked.items() if not t], masks)
        product = next(v for v in graph["vertices"] if v["id"].endswith("/mul"))
        self.assertLess(product["backward_workspace_bytes"], 512 * 128 * 4 * 1.5)

    def test_untracked_outputs_of_a_vertex(self):
        # P50: a max-pooling's vertex holds its values and its int64 indices, and only the values get a
        # gradient; a max-unpooling that reads the indices alone sends the pooling none (the innermost
        # reads the values too).
        for granularity in ("module", "op"):
            graph = export_graph(models.pool_unpool_net(), (torch.randn(8, 3, 32, 32),), granularity=granularity)
            by_id = {v["id"]: v for v in graph["vertices"]}
            pools = [v for v in graph["vertices"] if v["op"] == "aten::max_pool2d_with_indices"]
            unpools = [v for v in graph["vertices"] if v["op"] == "aten::max_unpool2d"]
            self.assertEqual((len(pools), len(unpools)), (2, 2), granularity)
            for pool in pools:
                values = 4 * torch.Size(pool["shape"]).numel()
                self.assertEqual((pool["bytes"], pool["gradient_bytes"]), (3 * values, values), granularity)
            inner, outer = unpools
            self.assertNotIn("reads_without_gradient", inner)
            self.assertEqual(outer["reads_without_gradient"], [pools[0]["id"]], granularity)
            # P52: the two tensors, read and saved apart: the outer pooling's values by the next
            # block's convolution, its indices by the outer unpooling and its own backward; the inner
            # pooling's values by the inner unpooling alone, which saves only the indices.
            for pool, values_reader, indices_reader in ((pools[0], None, outer), (pools[1], inner, inner)):
                values, indices = pool["tensors"]
                self.assertEqual((values["bytes"], indices["bytes"]), (pool["gradient_bytes"], 2 * pool["gradient_bytes"]))
                self.assertEqual(indices["read_by"], [indices_reader["id"]], granularity)
                self.assertEqual(sorted(indices["saved_by"]), sorted([pool["id"], indices_reader["id"]]), granularity)
                if values_reader is None:  # the next block's convolution, which saves them
                    self.assertEqual(values["read_by"], values["saved_by"], granularity)
                else:
                    self.assertEqual((values["read_by"], values["saved_by"]), ([values_reader["id"]], []), granularity)
            self.assertTrue(all("tensors" not in v for v in by_id.values() if v not in pools), granularity)
            self.assertTrue(all("gradient_bytes" not in v for v in by_id.values() if v not in pools), granularity)

    def test_one_gradient_for_the_summands_of_an_add_and_relu(self):
        # P53: a block's add and the ReLU after it are one vertex at module granularity; its backward
        # forms the ReLU's input gradient, one tensor the add hands to both summands. At op granularity
        # the add is a vertex of its own, which passes its gradient on (P15).
        graph = export_graph(models.relu_residual_net(), (torch.randn(8, 3, 32, 32),))
        groups = {v["id"]: v["forms_one_gradient_for"] for v in graph["vertices"] if "forms_one_gradient_for" in v}
        self.assertEqual(groups, {"blocks.0": [["blocks.0.body.4", "stem.2"]],
                                  "blocks.1": [["blocks.1.body.4", "blocks.1.shortcut"]],
                                  "blocks.2": [["blocks.1", "blocks.2.body.4"]]})
        self.assertTrue(all("passes_gradient_to" not in v for v in graph["vertices"]))
        ops = export_graph(models.relu_residual_net(), (torch.randn(8, 3, 32, 32),), granularity="op")
        self.assertTrue(all("forms_one_gradient_for" not in v for v in ops["vertices"]))
        self.assertEqual(sum(1 for v in ops["vertices"] if "passes_gradient_to" in v), 3)

    def test_packed_sequences(self):
        # pad_packed_sequence fills an untracked `full(...)` with the LSTM's output by `copy_`, which makes
        # it tracked. Counted untracked, the walk for dead ends (P46) left the LSTM and the embedding
        # without gradients; and a tensor of the sort's kept a saver the vertex had lost (P52), so ckptx
        # refused the graph ("is not in the vertex's saved_by").
        inputs = (torch.randint(0, 200, (4, 6)), torch.tensor([6, 3, 5, 1]))
        with support.scratch() as folder:
            graph, plan = os.path.join(folder, "g.json"), os.path.join(folder, "p.json")
            document = export_graph(models.packed_tagger(), inputs, path=graph)
            by_id = {v["id"]: v for v in document["vertices"]}
            self.assertTrue(by_id["embed"].get("requires_grad", True))
            self.assertTrue(all(v.get("requires_grad", True) for v in document["vertices"] if v.get("module") == "lstm"))
            for v in document["vertices"]:
                for tensor in v.get("tensors", []):
                    self.assertLessEqual(set(tensor["saved_by"]), set(v["saved_by"]), v["id"])
            support.solve(graph, "feng-acg", plan)  # ckptx reads the graph
            with open(plan) as f:
                self.assertIn("checkpoints", json.load(f))

    def test_apply_plan_tracks_what_autograd_tracks(self):
        # apply_plan records the model without autograd and infers what autograd tracks. Packed
        # sequences (P55): `copy_` makes pad_packed_sequence's `full(...)` tracked, and inferred untracked
        # it ran the LSTM's groups plainly (P36), not as functions: no plan through the LSTM saved a byte.
        # Complex numbers (Meta's Llama rotates its queries and keys so): inferred untracked, 24 of the
        # Llama's 80 vertices were.
        class Rotary(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.q, self.out = torch.nn.Linear(16, 16, bias=False), torch.nn.Linear(16, 16)
                angles = torch.outer(torch.arange(6.0), torch.ones(8))
                self.register_buffer("rotation", torch.polar(torch.ones_like(angles), angles))

            def forward(self, x):
                q = torch.view_as_complex(self.q(x).float().reshape(*x.shape[:-1], 8, 2))
                return self.out(torch.view_as_real(q * self.rotation).flatten(2))

        cases = [(models.packed_tagger(), (torch.randint(0, 200, (4, 6)), torch.tensor([6, 3, 5, 1]))),
                 (Rotary(), (torch.randn(4, 6, 16),))]
        for model, inputs in cases:
            inferred = VertexGraph(record(model, inputs, saved=False), "module", None)
            recorded = VertexGraph(record(model, inputs), "module", None)
            self.assertEqual([v.requires_grad for v in inferred.vertices], [v.requires_grad for v in recorded.vertices],
                             type(model).__name__)
            self.assertGreater(sum(v.requires_grad for v in recorded.vertices), len(recorded.vertices) // 2)

    def test_an_op_plan_applies_to_the_op_graph(self):
        # A plan names no granularity: apply_plan takes the graph whose fingerprint is the plan's before
        # one the plan fits only by vertex id. This model's module and op graphs have as many vertices,
        # and a plan keeping only functional ops names ids the module graph has too, so the op plan went
        # to the module graph (a VAE's op-granularity profile then failed: "not this model's graph").
        class Net(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = torch.nn.Linear(16, 16)

            def forward(self, x):
                return (self.fc(x) * 2).tanh()

        torch.manual_seed(0)
        model, inputs = Net(), (torch.randn(8, 16),)
        with support.scratch() as folder:
            graph, plan = os.path.join(folder, "g.json"), os.path.join(folder, "p.json")
            export_graph(model, inputs, path=graph, granularity="op")
            kept = support.plan_keeping(graph, plan, lambda ids: [c for c in ids if "/" not in c])
            self.assertEqual(kept, ["input", "mul", "tanh"])
            with warnings.catch_warnings():
                warnings.simplefilter("error")  # applied by fingerprint, not by vertex id
                planned = apply_plan(model, plan, example_inputs=inputs)
            self.assertEqual(planned.granularity, "op")
            self.assertEqual(len(export_graph(model, inputs)["vertices"]), len(kept) + 1)

    def test_gradients_of_what_parameters_alone_compute(self):
        # P20: each block's position bias (8 heads x 32 x 32 floats) is made by an MLP from a coordinate
        # buffer, parameters alone, and read by one vertex: apply_plan makes it just before that
        # vertex, whose backward forms its gradient and then runs the MLP's nodes, so nothing is held
        # past it. P30: the MLP's weights, read through nothing but that static, are that vertex's (P5).
        torch.manual_seed(0)
        graph = export_graph(models.position_bias(), (torch.randn(2, 32, 32),))
        self.assertFalse([v["id"] for v in graph["vertices"] if "static_gradient_bytes" in v])
        mlp = sum(p.numel() * 4 for p in models.position_bias()[0].bias_mlp.parameters())
        owners = [v for v in graph["vertices"] if v.get("parameter_bytes", 0) == mlp]
        self.assertEqual(len(owners), 4, [v["id"] for v in owners])
        self.assertEqual(sum(v.get("parameter_bytes", 0) for v in graph["vertices"]),
                         graph["metadata"]["parameter_bytes"])

    def test_statics_that_read_noise_drawn_upfront(self):
        # An MAE's random masking: the noise is drawn once per step, before every vertex (P29); the
        # shuffle that sorts it is made just before the gather that reads it, and the order that undoes
        # the shuffle just before a later vertex (P20). The export measured the gather with its statics
        # made again, from noise an earlier run of them had let go ("KeyError: OutputRef(op=...)"), and
        # a plan that re-forwards the gather after a plain step had made the order failed the same way
        # in its backward: the noise is held to the step's end, and the re-forward draws the same mask.
        class TokenDrop(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.embed, self.head = torch.nn.Linear(8, 16), torch.nn.Linear(16, 4)

            def forward(self, x):
                x = self.embed(x)
                shuffle = torch.argsort(torch.rand(x.shape[0], x.shape[1]), dim=1)
                keep = shuffle[:, : x.shape[1] // 2]
                x = torch.gather(x, 1, keep.unsqueeze(-1).repeat(1, 1, x.shape[2]))
                restore = torch.argsort(shuffle, dim=1)
                return self.head(torch.tanh(x)) * restore[:, : x.shape[1], None]

        torch.manual_seed(0)
        model, inputs = TokenDrop(), (torch.randn(4, 12, 8),)
        reference, planned = support.copies(model)
        with support.scratch() as folder:
            graph, plan = os.path.join(folder, "g.json"), os.path.join(folder, "p.json")
            ids = [v["id"] for v in export_graph(model, inputs, path=graph)["vertices"]]
            self.assertEqual(ids, ["input", "embed", "gather", "tanh", "head", "mul"])
            # gather re-forwarded after `mul`'s statics
            support.plan_keeping(graph, plan, lambda every: [i for i in every if i != "gather"])
            planned = apply_plan(planned, plan)
        for m in (reference, planned):
            support.step(m, inputs)
        self.assertIsNone(support.first_difference(reference, planned))

    def test_weights_read_only_through_statics_belong_to_their_first_reader(self):
        # P30: learned latents expanded to the batch query an attention (a Perceiver): the query's
        # projection of the latents is a static, and so are the parts `in_proj_weight` is split into.
        # The split is made before its first reader, the key-value projection, whose backward forms
        # in_proj's gradient (P5, its owner); the query's part, formed at the attention's backward
        # (which owns the latents), is held until then (P20). The output projection, read as its
        # transpose (a whole view), stays its reader's.
        class Latents(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.latents = torch.nn.Parameter(torch.randn(4, 16))
                self.attn = torch.nn.MultiheadAttention(16, 2, batch_first=True)

            def forward(self, x):
                q = self.latents.expand(x.shape[0], -1, -1)
                return self.attn(q, x, x, need_weights=False)[0]

        graph = export_graph(Latents(), (torch.randn(2, 8, 16),))
        # Found by what they hold, not by id: torch 2.x splits the attention into other vertices.
        by_id = {v["id"]: v for v in graph["vertices"]}
        in_proj, latents, out_proj = (3 * 16 * 16 + 3 * 16) * 4, 4 * 16 * 4, (16 * 16 + 16) * 4
        holders = [v for v in graph["vertices"] if v.get("static_gradient_bytes")]
        self.assertEqual(len(holders), 1, [v["id"] for v in holders])
        attention = holders[0]
        self.assertEqual(attention["parameter_bytes"], latents + out_proj)
        self.assertEqual(attention["static_gradient_bytes"], (16 * 16 + 16) * 4)  # in_proj's query part
        key_value = by_id[attention["static_gradient_until"]]
        self.assertEqual(key_value["parameter_bytes"], in_proj)
        order = [v["id"] for v in graph["vertices"]]
        self.assertLess(order.index(key_value["id"]), order.index(attention["id"]))

    def test_a_dead_view_of_a_buffer_leaves_no_ref(self):
        # The planned module records each forward holding no tensor: a ref goes when its tensor dies,
        # since Python gives a new tensor the id of a dead one. A view of a buffer kept its ref, and
        # now and then a later op's argument with the same id (Swin-V2's 0-dim mask fill value) was
        # read as that 2-D view: apply_plan failed in fill_.
        from checkpoint_explorer import _compat
        from checkpoint_explorer.program import Program, _Recorder
        model = torch.nn.Module()
        model.register_buffer("table", torch.zeros(4, 4))
        program = Program(model)
        program.buffers[_compat.storage_key(model.table)] = ("table", 64)
        recorder = _Recorder(program, [], {}, keep=False)
        with recorder:
            views = [model.table.view(16) for _ in range(5)]
            self.assertEqual([recorder.ref_of(v).op for v in views], [0, 1, 2, 3, 4])
            del views
            total = model.table.sum()  # the recorder lets go of the previous op's outputs at the next op
        self.assertEqual(list(recorder.refs.values()), [recorder.ref_of(total)])

    def test_saves_other_names_backwards_that_keep_no_vertex_tensor(self):
        # A stochastic depth (torchvision's, Swin-T's blocks) multiplies by a mask made from the shape
        # alone: its backward keeps the mask, no vertex's tensor, so saved_by cannot say it saves. A
        # linear layer keeps its weight besides its input; a ReLU keeps only its output. (Rules P9, P12:
        # whether a checkpointed function saved anything decides when it is re-forwarded and released.)
        import torchvision
        class Block(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.first = torch.nn.Linear(6, 6)
                self.relu = torch.nn.ReLU()
                self.second = torch.nn.Linear(6, 6)
                self.drop = torchvision.ops.StochasticDepth(0.5, "row")

            def forward(self, x):
                h = self.relu(self.first(x))
                return h + self.drop(self.second(h))

        torch.manual_seed(0)
        graph = export_graph(Block(), (torch.randn(4, 6),))
        flags = {v["id"]: v.get("saves_other", False) for v in graph["vertices"]}
        # The first layer's input needs no gradient, so its backward keeps no weight; the second's does.
        self.assertEqual(flags, {"input": False, "first": False, "relu": False, "second": True, "drop": True,
                                 "add": False})

    def test_saves_other_reads_saved_buffers(self):
        # DLRM's interaction picks its pairs with index buffers, which aten::index saves and nothing
        # else: its backward is the first of a re-forwarded segment to unpack. The recording restored
        # every buffer before it read what the backwards saved, and the saved indices were then
        # unreadable (modified in place).
        class Pairs(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.embed = torch.nn.Linear(4, 3 * 8)
                self.register_buffer("li", torch.tensor([1, 2, 2]))
                self.register_buffer("lj", torch.tensor([0, 0, 1]))

            def forward(self, x):
                t = self.embed(x).view(-1, 3, 8)
                return torch.bmm(t, t.transpose(1, 2))[:, self.li, self.lj]

        torch.manual_seed(0)
        graph = export_graph(Pairs(), (torch.randn(4, 4),))
        flags = {v["op"]: v.get("saves_other", False) for v in graph["vertices"]}
        self.assertTrue(flags["aten::index"], graph["vertices"])

    def test_depth_cuts_at_transformer_blocks(self):
        torch.manual_seed(0)
        graph = export_graph(models.gpt(), (torch.randint(0, 100, (2, 32)),), depth=3)
        ids = [v["id"] for v in graph["vertices"]]
        self.assertIn("transformer.h.0", ids)
        self.assertIn("transformer.h.1", ids)
        self.assertFalse(any(i.startswith("transformer.h.0.") for i in ids), ids)

    def test_bad_input(self):
        cases = {
            "not a module": ([f"{MODELS}:not_a_module", "--input", "2x3"], "returned int, not a torch.nn.Module"),
            "no factory": ([f"{MODELS}:missing", "--input", "2x3"], "has no function missing"),
            "no file": (["/nonexistent/model.py:f", "--input", "2x3"], "no such file"),
            "wrong shape": ([f"{MODELS}:resnet18", "--input", "2x5x64x64"], "ResNet (conv1)"),
            "wrong dtype": ([f"{MODELS}:gpt", "--input", "2x32"], "GPT (transformer.wte)"),
            "returns its input": ([f"{MODELS}:returns_input", "--input", "2x3"], "forward returns an input"),
            "bad shape syntax": ([f"{MODELS}:resnet18", "--input", "2x-3"], "is not like 8x3x224x224"),
            "bad dtype": ([f"{MODELS}:resnet18", "--input", "2x3:complex7"], "input dtype 'complex7'"),
        }
        for name, (arguments, expected) in cases.items():
            with self.subTest(name), support.scratch() as folder:
                out = os.path.join(folder, "graph.json")
                run = export(*arguments, output=out)
                self.assertEqual(run.returncode, 1, run.stderr)
                lines = run.stderr.strip().splitlines()
                self.assertEqual(len(lines), 1, run.stderr)
                self.assertIn(expected, lines[0])
                self.assertTrue(lines[0].startswith("checkpoint_explorer: "), lines[0])
                self.assertEqual(os.listdir(folder), [])

    def test_planned_step_holds_what_the_plain_step_holds(self):
        # P20: apply_plan makes each static (an LSTM's weights, transposed at every time step) just
        # before the vertex that reads it, so that autograd forms the weights' gradients right after
        # that vertex's backward, as in the model's own step. Made before the first vertex, their
        # nodes ran last and every step's transposes' gradients were held to the end: keeping every
        # vertex peaked at x2.4 the plain step, and the feng-acg plan no lower.
        def step_peak(module, inputs):
            def step():
                module(*inputs).sum().backward()

            for _ in range(2):  # the second: after a warm-up, as in training
                for p in module.parameters():
                    p.grad = None
                peak = TransientMeter("cpu").peak_and_end(step)[0]
            return peak

        torch.manual_seed(0)
        model = models.lstm_lm().train()
        inputs = make_inputs(["8x24:int64:500"], "cpu")
        plain = step_peak(model, inputs)
        with support.scratch() as folder:
            graph = os.path.join(folder, "lstm.json")
            export_graph(model, inputs, graph)
            for solver, ratio in (("checkpoint-all", 1.25), ("feng-acg", 1.0)):
                plan = os.path.join(folder, f"{solver}.json")
                support.solve(graph, solver, plan)
                planned = step_peak(apply_plan(model, plan, example_inputs=inputs), inputs)
                self.assertLess(planned, ratio * plain, f"{solver}: {planned} bytes against the plain step's {plain}")

    def test_keyword_inputs_as_hugging_face_models_take_them(self):
        # `model(**batch)`: the graph's inputs are the positional tensors, then the keyword ones by name;
        # the planned module takes the same call, plain keyword values included, and trains as the model.
        model = models.keyword_lm().train()
        ids = torch.randint(0, 1000, (4, 64))
        # The labels are the ids, one tensor in two places, as causal LMs are often called.
        batch = {"labels": ids, "input_ids": ids, "attention_mask": torch.ones_like(ids)}
        with support.scratch() as folder:
            graph, plan = os.path.join(folder, "graph.json"), os.path.join(folder, "plan.json")
            document = export_graph(model, batch, graph)
            self.assertEqual([i.get("keyword") for i in document["metadata"]["inputs"]],
                             ["attention_mask", "input_ids", "labels"])
            support.solve(graph, "feng-acg", plan)
            planned = apply_plan(copy.deepcopy(model), plan, example_inputs=batch)
            for module in (model, planned):
                module.zero_grad(set_to_none=True)
                torch.manual_seed(1)
                loss = module(**batch)["loss"]
                loss.backward()
            self.assertEqual(support.first_difference(model, planned.model), None)
            # Labels a copy of the ids (as a data collator makes them) make the same graph; a plain value
            # is passed as it is; a call with other tensors is another graph than the plan's.
            planned(**dict(batch, labels=ids.clone()))["loss"].backward()
            loss, logits = planned(**batch, return_dict=False)
            self.assertEqual(tuple(logits.shape), (4, 64, 1000))
            with self.assertRaises(PlanError) as refused:
                planned(input_ids=ids)
            self.assertIn("this call makes a different graph", str(refused.exception))
            with self.assertRaises(PlanError) as refused:
                planned(input_ids=ids, labels=[ids])
            self.assertIn("keyword input 'labels' is a list", str(refused.exception))
            with self.assertRaises(ExportError) as refused:
                export_graph(model, {"input_ids": ids, "labels": [ids]})
            self.assertIn("keyword input 'labels' is a list", str(refused.exception))
            run = export(f"{MODELS}:keyword_lm", "--input", "input_ids=4x64:int64:1000", "--input", "ids=4x64:int64",
                         "--input", "input_ids=4x64:int64", output=os.path.join(folder, "twice.json"))
            self.assertEqual(run.returncode, 1, run.stderr)
            self.assertIn("keyword 'input_ids' given twice", run.stderr)

    def test_planned_module_stands_in_for_the_model(self):
        # Its attributes are the model's; a checkpoint saved while training with the plan loads into
        # the plain model and back, also with the planned module inside another (the keys are the
        # model's, BatchNorm's included).
        model = models.resnet18()
        inputs = (torch.randn(2, 3, 64, 64),)
        with support.scratch() as folder:
            graph, plan = os.path.join(folder, "graph.json"), os.path.join(folder, "plan.json")
            export_graph(model, inputs, graph)
            support.solve(graph, "feng-acg", plan)
            planned = apply_plan(model, plan)
            self.assertIs(planned.fc, model.fc)  # what the planned module lacks, the model answers
            self.assertEqual(planned._forward_impl.__self__, model)
            with self.assertRaises(AttributeError):
                planned.no_such_attribute
            self.assertEqual(list(planned.state_dict()), list(model.state_dict()))
            fresh = models.resnet18()
            fresh.load_state_dict(planned.state_dict())
            for p in fresh.parameters():
                p.data.add_(1.0)
            planned.load_state_dict(fresh.state_dict())
            self.assertTrue(torch.equal(model.conv1.weight, fresh.conv1.weight))
            outer = torch.nn.Sequential(planned, torch.nn.Identity())
            self.assertEqual(list(outer.state_dict()), ["0." + key for key in model.state_dict()])
            other = torch.nn.Sequential(apply_plan(copy.deepcopy(model), plan), torch.nn.Identity())
            for p in other.parameters():
                p.data.zero_()
            other.load_state_dict(outer.state_dict())
            self.assertTrue(torch.equal(other[0].model.layer4[1].bn2.weight, model.layer4[1].bn2.weight))
            with self.assertRaises(RuntimeError) as refused:
                planned.load_state_dict({"model." + k: v for k, v in model.state_dict().items()})
            self.assertIn("Missing key(s)", str(refused.exception))
            # Each module's version goes with its keys: BatchNorm's says a checkpoint needs its count.
            uncounted = fresh.state_dict()
            del uncounted["bn1.num_batches_tracked"]
            for module in (fresh, planned):
                with self.assertRaises(RuntimeError) as refused:
                    module.load_state_dict(uncounted)
                self.assertIn("bn1.num_batches_tracked", str(refused.exception))

    def test_outputs_in_containers_models_define(self):
        # An OrderedDict subclass of named outputs, a dataclass (Hugging Face's ModelOutput is both,
        # registered with pytree by transformers; a user's own is not): exported, and returned by the
        # planned module as the model returns them.
        class Named(collections.OrderedDict):
            pass

        @dataclasses.dataclass
        class Output:
            loss: torch.Tensor
            extras: Named

        class Model(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.layers = torch.nn.Sequential(*[torch.nn.Linear(16, 16) for _ in range(4)])

            def forward(self, x):
                y = self.layers(x)
                return Output(loss=y.square().mean(), extras=Named(logits=y, first=x.sum()))

        model, x = Model(), torch.randn(8, 16)
        with support.scratch() as folder:
            graph, plan = os.path.join(folder, "graph.json"), os.path.join(folder, "plan.json")
            export_graph(model, x, graph)
            support.solve(graph, "feng-acg", plan)
            out = apply_plan(model, plan)(x)
            self.assertIsInstance(out, Output)
            self.assertIsInstance(out.extras, Named)
            self.assertEqual(list(out.extras), ["logits", "first"])
            self.assertTrue(torch.allclose(out.extras["logits"], model(x).extras["logits"]))
            self.assertIs(profiler._loss(out), out.loss)

    def test_what_the_model_runs_in_no_grad_stays_there(self):
        # A backbone the model runs in torch.no_grad(): the planned module replays it so, and its weights
        # get no gradient, as in the model's own step (they got one, and the step held its activations).
        model = models.frozen_backbone()
        x = torch.randn(4, 3, 32, 32)
        planned = support.planned_copy(model, x, "checkpoint-all")
        for module in (model, planned):
            module(x).sum().backward()
        self.assertIsNone(planned.model.backbone.conv1.weight.grad)
        self.assertEqual(support.first_difference(model, planned.model), None)

    def test_untracked_segments_run_plainly(self):
        # P36: feng-acg's plans checkpoint inside what autograd does not track (a backbone in the model's
        # own torch.no_grad(), frozen layers under an input that needs no gradient). Run as checkpointed
        # functions, those segments held their inputs and were never re-forwarded (mean error 8.9 %);
        # they run plainly. The record apply_plan makes without autograd marks what autograd tracks as
        # an export's, made with it, does.
        from checkpoint_explorer.planned import planned_inputs
        x = torch.randn(4, 3, 32, 32)
        for build in (models.frozen_backbone, models.frozen_resnet):
            model = build()
            tracked = [v.requires_grad for v in VertexGraph(record(model, (x,), saved=True)).vertices]
            inferred = [v.requires_grad for v in VertexGraph(record(model, (x,), saved=False)).vertices]
            self.assertEqual(inferred, tracked, build)
            self.assertIn(False, tracked)
            planned = support.planned_copy(model, x, "feng-acg")
            checkpoints = set(planned.plan["checkpoints"])
            prepared = planned._prepared(planned_inputs(x))
            vertices = prepared["graph"].vertices
            plain = [vertices[i].id for step in prepared["steps"] if not step.checkpointed for i in step.members
                     if vertices[i].id not in checkpoints and not vertices[i].requires_grad]
            self.assertTrue(plain, "the plan has no segment among the untracked vertices")
            for step in prepared["steps"]:
                if step.checkpointed:
                    self.assertTrue(any(vertices[i].requires_grad for i in step.members), step.members)
            for module in (model, planned):
                module(x).sum().backward()
            self.assertEqual(support.first_difference(model, planned.model), None)

    def test_the_models_own_checkpointing_is_what_a_plan_replaces(self):
        # A model that checkpoints its blocks itself (Hugging Face's gradient_checkpointing_enable):
        # recorded as it ran, the reentrant variant ran each block in torch.no_grad(), so the export
        # said autograd tracked none of them and apply_plan replayed them without it: the blocks got
        # no gradients. The record runs the model's own checkpoints plainly, in both variants: the
        # graph is the one the model makes without them, and the plan's step trains what the model's does.
        import torch.utils.checkpoint as checkpointing
        from checkpoint_explorer import _compat

        class Block(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.a, self.b = torch.nn.Linear(64, 64), torch.nn.Linear(64, 64)

            def forward(self, x):
                return x + self.b(torch.relu(self.a(x)))

        class SelfCheckpointing(torch.nn.Module):
            def __init__(self, reentrant):
                super().__init__()
                self.reentrant = reentrant
                self.stem, self.head = torch.nn.Linear(64, 64), torch.nn.Linear(64, 10)
                self.blocks = torch.nn.ModuleList(Block() for _ in range(4))

            def forward(self, x):
                x = self.stem(x)
                for block in self.blocks:
                    if self.reentrant is None:
                        x = block(x)
                    elif _compat.has_non_reentrant_checkpoint():
                        x = checkpointing.checkpoint(block, x, use_reentrant=self.reentrant)
                    else:
                        x = checkpointing.checkpoint(block, x)
                return self.head(x)

        def internals():
            return [vars(owner).get(name) for owner, name, _ in _compat.checkpoint_internals()]

        before = internals()
        x = torch.randn(8, 64)
        torch.manual_seed(0)
        plain = export_graph(SelfCheckpointing(None), x)["vertices"]
        for reentrant in (True, False):
            torch.manual_seed(0)
            model = SelfCheckpointing(reentrant)
            with support.scratch() as folder:
                graph, plan = os.path.join(folder, "graph.json"), os.path.join(folder, "plan.json")
                self.assertEqual(export_graph(model, x, graph)["vertices"], plain, reentrant)
                support.solve(graph, "feng-acg", plan)
                planned = apply_plan(copy.deepcopy(model), plan)
                for module in (model, planned):
                    module(x).sum().backward()
                self.assertIsNotNone(planned.model.blocks[0].a.weight.grad)
                self.assertEqual(support.first_difference(model, planned.model), None)
            self.assertEqual(internals(), before, "the record left torch.utils.checkpoint patched")

    def test_paths_that_test_input_values(self):
        # A model that branches on what its inputs hold, as Hugging Face's SDPA attention leaves out a
        # padding mask of ones. The export of an all-ones batch failed ("the output does not depend on
        # input 0"); the planned module replayed the first call's path for every call of its shapes, so a
        # padded batch trained as if nothing were padded. Now the export says the mask goes unread, and
        # the planned module runs the path's tests on each call's inputs: where one comes out otherwise
        # it records that call again, and uses it if it makes the plan's graph (else says why not).
        from checkpoint_explorer.planned import planned_inputs

        class Masked(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.embed, self.mix, self.head = torch.nn.Embedding(100, 32), torch.nn.Linear(32, 32), torch.nn.Linear(32, 5)

            def forward(self, input_ids, attention_mask, scale):
                x = self.mix(self.embed(input_ids))
                if not bool((attention_mask == 1).all()):
                    x = x * attention_mask[..., None]
                x = x * (2.0 if scale.item() > 0 else 3.0)  # a path that keeps the graph's shape
                if bool(x.isinf().any()):  # a test of what the weights computed: not run before the call
                    x = x.clamp(-1e4, 1e4)
                if bool(torch.rand([]) < 0.0):  # LayerDrop's test of a random draw: not run either
                    x = x * 0
                return self.head(torch.relu(x)).sum()

        torch.manual_seed(0)
        model = Masked()
        ids = torch.randint(0, 100, (4, 16))
        ones = torch.ones(4, 16)
        padded = ones.clone()
        padded[:, 10:] = 0

        def batch(mask, scale):
            return {"input_ids": ids, "attention_mask": mask, "scale": torch.tensor(scale)}

        with support.scratch() as folder:
            graph, plan = os.path.join(folder, "graph.json"), os.path.join(folder, "plan.json")
            with warnings.catch_warnings(record=True) as said:
                warnings.simplefilter("always")
                document = export_graph(model, batch(ones, 1.0), graph)
            self.assertEqual([str(w.message).split(";")[0] for w in said],
                             ["Masked: the output does not depend on input 0 ('attention_mask')",
                              "Masked: the output does not depend on input 2 ('scale')"])
            self.assertEqual(len(document["metadata"]["inputs"]), 3)
            self.assertEqual([v["id"] for v in document["vertices"] if v["op"] == "input"], ["input"])
            support.solve(graph, "checkpoint-all", plan)
            planned = apply_plan(copy.deepcopy(model), plan)
            with warnings.catch_warnings(record=True) as said:
                warnings.simplefilter("always")
                planned(**batch(ones, 1.0))
            self.assertEqual([w.filename for w in said], [__file__])
            self.assertIn("tests a value its forward computes or draws (aten::_local_scalar_dense)", str(said[0].message))
            self.assertEqual(len(planned._prepared(planned_inputs(batch(ones, 1.0)))["tests"].untestable), 2)
            for scale in (1.0, -1.0, 1.0):
                for module in (model, planned):
                    module.zero_grad(set_to_none=True)
                    module(**batch(ones, scale)).backward()
                self.assertEqual(support.first_difference(model, planned.model), None, scale)
            with self.assertRaises(PlanError) as refused:
                planned(**batch(padded, 1.0))
            self.assertIn("control flow that depends on their shapes or values", str(refused.exception))
            # A number read off an input that changes at every call: each call is recorded again (correct,
            # a forward dearer), and a warning says so once.
            with warnings.catch_warnings(record=True) as said:
                warnings.simplefilter("always")
                for scale in (2.0, 3.0, 4.0, 5.0, -2.0, -3.0):
                    planned(**batch(ones, scale)).backward()
            self.assertEqual(len([w for w in said if "keep coming out otherwise" in str(w.message)]), 1)

        # A test of what the forward writes in place (here an input) is not run before the call, which
        # would write it again, and the record is made on copies of the call's tensors. (The replay
        # leaves out the write to `seen`, as it leaves out every op the output does not depend on.)
        # An input the model scales in place (`x.mul_(2)`) is scaled once, as the model does: the replay
        # could not run it ("value of op 0 (aten::mul_) is not available").
        class Counting(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.linear = torch.nn.Linear(4, 4)

            def forward(self, x, seen):
                x.mul_(2)
                seen.add_(1)
                return self.linear(x).sum() * (2.0 if bool((seen > 1).all()) else 1.0)

        torch.manual_seed(0)
        counting, x = Counting(), torch.randn(2, 4)
        planned = support.planned_copy(counting, (x.clone(), torch.zeros(3)), "feng-acg")
        with warnings.catch_warnings(record=True) as said:
            warnings.simplefilter("always")
            for module in (counting, planned):
                scaled, counted = x.clone(), torch.zeros(3)
                module.zero_grad(set_to_none=True)
                module(scaled, counted).backward()
                self.assertTrue(torch.equal(scaled, 2 * x), module)
            planned(x.clone(), counted)
        self.assertEqual(support.first_difference(counting, planned.model), None)
        self.assertTrue(torch.equal(counted, torch.zeros(3)))  # neither the record nor the tests wrote it
        self.assertIn("tests a value its forward computes or draws", str(said[-1].message))

    def test_numbers_read_without_an_op(self):
        from checkpoint_explorer.planned import planned_inputs

        # Packed sequences split by lengths read off an input: `tolist()` and `numpy()` of a CPU tensor
        # dispatch no op, so the record held no test of them and the planned module replayed the first
        # call's split sizes for every batch of the same shapes: other lengths trained wrong gradients.
        class Packed(torch.nn.Module):
            def __init__(self, read):
                super().__init__()
                self.read = read
                self.embed, self.mix, self.head = torch.nn.Embedding(100, 16), torch.nn.Linear(16, 16), torch.nn.Linear(16, 3)

            def forward(self, input_ids, lengths):
                x = self.mix(self.embed(input_ids))
                sizes = lengths.tolist() if self.read == "tolist" else [int(n) for n in lengths.numpy()]
                pooled = torch.stack([piece.mean(0) for piece in torch.split(x, sizes)])
                return self.head(torch.relu(pooled)).sum()

        ids = torch.randint(0, 100, (16,))
        for read in ("tolist", "numpy"):
            torch.manual_seed(0)
            model = Packed(read)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # the lengths go unread by any op: the export says so
                planned = support.planned_copy(model, (ids, torch.tensor([4, 4, 8])), "feng-acg")
            for lengths in ([4, 4, 8], [8, 4, 4], [4, 4, 8]):
                for module in (model, planned):
                    module.zero_grad(set_to_none=True)
                    module(ids, torch.tensor(lengths)).backward()
                self.assertEqual(support.first_difference(model, planned.model), None, (read, lengths))
            self.assertEqual(planned._prepared(planned_inputs((ids, torch.tensor([8, 4, 4]))))["tests"].untestable, [])

    def test_shapes_that_depend_on_values(self):
        # The rows a mask picks (`hidden[mask]`, `nonzero`) are as many as it holds: a forward that reads
        # that count in Python (a size argument, a branch) took the recorded count's path on every call,
        # the arange below with the first batch's length ("The size of tensor a (6) must match ...") and
        # the branch silently. Reading such a shape is a test of the mask: run before the call on a
        # stand-in of the hidden states' shape, since those are computed with the weights.
        from checkpoint_explorer.planned import planned_inputs

        class Selected(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.embed, self.mix, self.head = torch.nn.Embedding(100, 16), torch.nn.Linear(16, 16), torch.nn.Linear(16, 3)

            def forward(self, input_ids, mask):
                picked = self.mix(self.embed(input_ids))[mask]
                ramp = torch.arange(picked.size(0), dtype=picked.dtype) / 8
                if len(torch.nonzero(mask)) > 4:
                    ramp = ramp * 2
                return self.head(torch.relu(picked * ramp[:, None])).sum()

        torch.manual_seed(0)
        model, ids = Selected(), torch.randint(0, 100, (2, 8))

        def mask(count):
            held = torch.zeros(2, 8, dtype=torch.bool)
            held.view(-1)[:count] = True
            return held

        planned = support.planned_copy(model, (ids, mask(3)), "feng-acg")
        for count in (3, 6, 3, 5):
            for module in (model, planned):
                module.zero_grad(set_to_none=True)
                module(ids, mask(count)).backward()
            self.assertEqual(support.first_difference(model, planned.model), None, count)
        self.assertEqual(planned._prepared(planned_inputs((ids, mask(6))))["tests"].untestable, [])

    def test_under_distributed_data_parallel(self):
        # Training scripts wrap the planned module in DistributedDataParallel, whose reducer hooks each
        # weight's gradient as the backward forms it (here one process, gloo, on the CPU): a tied
        # embedding's gradient, formed at the head and at the lookup, must still be reduced whole.
        import torch.distributed as dist
        from torch.nn.parallel import DistributedDataParallel

        torch.manual_seed(0)
        model, x = models.gpt_bench(), torch.randint(0, 1000, (2, 32))
        planned = support.planned_copy(model, x, "feng-acg")
        with support.scratch() as folder:
            dist.init_process_group("gloo", init_method="file://" + os.path.join(folder, "rendezvous"), rank=0,
                                    world_size=1)
            try:
                plain, wrapped = DistributedDataParallel(model), DistributedDataParallel(planned)
                for step in range(2):
                    for module in (plain, wrapped):
                        torch.manual_seed(step)  # the same dropout masks
                        module.zero_grad(set_to_none=True)
                        module(x).float().mean().backward()
                    self.assertEqual(support.first_difference(model, planned.model), None, step)
            finally:
                dist.destroy_process_group()

    def test_buffers_updated_from_the_inputs(self):
        # A layer that keeps a running mean of what it sees, as custom norms, EMA codebooks and queues do:
        # the export refused it ("in-place update of a parameter or buffer from values computed from the
        # input"). Now the update runs in its turn (the EMA's `mul_(m)` no longer once upfront, before the
        # read), counts once though a re-forward runs its function again, and each re-forward reads the
        # buffer as its forward did (the update may run before it, in another function).
        class RunningCentre(torch.nn.Module):
            def __init__(self, idiom):
                super().__init__()
                self.idiom = idiom
                self.register_buffer("running", torch.zeros(16))

            def forward(self, x):
                centred = x - self.running
                with torch.no_grad():
                    if self.idiom == "copy_":
                        self.running.copy_(0.9 * self.running + 0.1 * x.mean(0))
                    elif self.idiom == "div_":  # a write reading no input after the update: it was left out
                        self.running.add_(x.mean(0)).div_(2)
                    else:
                        self.running.mul_(0.9).add_(x.mean(0), alpha=0.1)
                return centred

        def model(idiom):
            torch.manual_seed(0)
            blocks = [torch.nn.Sequential(torch.nn.Linear(16, 16), RunningCentre(idiom), torch.nn.Tanh()) for _ in range(3)]
            return torch.nn.Sequential(*blocks, torch.nn.Linear(16, 2))

        x = torch.randn(8, 16)
        for idiom in ("mul_", "copy_", "div_"):
            for solver in ("checkpoint-all", "feng-acg", "hong-dynamic"):
                plain = model(idiom)
                planned = support.planned_copy(plain, x, solver)
                for step in range(3):
                    for module in (plain, planned):
                        module.zero_grad(set_to_none=True)
                        module(x * (step + 1)).sum().backward()
                    self.assertEqual(support.first_difference(plain, planned.model), None, (idiom, solver, step))

        class ReadAfter(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.linear = torch.nn.Linear(4, 4)
                self.register_buffer("running", torch.zeros(4))

            def forward(self, x):
                with torch.no_grad():
                    self.running.add_(x.mean(0))
                return self.linear(x - self.running).sum()

        with support.scratch() as folder, self.assertRaises(ExportError) as refused:
            export_graph(ReadAfter(), torch.randn(2, 4), os.path.join(folder, "graph.json"))
        self.assertIn("reads buffer 'running' after the forward began to update it in place", str(refused.exception))

    def test_fused_attention_counts_its_products(self):
        # torch 2.x runs nn.MultiheadAttention and F.scaled_dot_product_attention as one fused kernel;
        # counted by its output's elements, an attention's recompute cost was about 4 x length too low.
        from types import SimpleNamespace
        from checkpoint_explorer.program import OutputRef, RecordedOp, TensorInfo
        from checkpoint_explorer.vertices import _op_compute

        def info(*shape):
            return TensorInfo(shape, torch.float32, None, 4 * int(torch.Size(shape).numel()), True)

        def op(index, name, leaves, outputs):
            return RecordedOp(index, SimpleNamespace(_schema=SimpleNamespace(name=name)), leaves, None, outputs, None,
                              (), False)

        b, h, length, keys, dim = 8, 4, 128, 64, 32
        program = SimpleNamespace(inputs=[], ops=[op(0, "aten::empty", [], [info(b, h, length, dim)]),
                                                   op(1, "aten::empty", [], [info(b, h, keys, dim)])])
        for name in ("aten::_scaled_dot_product_flash_attention", "aten::_scaled_dot_product_efficient_attention"):
            attention = op(2, name, [OutputRef(0, 0), OutputRef(1, 0), OutputRef(1, 0)],
                           [info(b, h, length, dim), info(b, h, length)])
            self.assertEqual(_op_compute(attention, program), 2.0 * b * h * length * keys * dim * 2, name)

    def test_numbers_returned_beside_tensors_are_no_test(self):
        # torch 2.x's flash attention returns its sequence lengths (ints) beside its tensors: recorded as
        # numbers the forward computed with the weights, every transformer's planned module warned that
        # it replays a path it cannot test. Stood in for by an op of that signature.
        library = torch.library.Library("ckptx_test", "DEF")
        library.define("attention(Tensor q) -> (Tensor, int)")
        library.impl("attention", lambda q: (q * 2, q.shape[0]), "CPU")

        class Attention(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.linear = torch.nn.Linear(4, 4)

            def forward(self, x):
                return torch.ops.ckptx_test.attention(self.linear(x))[0]

        program = record(Attention(), (torch.randn(2, 4),), saved=False)
        self.assertEqual([op.values for op in program.ops], [()] * len(program.ops))
        self.assertEqual(PathTests(program).untestable, [])

    def test_numbers_read_off_tensors_record_no_op_of_ours(self):
        # The numbers a forward reads with tolist() or numpy() were read again for the record with
        # detach() and reshape(-1), under the recorder: the record held those ops as the model's.
        class Reads(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.linear = torch.nn.Linear(4, 4)

            def forward(self, x, n):
                k = int(n.sum().tolist())
                return self.linear(x)[:k].sum() + float(n.numpy()[0])

        program = record(Reads(), (torch.randn(3, 4), torch.tensor([1, 1])), saved=False)
        self.assertEqual([(read.name, read.values) for read in program.reads], [("tolist", (2,)), ("numpy", (1, 1))])
        self.assertFalse({"aten::_reshape_alias", "aten::view", "aten::reshape"} & {op.name for op in program.ops},
                         [op.name for op in program.ops])

    def test_composable_checkpoint_runs_plainly_when_recorded(self):
        # torch 2.x's composable `checkpoint(module)` holds the non-reentrant generator under its own
        # name: the record's stand-in must replace it there too, or a module so marked runs the real
        # checkpoint while recorded. Stood in for by a module of that name.
        import types
        from checkpoint_explorer import _compat
        name = "torch.distributed._composable.checkpoint_activation"
        composable = types.ModuleType(name)
        composable._checkpoint_without_reentrant_generator = lambda *args, **kwargs: iter(())
        with unittest.mock.patch.dict(sys.modules, {name: composable}):
            self.assertIn(composable, [owner for owner, _, _ in _compat.checkpoint_internals()])

    def test_buffers_after_a_reforward_stopped_early(self):
        # torch 2.x's non-reentrant checkpoint stops a re-forward once it has recomputed the function's
        # last saved tensor, by raising from that tensor's pack hook: apply_plan's function then never
        # put back the buffers its forward had updated (an EMA read the value before the update during
        # the re-forward, and kept it). Emulated on any torch: each function runs plainly, then again as
        # such a re-forward. Without the `finally` the buffers read "differ" here.
        class Stop(Exception):
            pass

        class RunningCentre(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.register_buffer("running", torch.zeros(16))

            def forward(self, x):
                centred = x - self.running
                with torch.no_grad():
                    self.running.mul_(0.9).add_(x.mean(0), alpha=0.1)
                return centred

        def model():
            torch.manual_seed(0)
            return torch.nn.Sequential(*[torch.nn.Sequential(torch.nn.Linear(16, 16), RunningCentre(), torch.nn.Tanh())
                                         for _ in range(3)], torch.nn.Linear(16, 2))

        runs = []

        def counting(saves):
            return lambda tensor: saves.append(1) or tensor

        def run_plainly(function, *args):
            saves = []
            with torch.autograd.graph.saved_tensors_hooks(counting(saves), lambda tensor: tensor):
                outputs = function(*args)
            runs.append((function, args, len(saves)))
            return outputs

        def stop_at(last):
            saves = []

            def pack(tensor):
                saves.append(1)
                if len(saves) == last:
                    raise Stop
                return tensor
            return pack

        x = torch.randn(8, 16)
        plain = model()
        planned = support.planned_copy(plain, x, "feng-acg")
        with unittest.mock.patch("checkpoint_explorer._compat.checkpoint", run_plainly):
            for module in (plain, planned):
                module(x).sum().backward()
        self.assertGreater(len(runs), 0)
        for function, args, saved in runs:
            with self.assertRaises(Stop), torch.autograd.graph.saved_tensors_hooks(stop_at(saved), lambda tensor: tensor):
                function(*[a.detach().requires_grad_(a.requires_grad) for a in args])
        for (name, a), (_, b) in zip(plain.named_buffers(), planned.model.named_buffers()):
            self.assertTrue(torch.equal(a, b), name)

    def test_a_submodules_mode_and_replaced_weights_are_part_of_the_call(self):
        # Fine-tuning scripts keep BatchNorm in eval mode (running statistics frozen) while the model
        # trains. Set after the first call, the planned module replayed the first call's record, which
        # normalised with the batch's statistics and updated the running ones.
        model = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3), torch.nn.BatchNorm2d(8), torch.nn.ReLU(),
                                    torch.nn.Conv2d(8, 8, 3), torch.nn.Flatten(), torch.nn.Linear(8 * 12 * 12, 4))
        x = torch.randn(4, 3, 16, 16)
        planned = support.planned_copy(model, x, "feng-acg")
        for frozen in (False, True):
            for module in (model, planned.model):
                module[1].train(not frozen)
            for module in (model, planned):
                module.zero_grad(set_to_none=True)
                module(x).sum().backward()
            self.assertEqual(support.first_difference(model, planned.model), None, frozen)
            self.assertTrue(torch.equal(model[1].running_mean, planned.model[1].running_mean), frozen)
        # A weight replaced by another tensor (load_state_dict(assign=True) makes new ones): the first
        # record read the old one, which then trained while the new one got no gradient.
        for module in (model, planned.model):
            module[5].weight = torch.nn.Parameter(torch.ones_like(module[5].weight))
        for module in (model, planned):
            module.zero_grad(set_to_none=True)
            module(x).sum().backward()
        self.assertEqual(support.first_difference(model, planned.model), None)

    def test_plan_for_another_model_is_refused(self):
        with support.scratch() as folder:
            graph, plan = os.path.join(folder, "gpt.json"), os.path.join(folder, "plan.json")
            export_graph(models.gpt(), (torch.randint(0, 100, (2, 32)),), graph)
            support.solve(graph, "feng-acg", plan)
            planned = apply_plan(models.resnet18(), plan)
            with self.assertRaises(PlanError) as refused:
                planned(torch.randn(2, 3, 64, 64))
            self.assertIn("the plan is for another graph", str(refused.exception))
            self.assertNotIn("eval mode", str(refused.exception))
            # Trained in eval mode, the model has no dropout: the message says why the graphs differ.
            in_eval = apply_plan(models.gpt(), plan).eval()
            with self.assertRaises(PlanError) as refused:
                in_eval(torch.randint(0, 100, (2, 32)))
            self.assertIn("the module is in eval mode; export_graph records training mode", str(refused.exception))
            with self.assertRaises(PlanError):
                apply_plan(models.resnet18(), plan, example_inputs=torch.randn(2, 3, 64, 64))
            with self.assertRaises(PlanError) as not_a_plan:
                apply_plan(models.resnet18(), graph)
            self.assertIn("not a checkpoint-explorer plan file", str(not_a_plan.exception))

    def test_export_inside_autocast_records_it(self):
        # Mixed precision: a tied weight is read through its autocast cast and its transpose (two static
        # ops), which the export's P23 measure ran only the last of (KeyError). Inside torch.autocast
        # and with autocast= the export records the same program, and the graph says it.
        tokens = (torch.randint(0, 100, (2, 32)),)
        with torch.autocast("cpu", dtype=torch.bfloat16):
            ambient = export_graph(models.gpt(), tokens)
        given = export_graph(models.gpt(), tokens, autocast="bfloat16")
        plain = export_graph(models.gpt(), tokens)
        self.assertEqual(ambient["metadata"]["autocast"], "bfloat16")
        self.assertEqual(ambient["metadata"]["fingerprint"], given["metadata"]["fingerprint"])
        self.assertNotIn("autocast", plain["metadata"])
        dtypes = {v["id"]: v["dtype"] for v in given["vertices"]}
        self.assertEqual(dtypes["lm_head"], "bfloat16")
        self.assertEqual(dtypes["transformer.ln_f"], "float32")  # layer norm runs in float32 under autocast
        self.assertLess(sum(v["bytes"] for v in given["vertices"]), sum(v["bytes"] for v in plain["vertices"]))

    def test_autocast_dtype_the_torch_lacks_is_refused(self):
        with support.scratch() as folder:
            out = os.path.join(folder, "gpt.json")
            run = export(f"{MODELS}:gpt", "--input", "2x32:int64:100", "--autocast", "float16", output=out)
            try:
                with torch.autocast("cpu", dtype=torch.float16):
                    supported = torch.get_autocast_cpu_dtype() == torch.float16 and torch.is_autocast_cpu_enabled()
            except RuntimeError:  # torch 1.13: "AutocastCPU only support Bfloat16"
                supported = False
            if supported:
                self.assertEqual(run.returncode, 0, run.stderr)
            else:
                self.assertEqual(run.returncode, 1)
                self.assertIn("has no float16 autocast on cpu", run.stderr)
                self.assertFalse(os.path.exists(out))
            # A graph file naming an autocast dtype there is none of: profile says which field.
            graph, plan = os.path.join(folder, "graph.json"), os.path.join(folder, "plan.json")
            tokens = torch.randint(0, 100, (2, 32))
            document = export_graph(models.gpt(), (tokens,), autocast="bfloat16")
            document["metadata"]["autocast"] = "int8"
            with open(graph, "w") as f:
                json.dump(document, f)
            support.solve(graph, "feng-acg", plan)
            with self.assertRaises(PlanError) as refused:
                profiler.profile(models.gpt(), (tokens,), graph, plan)
            self.assertIn("/metadata/autocast", str(refused.exception))
            # So is one whose accumulate_gradients is not a boolean.
            document["metadata"]["autocast"] = "bfloat16"
            document["metadata"]["accumulate_gradients"] = "yes"
            with open(graph, "w") as f:
                json.dump(document, f)
            with self.assertRaises(PlanError) as refused:
                profiler.profile(models.gpt(), (tokens,), graph, plan)
            self.assertIn("/metadata/accumulate_gradients: expected true or false", str(refused.exception))

    def test_planned_module_records_each_autocast_state_apart(self):
        # A plan exported under autocast runs in a training script's autocast forward; the same module
        # without autocast (an evaluation with gradients, say) records its float32 program apart
        # instead of replaying the casts.
        with support.scratch() as folder:
            graph, plan = os.path.join(folder, "gpt.json"), os.path.join(folder, "plan.json")
            tokens = torch.randint(0, 100, (2, 32))
            export_graph(models.gpt(), (tokens,), graph, autocast="bfloat16")
            support.solve(graph, "feng-acg", plan)
            planned = apply_plan(models.gpt(), plan)
            with torch.autocast("cpu", dtype=torch.bfloat16):
                self.assertEqual(planned(tokens).dtype, torch.bfloat16)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # its fingerprint is the float32 graph's: applied by module path
                self.assertEqual(planned(tokens).dtype, torch.float32)

    def test_cost_time_prices_what_flops_leave_out(self):
        # --cost time: each vertex's compute is its forward's measured time. BatchNorm counts few
        # FLOPs and takes a good part of a CNN's forward: its share of the price rises.
        import json
        with support.scratch() as folder:
            shares = {}
            for cost in ("flops", "time"):
                out = os.path.join(folder, f"{cost}.json")
                run = export(f"{MODELS}:resnet18", "--input", "2x3x32x32", "--cost", cost, output=out)
                self.assertEqual(run.returncode, 0, run.stderr)
                with open(out) as f:
                    graph = json.load(f)
                self.assertEqual(graph["metadata"]["compute_unit"], {"flops": "flops", "time": "microseconds"}[cost])
                vertices = [v for v in graph["vertices"] if v["op"] != "input"]
                self.assertTrue(all(v["compute"] > 0 for v in vertices), cost)
                total = sum(v["compute"] for v in vertices)
                shares[cost] = sum(v["compute"] for v in vertices if "batch_norm" in v["op"]) / total
                support.solve(out, "feng-acg", os.path.join(folder, f"{cost}.plan.json"))
            self.assertGreater(shares["time"], 3 * shares["flops"], shares)
            self.assertEqual(export(f"{MODELS}:resnet18", "--input", "2x3x32x32", "--cost", "joules",
                                    output=os.path.join(folder, "bad.json")).returncode, 2)

    def test_snapshot_needs_cuda(self):
        # --snapshot saves the CUDA allocator's history of the measured steps; on the CPU there is none
        # to record: one line saying so, exit 1, no file.
        env = dict(os.environ, PYTHONPATH=os.path.join(support.SOURCE, "app", "python"))
        with support.scratch() as folder:
            run = subprocess.run([sys.executable, "-m", "checkpoint_explorer", "profile", f"{MODELS}:gpt",
                                  "--graph", os.path.join(folder, "g.json"), "--plan", os.path.join(folder, "p.json"),
                                  "--input", "2x8:int64:100", "--snapshot", os.path.join(folder, "s.pickle"),
                                  "-o", os.path.join(folder, "t.json")], capture_output=True, text=True, env=env)
            self.assertEqual(run.returncode, 1, run.stderr)
            self.assertEqual(len(run.stderr.strip().splitlines()), 1, run.stderr)
            self.assertIn("--snapshot", run.stderr)
            self.assertIn("--device cuda", run.stderr)
            self.assertEqual(os.listdir(folder), [])

    def test_profiles_phase_markers_are_what_import_snapshot_reads(self):
        # On CUDA, `profile --snapshot` saves the allocator's history with the record_function ranges
        # the profile opens (steps, phases); `ckptx import-snapshot --graph` cuts it into steps by
        # them. They disagreed, unseen until a GPU ran it: the importer wanted the simulators' phase
        # index and every phase marked. Here the ranges of a real CPU profile go into a snapshot of
        # plain data (one allocation per phase start), which the importer must cut into both steps.
        from checkpoint_explorer import memory, profiler
        marks = []
        original = memory.profiler_range

        @contextlib.contextmanager
        def marked(name):
            marks.append(("START", name))
            with original(name):
                yield
            marks.append(("END", name))

        model, inputs = models.gpt(), (torch.randint(0, 100, (2, 32)),)
        with support.scratch() as folder:
            graph, plan = os.path.join(folder, "g.json"), os.path.join(folder, "p.json")
            export_graph(model, inputs, path=graph)
            support.solve(graph, "feng-acg", plan)
            memory.profiler_range = marked
            try:
                profiler.profile(model, inputs, graph, plan, iterations=1)
            finally:
                memory.profiler_range = original
            ours = [(stage, name) for stage, name in marks if name.startswith("ckptx:")]
            events, annotations = [], []
            for t, (stage, name) in enumerate(ours):
                annotations.append({"device": 0, "time_us": 10 * t, "stage": stage, "name": name})
                if stage == "START" and name.startswith("ckptx:phase:"):
                    events.append({"action": "alloc", "addr": 4096 * t, "size": 512, "stream": 0,
                                   "time_us": 10 * t + 1, "frames": []})
            snapshot = os.path.join(folder, "s.pickle")
            with open(snapshot, "wb") as f:
                pickle.dump({"segments": [{"device": 0, "blocks": [{"size": 512 * len(events),
                                                                    "state": "active_allocated"}]}],
                             "device_traces": [events], "external_annotations": annotations}, f, protocol=4)
            trace = os.path.join(folder, "t.json")
            run = subprocess.run([support.CKPTX, "import-snapshot", snapshot, "--graph", graph, "-o", trace],
                                 capture_output=True, text=True)
            self.assertEqual(run.returncode, 0, run.stderr)
            self.assertIn("2 marked steps", run.stdout)
            with open(trace) as f:
                imported = json.load(f)
            with open(graph) as f:
                vertices = len(json.load(f)["vertices"])
            for step in ("regular", "checkpointed"):
                self.assertEqual(len(imported[step]["phases"]), 2 * vertices + 2, step)

    def test_snapshot_records_stacks_of_allocations_only(self):
        # On torch 2.11 with CUDA, recording a stack at every free as well made the measured step's
        # backward fail ("run_backward returned NULL without setting an exception"); the history is
        # recorded with context="alloc" and saved atomically. Stand-ins for the CUDA-only calls.
        from checkpoint_explorer import profiler
        calls = []
        memory = torch.cuda.memory
        saved = {n: getattr(memory, n, None) for n in ("_record_memory_history", "_dump_snapshot")}
        memory._record_memory_history = lambda *a, **k: calls.append(k)
        memory._dump_snapshot = lambda path: open(path, "wb").write(b"history")
        try:
            with support.scratch() as folder:
                target = os.path.join(folder, "s.pickle")
                with profiler.allocator_history(target):
                    pass
                self.assertEqual(os.listdir(folder), ["s.pickle"])
        finally:
            for n, f in saved.items():
                setattr(memory, n, f) if f is not None else delattr(memory, n)
        self.assertEqual(calls[0].get("context"), "alloc", calls)
        self.assertEqual(calls[-1], {"enabled": None})

    def test_log_sum_exp_follows_the_replays_grad_mode(self):
        # SDPA's memory-efficient kernel (torch 2.x, CUDA) returns the log-sum-exp its backward reads only
        # when called with grad; apply_plan records without grad and replays with it. A stand-in op of the
        # same signature (Debian's torch has no such kernel): its replay must ask for the log-sum-exp.
        library = torch.library.Library("ckpt_test", "DEF")
        library.define("attend(Tensor x, bool compute_log_sumexp) -> (Tensor, Tensor)")
        library.impl("attend", lambda x, lse: (x * 2, x.new_zeros(x.shape[0] if lse else 0)), "CPU")

        class Attend(torch.nn.Module):
            def forward(self, x):
                return torch.ops.ckpt_test.attend(x, torch.is_grad_enabled())[0]

        x = torch.randn(3, 4, requires_grad=True)
        program = record(Attend(), (x,), saved=False)
        (op,) = [op for op in program.ops if op.name == "ckpt_test::attend"]
        self.assertEqual(op.leaves[1], False)  # as recorded
        self.assertEqual(program.run_op(op, lambda ref: x)[1].numel(), 3)
        with torch.no_grad():
            self.assertEqual(program.run_op(op, lambda ref: x)[1].numel(), 0)

    def test_cudnn_dropout_is_replayed_from_torchs_generator(self):
        # cuDNN's RNN draws its dropout masks from a state buffer it advances at every call, which
        # torch.utils.checkpoint does not keep: a re-forward drew other masks (wrong gradients on an
        # H200). A replay seeds a state of its own from torch's generator. Stand-ins for the CUDA-only
        # pieces: an op of `_cudnn_rnn`'s argument names that advances its state, and the state's seeding.
        from checkpoint_explorer import program as program_module
        library = torch.library.Library("ckpt_test_rnn", "DEF")
        library.define("rnn(Tensor input, float dropout, bool train, Tensor? dropout_state) -> Tensor")

        def rnn(x, dropout, train, state):
            mask = state.clone()
            state.add_(1)  # cuDNN advances its state at every call
            return x * mask.sum() if train and dropout > 0 else x.clone()
        library.impl("rnn", rnn, "CPU")

        class Rnn(torch.nn.Module):
            def __init__(self, dropout):
                super().__init__()
                self.dropout = dropout
                self.state = torch.zeros(4)  # cuDNN's cached state: not a buffer of the model

            def forward(self, x):
                return torch.ops.ckpt_test_rnn.rnn(x, self.dropout, self.training, self.state)

        x = torch.ones(3)
        seeded = program_module._fresh_dropout_state
        program_module._fresh_dropout_state = lambda dropout, seed, like: torch.full_like(like, float(seed % 1009))
        try:
            for dropout, train, draws in ((0.1, True, True), (0.0, True, False), (0.1, False, False)):
                model = Rnn(dropout).train(train)
                program = record(model, (x,), saved=False)
                (op,) = [op for op in program.ops if op.name == "ckpt_test_rnn::rnn"]
                self.assertEqual(op.draws_random, draws, (dropout, train))
                if not draws:
                    continue
                forward_state = torch.get_rng_state()
                first = program.run_op(op, lambda ref: x)[0]
                torch.set_rng_state(forward_state)  # what a checkpointed re-forward does
                again = program.run_op(op, lambda ref: x)[0]
                later = program.run_op(op, lambda ref: x)[0]
                self.assertTrue(torch.equal(first, again), (first, again))
                self.assertFalse(torch.equal(first, later))
        finally:
            program_module._fresh_dropout_state = seeded


if __name__ == "__main__":
    unittest.main()
