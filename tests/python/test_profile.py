"""`python3 -m checkpoint_explorer profile` at batch 8 on CPU: the planned step's gradients equal the
regular step's, the trace is one `ckptx simulate --trace` reads (it prints the errors), and a plan for
another model or a killed run leaves no file."""
import json
import os
import signal
import subprocess
import sys
import time
import unittest

import support
import models

MODELS = os.path.join(support.HERE, "models.py")
INPUTS = {"gpt": "8x32:int64:100", "vit": "8x3x32x32", "resnet18": "8x3x64x64", "densenet121": "8x3x64x64",
          "mobilenet_v2": "8x3x64x64", "position_bias": "8x32x32"}
ENV = dict(os.environ, PYTHONPATH=os.path.join(support.SOURCE, "app", "python"))


def package(*arguments):
    return subprocess.run([sys.executable, "-m", "checkpoint_explorer", *arguments], capture_output=True, text=True,
                          env=ENV)


def prepare(folder, name, solver="feng-acg"):
    graph, plan = os.path.join(folder, "graph.json"), os.path.join(folder, "plan.json")
    run = package("export", f"{MODELS}:{name}", "--input", INPUTS[name], "-o", graph)
    assert run.returncode == 0, run.stderr
    support.solve(graph, solver, plan)
    return graph, plan


class Profile(unittest.TestCase):
    def check(self, name, peak_within=None, solver="feng-acg"):
        with support.scratch() as folder:
            graph, plan = prepare(folder, name, solver)
            trace = os.path.join(folder, "trace.json")
            run = package("profile", f"{MODELS}:{name}", "--graph", graph, "--plan", plan, "--input", INPUTS[name],
                          "--iterations", "2", "-o", trace)
            self.assertEqual(run.returncode, 0, run.stderr)
            with open(trace) as f:
                document = json.load(f)
            self.assertTrue(document["gradients_match"])
            n = len(document["vertices"])
            for step in ("regular", "checkpointed"):
                self.assertEqual([p["index"] for p in document[step]["phases"]], list(range(2 * n + 2)))
                self.assertGreater(document[step]["step_ms"], 0)
                self.assertGreater(document[step]["forward_ms"], 0)
                self.assertLess(document[step]["forward_ms"], document[step]["step_ms"])
            self.assertLess(document["checkpointed"]["peak_bytes"], document["regular"]["peak_bytes"])
            self.check_live_blocks(document)
            line = self.compare(graph, plan, trace, "checkpointed")
            print(f"{name}, {solver}: {line}", file=sys.stderr)
            self.check_step_time(graph, plan, trace, document)
            if peak_within is not None:
                self.check_peak_error(graph, trace, line, peak_within)

    def compare(self, graph, plan, trace, step):
        """The `vs trace` line `ckptx simulate` prints for one step of the trace."""
        run = subprocess.run([support.CKPTX, "simulate", graph, "--plan", plan, "--model", "pytorch",
                              "--trace", trace, "--step", step], capture_output=True, text=True)
        self.assertEqual(run.returncode, 0, run.stderr)
        line = [x for x in run.stdout.splitlines() if x.startswith("vs trace")]
        self.assertEqual(len(line), 1, run.stdout[-500:])
        return line[0]

    def check_step_time(self, graph, plan, trace, document):
        # The checkpointed step's time as the recompute cost predicts it from the regular step's forward.
        run = subprocess.run([support.CKPTX, "simulate", graph, "--plan", plan, "--model", "pytorch", "--trace", trace,
                              "--json"], capture_output=True, text=True)
        self.assertEqual(run.returncode, 0, run.stderr)
        step_time = json.loads(run.stdout)["trace"]["step_time"]
        with open(plan) as f:
            overhead = json.load(f)["recompute"]["overhead"]
        self.assertAlmostEqual(step_time["recompute_overhead"], overhead)
        regular = document["regular"]
        self.assertAlmostEqual(step_time["predicted_ms"], regular["step_ms"] + overhead * regular["forward_ms"])
        self.assertAlmostEqual(step_time["measured_ms"], document["checkpointed"]["step_ms"])

    def check_peak_error(self, graph, trace, checkpointed, within):
        # The prediction's peak against the measured one, for both steps (rules P10, P11 and the
        # backward workspace as the exporter measures it).
        with support.scratch() as folder:
            everything = os.path.join(folder, "all.json")
            support.solve(graph, "checkpoint-all", everything)
            lines = {"checkpointed": checkpointed, "regular": self.compare(graph, everything, trace, "regular")}
        for step, line in lines.items():
            error = float(line.split("peak error ")[1].split(" %")[0])
            self.assertLessEqual(abs(error), within[step], f"{step}: {line}")
        if "mean" in within:
            mean = float(checkpointed.split("mean |error| ")[1].split(" %")[0])
            self.assertLessEqual(mean, within["mean"], checkpointed)

    def check_live_blocks(self, document):
        # Each phase names the largest blocks live at its peak, who allocated them and when.
        for step in ("regular", "checkpointed"):
            phases = document[step]["phases"]
            named = [p for p in phases if "live_at_peak" in p]
            self.assertGreater(len(named), len(phases) // 2, f"{step}: phases without live blocks")
            for p in named:
                blocks = p["live_at_peak"]
                sizes = [b["bytes"] for b in blocks]
                self.assertLessEqual(len(blocks), 12)
                self.assertEqual(sizes, sorted(sizes, reverse=True))
                self.assertLessEqual(sum(sizes), p["peak_bytes"])
                # `since` may exceed the index: autograd runs independent branches in its own order.
                self.assertTrue(all(0 <= b["since"] < len(phases) and b["op"] for b in blocks), blocks)
            # The backward forms gradients (and the checkpointed step recomputes) under autograd's nodes.
            ops = [b["op"] for p in named if p["index"] > len(document["vertices"]) for b in p["live_at_peak"]]
            self.assertTrue(any("Backward" in op for op in ops), ops[:20])

    def test_adjacent_checkpoints(self):
        # hong-dynamic keeps ResNet-18's bn1 and maxpool both: under apply_plan bn1 is held only by
        # maxpool's backward, which saved it, and goes there, two phases before its own backward
        # (rule P12); maxpool runs outside every checkpointed function, so its indices exist from
        # the forward. Before P12: mean error 10.8 %, peak error +3.9 %; with it 0.32 % and -0.01 %.
        self.check("resnet18", {"regular": 2.0, "checkpointed": 2.0, "mean": 2.0}, "hong-dynamic")

    def test_attention_gradients_after_temporaries(self):
        # hong-dynamic keeps gpt's blocks: each attention is re-forwarded and back-propagated on its
        # own. The `att @ v` vertex's input gradient (SplitBackward0's cat) comes after BmmBackward0
        # freed what it saved and the output's gradient (P16), the softmax's output goes only after
        # its backward node formed its gradient (P16), and the recomputed dropout masks are scratch
        # in the checkpointed forward (P17). Before P16/P17: checkpointed peak error +6.4 %.
        self.check("gpt", {"regular": 2.0, "checkpointed": 2.0}, "hong-dynamic")

    def profile_with_inputs(self, folder, name, inputs, solver=("feng-acg",), export_options=()):
        """Exports `name` fed one tensor per entry of `inputs` (with `export_options`), solves with
        `solver` (its name and options) and profiles the plan: the graph file's document and the paths
        of the graph, the plan and the trace."""
        graph, plan, trace = (os.path.join(folder, f) for f in ("graph.json", "plan.json", "trace.json"))
        arguments = [a for spec in inputs for a in ("--input", spec)]
        run = package("export", f"{MODELS}:{name}", *arguments, *export_options, "-o", graph)
        self.assertEqual(run.returncode, 0, run.stderr)
        support.solve(graph, solver[0], plan, *solver[1:])
        run = package("profile", f"{MODELS}:{name}", "--graph", graph, "--plan", plan, *arguments,
                      "--iterations", "1", "-o", trace)
        self.assertEqual(run.returncode, 0, run.stderr)
        with open(graph) as f:
            return json.load(f), graph, plan, trace

    @staticmethod
    def errors(line):
        """The mean and the peak error of a `vs trace` line, in percent."""
        return (float(line.split("mean |error| ")[1].split(" %")[0]),
                abs(float(line.split("peak error ")[1].split(" %")[0])))

    def test_several_inputs(self):
        # Token ids and a padding mask: the graph joins the two inputs with a virtual source, which
        # the trace (written from the graph file) does not list; ckptx still matches its phases, and
        # the step holds both inputs from its first phase to its last (P21).
        self.check_within("masked_encoder", ["8x128:int64:1000", "8x128:int64:2"], 2.0)

    def test_keyword_inputs(self):
        # Called as Hugging Face LMs are (input_ids=, attention_mask=, labels=), returning a mapping
        # with the loss: export and profile pass the inputs by keyword, and the step back-propagates
        # the returned loss.
        document = self.check_within("keyword_lm", ["input_ids=8x64:int64:1000", "attention_mask=8x64:int64:2",
                                                    "labels=8x64:int64:1000"], 2.0, steps=("regular", "checkpointed"))
        self.assertEqual([i["keyword"] for i in document["trace"]["inputs"]], ["attention_mask", "input_ids", "labels"])

    def test_no_grad_backbone(self):
        # A backbone the model runs in torch.no_grad(): replayed with autograd, the regular step held its
        # activations and formed its weights' gradients, and measured 82 % above the prediction. P36:
        # feng-acg's segments in the backbone ran as checkpointed functions that held their inputs
        # (mean error 8.5 %); they run plainly.
        self.check_within("frozen_backbone", ["8x3x64x64"], 2.0, steps=("regular", "checkpointed"))

    def test_buffer_updates(self):
        # A buffer each block updates in place from its input (an EMA, under torch.no_grad()): the update
        # is a vertex nothing reads, which the export once refused. Taken as tracked, its function held
        # its input to the step's end in the model (here feng-acg's mean 6.6 %; at 8x128 and d=128, +8.9 %
        # at the peak); it runs plainly (P36).
        self.check_within("ema_lm", ["8x64:int64:1000"], 2.0, steps=("regular", "checkpointed"))

    def test_frozen_weights(self):
        # LoRA: every weight but the adapters' frozen. Frozen weights get no gradient, so the vertices'
        # parameter bytes leave them out (metadata parameter_bytes keeps them, the weights in memory);
        # counted, the predicted end of the backward held 3.5 MB more and the mean error was 244 %.
        document = self.check_within("lora_gpt", ["8x128:int64:1000"], 2.0, steps=("regular", "checkpointed"))
        model = models.lora_gpt()
        trained = sum(p.numel() * p.element_size() for p in model.parameters() if p.requires_grad)
        self.assertEqual(sum(v.get("parameter_bytes", 0) for v in document["vertices"]), trained)
        self.assertEqual(document["metadata"]["parameter_bytes"],
                         sum(p.numel() * p.element_size() for p in model.parameters()))

    def test_several_outputs(self):
        # Two heads: the graph joins the outputs with a virtual sink, which the trace does not list;
        # ckptx leaves its phases out and matches the others. (It was refused.)
        self.check_within("two_heads", ["8x64"], 2.0)

    def check_within(self, name, inputs, percent, steps=("checkpointed",), peak=None, solver=("feng-acg",),
                     export_options=()):
        """The mean and peak errors of `name`'s `steps` are within `percent` (the peak's within `peak`
        where given): the checkpointed step runs `solver`'s plan, the regular one is predicted by the
        plan that keeps every vertex. Returns the graph file's document."""
        with support.scratch() as folder:
            document, graph, plan, trace = self.profile_with_inputs(folder, name, inputs, solver, export_options)
            every = os.path.join(folder, "every.json")
            if "regular" in steps:
                support.solve(graph, "checkpoint-all", every)
            for step in steps:
                line = self.compare(graph, every if step == "regular" else plan, trace, step)
                print(f"{name}, {step}: {line}", file=sys.stderr)
                mean, peak_error = self.errors(line)
                self.assertLessEqual(peak_error, percent if peak is None else peak, line)
                self.assertLessEqual(mean, percent, line)
            with open(trace) as f:
                document["trace"] = json.load(f)
            return document

    def check_plan_keeping(self, name, inputs, keep, label, peak_within, mean_within, export_options=(),
                           check_graph=None):
        """Profiles `name` under a plan no solver makes: every vertex kept that `keep` picks from the ids
        (support.plan_keeping), `check_graph` first run on the graph file's document; the planned step's
        peak and mean errors within the given percents."""
        with support.scratch() as folder:
            graph, plan, trace = (os.path.join(folder, f) for f in ("graph.json", "plan.json", "trace.json"))
            arguments = [a for spec in inputs for a in ("--input", spec)]
            run = package("export", f"{MODELS}:{name}", *arguments, *export_options, "-o", graph)
            self.assertEqual(run.returncode, 0, run.stderr)
            if check_graph is not None:
                with open(graph) as f:
                    check_graph(json.load(f))
            support.plan_keeping(graph, plan, keep)
            run = package("profile", f"{MODELS}:{name}", "--graph", graph, "--plan", plan, *arguments,
                          "--iterations", "1", "-o", trace)
            self.assertEqual(run.returncode, 0, run.stderr)
            line = self.compare(graph, plan, trace, "checkpointed")
            print(f"{name}, {label}: {line}", file=sys.stderr)
            mean, peak = self.errors(line)
            self.assertLessEqual(peak, peak_within, line)
            self.assertLessEqual(mean, mean_within, line)

    def test_seq2seq(self):
        # P29: nn.Transformer's decoder starts from the target alone; feng-acg's plan has a function
        # from the target's embedding into the decoder's self-attention, which P18 alone ran before the
        # encoder's later functions, drawing the dropout masks in another order: the planned step's
        # gradients were not the regular step's (pos: relative norm 0.13) and the profile failed.
        # P30: its cross-attentions split in_proj_weight, whose gradient is formed last (means 0.35 % and
        # 0.68 % without the rule).
        self.check_within("seq2seq", ["8x64:int64:2000"] * 2, 0.25, ("regular", "checkpointed"))

    def test_cross_attention_to_latents(self):
        # P61: the latents' attention reads its query through statics (their LayerNorm, the query's part
        # of the packed projection), whose nodes form the projection's gradient at the end of the
        # measure, after its peak; that weight is the key-value projection's (P30), and the measure took
        # its gradient off that earlier peak. Before, feng-acg's plan read -2.46 % at its peak (a
        # Perceiver's plans -1.76 %). Left: the latents' own gradient, 16 KB early where the cross-
        # attention runs in another function than the residual add (MEMORY-MODEL, "not yet a rule").
        self.check_within("latent_cross_attention", ["8x3x32x32"], 0.1, ("regular", "checkpointed"), peak=0.8)

    def test_coordinate_statics(self):
        # RAFT's refinement at its first step reads a coordinate grid made from shapes alone: the export
        # failed twice, first where a static nothing reads (the grid scaled for a level never sampled)
        # ran after the grid's readers had let it go (KeyError), then where the measure of a later
        # vertex held an upfront static (the grid's convolution) that an in-place ReLU writes into.
        self.check_within("coordinate_features", ["8x3x32x32"], 0.1, ("regular", "checkpointed"))

    def test_in_place_op_on_a_view(self):
        # InstanceNorm normalises a view of its input as one batch and returns a view of the result;
        # ReLU(inplace=True) then writes that view. P64: autograd wraps the ReLU's node in the base's
        # CopySlices and the recording could not see that it saves its result: nothing held the
        # normalised output after the residual add read it (-20.63 % at the regular peak, mean 15.46 %;
        # torchvision's RAFT -11.20 %). P65: the add forms one gradient for both summands, which outlives
        # the view's first backward node, where the measure's gradient went: -6.72 % with P64 alone.
        document = self.check_within("instance_norm_net", ["8x3x32x32"], 0.1, ("regular", "checkpointed"))
        saved_by = {v["id"]: v.get("saved_by") for v in document["vertices"]}
        self.assertIn("blocks.0.norm", saved_by["blocks.0.norm"])

    def test_shared_position_bias(self):
        # P44: BEiT's relative position bias, made once before the first block that reads it and read by
        # every block. apply_plan held it to the step's end (nothing let a static go that vertices read
        # only through others); now it goes after its last plain reader, and the model holds it from its
        # first reader's forward to there. Before, every phase from the first block on read it high: a
        # BEiT at 8x3x64x64, regular step's mean 0.36 %; here 0.00 %.
        self.check_within("shared_bias", ["8x3x32x32"], 0.02, ("regular",))
        self.check_within("shared_bias", ["8x3x32x32"], 0.5, ("checkpointed",),
                          solver=("optimal", "memory-model=pytorch"))

    def test_decay_matrix_two_einsums_read(self):
        # RWKV's decay matrix, made from a parameter in the forward and read by two einsums, each of
        # which saves it. Its exp's `detach` (autograd saving the result) dragged it to the step's start;
        # the export then counted it twice (a static value and the first einsum's saved extra) while
        # missing the exp it is made of; and the second einsum's measure ran the statics' backward,
        # which the step runs only at the first one's. An RWKV-style LM at 8x128 read -19.04 % at the
        # regular peak (mean 21.8 %), -2.4 % with every plan. Here both blocks' matrices also read one
        # causal mask, held apart from them (static_values per set of readers): feng-acg's plan's mean
        # was 1.39 % with one entry per vertex. Before, this regular step read -15.18 % (mean 9.40 %).
        self.check_within("decay_mixer", ["8x32:int64:100"], 0.02, ("regular",))
        self.check_within("decay_mixer", ["8x32:int64:100"], 0.2, ("checkpointed",))

    def test_statics_copied_by_another_function(self):
        # P49: every vertex kept but the einsums, so each runs in a checkpointed function of its own, and
        # the second's function makes its own copy of the decay matrix: in its forward, saving nothing,
        # the chain peaks at twice the matrix; in its re-forward the matrix its einsum saves and the exp
        # it is made of stay to that einsum's backward. An RWKV-style LM at op granularity whose
        # least-peak plan so placed each block's einsums read -4.54 % and measured 3.58 % above the
        # lowest; here this plan read -1.29 % at the peak (mean 1.39 %) before.
        def einsums_in_functions(ids):
            einsums = [c for c in ids if c.split("/")[-1].split("#")[0] == "bmm"]
            self.assertEqual(len(einsums), 4, ids)
            return [c for c in ids if c not in einsums]

        self.check_plan_keeping("gated_decay_mixer", ["8x32:int64:100"], einsums_in_functions, "einsums in functions",
                                0.1, 0.5, export_options=("--granularity", "op"))

    def test_dead_ends(self):
        # A VQ-VAE: autograd records the codebook distances, but only argmin, which takes no gradient,
        # reads them, and only `detach` reads the straight-through difference: no backward of theirs
        # runs, and their graphs, with what they saved, go after their last reader. A VQ-VAE at
        # 8x3x64x64 read +12.95 % at the regular peak (mean 19.5 %); this one +41.94 % (mean 59.2 %).
        # What is left: a distance's input goes one phase early, and torch 1.13's mse_loss returns its
        # scalar in a storage of its input's size, which goes one phase late.
        self.check_within("vector_quantizer", ["8x3x32x32"], 1.5, ("regular", "checkpointed"), peak=0.1)

    def test_partly_released_backward(self):
        # P48: gMLP's gating product saved both halves of the gelu output's split; its backward frees the
        # mixed half, which it alone saved, while the other stays for the half the norm saved. Counted
        # with both held, every phase of that backward read one half high: a gMLP at 8x128 tokens read
        # +6.36 % at the peak of hong-dynamic's plan and its least-peak plan measured 5.04 % above the
        # lowest. Here the regular step read +4.54 % at the peak before, hong-dynamic's plan +7.27 %.
        self.check_within("gating_mlp", ["8x32:int64:100"], 0.1, ("regular", "checkpointed"), solver=("hong-dynamic",))

    def test_untracked_outputs(self):
        # P50: SegNet's max-poolings return values and integer indices, and its max-unpoolings read the
        # indices alone. The gradient was counted the size of both and formed by the unpooling's
        # backward too: here the regular step's mean was 5.45 %, feng-acg's plan's 9.55 % (a SegNet at
        # 8x3x64x64: 2.89 %, and up to 17.55 % for the plans). P52: the values and the indices go apart;
        # with P50 alone the regular step's mean was 1.18 % (peak +0.99 %), the least-peak plan's 4.78 %.
        self.check_within("pool_unpool_net", ["8x3x32x32"], 0.1, ("regular", "checkpointed"))
        self.check_within("pool_unpool_net", ["8x3x32x32"], 0.1, solver=("optimal", "memory-model=pytorch"))

    def test_one_gradient_for_the_summands(self):
        # P53: a CIFAR-style residual block returns relu(body(x) + shortcut(x)); its backward forms the
        # ReLU's input gradient, and the add hands that one tensor to both summands. Counted as two
        # tensors, the regular step's mean was 0.53 % and feng-acg's plan's peak +6.28 % (mean 0.81 %).
        self.check_within("relu_residual_net", ["8x3x32x32"], 0.05, ("regular", "checkpointed"))

    def test_layer_called_at_every_step(self):
        # P54: a decoder calls its output layer once per step, each call through the weight's transpose;
        # torch 1.13's engine adds each call's weight gradient to the sum so far out of place, so at
        # every call's backward the sum, the call's gradient and the new sum are live at once. Measured
        # without the owner's term, the regular step's peak was -16.78 % (feng-acg's -1.56 %).
        self.check_within("stepwise_decoder", ["8x12:int64:1000"], 0.1, ("regular", "checkpointed"))

    def test_owner_run_before_its_other_readers(self):
        # P59: the plan keeps every vertex but the embedding and the last step's cell, so one function
        # holds the embedding, every step's cell (their cycles merge, P18) and the last output layer's
        # call, the weights' owner (P5); it runs before the other calls, and autograd's engine reaches
        # the owner's backward last. The first call's backward to run then begins the gradients' sum,
        # and the owner adds its own once its slice of the stacked logits' gradient is gone. Counted in
        # the topological order, that first backward read a sum it makes none of: peak -22.13 % here
        # (mean 4.14 %); a seq2seq decoder's least-peak plan so placed read -11.29 %.
        def readers_named(document):
            readers = [v["id"] for v in document["vertices"] if v.get("adds_weight_gradient_to") == "out#12"]
            self.assertEqual(readers, ["out"] + [f"out#{k}" for k in range(2, 12)])

        self.check_plan_keeping("stepwise_decoder", ["8x12:int64:1000"],
                                lambda ids: [i for i in ids if i not in ("embed", "cell#34", "cell#35", "cell#36")],
                                "the owner in the first function", 0.5, 0.5, check_graph=readers_named)

    def test_spectral_norm(self):
        # P56: spectral norm's power iteration updates the buffers u and v in the forward, so apply_plan
        # makes the weight's view it reads first, once per step; the view's node then runs after every
        # backward, and each layer's gradient through it waits there, beside the weight's own. Counted
        # as gone at the layer's backward: regular step -8.28 % at the peak (mean 4.65 %), feng-acg's
        # plan -9.80 % (5.85 %).
        self.check_within("spectral_norm_critic", ["8x3x32x32"], 0.05, ("regular", "checkpointed"))

    def test_untracked_phases_where_a_plan_runs_them(self):
        # P51: Transformer-XL's memory, the previous segment run without gradient, is read by this
        # segment's layers, and a plan's order (P18) runs its vertices among those layers: its phases, which
        # a profile marks empty (ending with the backward's end, no earlier vertex gets a gradient),
        # read as the middle of the backward. feng-acg's plan's mean was 1.88 % here (a Transformer-XL
        # at 8x64 tokens: 0.97 %, the least-peak plan's 2.95 %).
        self.check_within("segment_memory_lm", ["8x16:int64:100"] * 2, 0.25, ("regular", "checkpointed"))

    def test_returned_loss(self):
        # nanoGPT's `logits, loss = model(x, y)`: the step back-propagates the returned loss alone, and
        # the logits, which the loss reads, are an output apply_plan keeps out of its functions. At
        # 8x32 tokens the random-number state each checkpointed function stashes (P22) is 0.5 % of the
        # peak, and eight functions run.
        with support.scratch() as folder:
            document, graph, plan, trace = self.profile_with_inputs(folder, "gpt", ["8x32:int64:100"] * 2)
            self.assertEqual([v["id"] for v in document["vertices"] if v.get("output")], ["lm_head"])
            self.assertGreater(document["metadata"]["checkpoint_rng_state_bytes"], 0)  # a CPU export
            every = os.path.join(folder, "every.json")
            support.solve(graph, "checkpoint-all", every)
            for step, simulated in (("regular", every), ("checkpointed", plan)):
                line = self.compare(graph, simulated, trace, step)
                print(f"gpt with targets, feng-acg, {step}: {line}", file=sys.stderr)
                self.assertLessEqual(self.errors(line)[1], 2.0, line)

    def test_tied_weight_gradients_summed(self):
        # The LM's embedding and output layer share one weight (P23): at 2x32 tokens the backward's
        # peak is where the embedding's gradient of it meets the output layer's, which torch 1.13
        # sums out of place. Without the rule the regular peak was -9.10 %, with it +1.04 %.
        with support.scratch() as folder:
            _, graph, plan, trace = self.profile_with_inputs(folder, "gpt_bench", ["2x32:int64:1000"])
            every = os.path.join(folder, "every.json")
            support.solve(graph, "checkpoint-all", every)
            line = self.compare(graph, every, trace, "regular")
            print(f"gpt_bench at 2x32, regular: {line}", file=sys.stderr)
            self.assertLessEqual(self.errors(line)[1], 2.0, line)

    def test_tied_weight_read_in_the_middle(self):
        # The decoder's embedding reads the output layer's weight in the middle of the network: its
        # gradient waits for the output layer's transpose, run last, to the end of the backward (P26).
        # Without the rule the regular step's mean was 5.3 % here; with 8x64 tokens, a vocabulary of
        # 4000 and two layers each, the least-peak plan's peak -14.4 % (BENCHMARKS.md, "P26").
        self.check_within("encoder_decoder", ["8x32:int64:2000"], 1.0, ("regular", "checkpointed"))

    def test_autocast(self):
        # Mixed precision (torch.autocast, bfloat16 on the CPU): the export records the casts the
        # forward makes, profile runs the forwards in the graph's autocast and the backward outside it,
        # and the mean of a bfloat16 output is taken without a float32 copy, which measured the regular
        # peak 7 % above the prediction here.
        document = self.check_within("gpt_bench", ["8x128:int64:1000"], 1.0, ("regular", "checkpointed"),
                                     export_options=("--autocast", "bfloat16"))
        self.assertEqual(document["metadata"]["autocast"], "bfloat16")
        self.assertEqual(document["trace"]["autocast"], "bfloat16")
        self.assertIn("bfloat16", {v["dtype"] for v in document["vertices"]})

    def test_accumulate(self):
        # A gradient-accumulation micro-batch (P33): the step starts with the weights' gradients and adds
        # each backward's into them. The tied embedding's part waits in the engine for the embedding's
        # backward, the last: freed with the lm_head's own backward, every backward phase read 0.5 MB low
        # (feng-acg's plan: mean 5.9 %; the least-peak plan's peak -3.25 %).
        document = self.check_within("gpt_bench", ["8x128:int64:1000"], 1.0, ("regular", "checkpointed"),
                                     export_options=("--accumulate",))
        self.assertIs(document["metadata"]["accumulate_gradients"], True)
        self.assertIs(document["trace"]["accumulate_gradients"], True)
        tied = [v for v in document["vertices"] if v.get("tied_parameter_bytes")]
        self.assertEqual([(v["id"], v["tied_parameter_bytes"], v["tied_parameter_until"]) for v in tied],
                         [("lm_head", 1000 * 128 * 4, "transformer.wte")])

    def test_concatenated_gradient_copied(self):
        # P34: a convolution whose output a concatenation along channels reads gets its gradient as a
        # channel slice of the concatenation's, not contiguous, and its backward copies it first: the
        # export measures that copy as its workspace, where an add hands it a contiguous tensor. Without
        # the rule the two measured alike, and DenseNet-121's least-peak plan of an accumulation step,
        # whose peak is such a backward (the last layer of the first block), read -2.07 % (8x3x64x64).
        workspace = {}
        with support.scratch() as folder:
            for name in ("concatenated_branches", "added_branches"):
                graph = os.path.join(folder, f"{name}.json")
                run = package("export", f"{MODELS}:{name}", "--input", "4x8x16x16", "-o", graph)
                self.assertEqual(run.returncode, 0, run.stderr)
                with open(graph) as f:
                    vertices = {v["id"]: v for v in json.load(f)["vertices"]}
                workspace[name] = vertices["a"]["backward_workspace_bytes"]
                output = vertices["a"]["bytes"]
        self.assertEqual(output, 4 * 16 * 16 * 16 * 4)
        self.assertEqual(workspace["concatenated_branches"] - workspace["added_branches"], output)

    def test_straight_through_sample_copies_its_gradient(self):
        # P57: a straight-through Gumbel-softmax (`hard - soft.detach() + soft`) hands the softmax a
        # permuted view of the codebook einsum's gradient, and the softmax's backward copies it to read it
        # contiguous. The argmax and the detached read hand no gradient; counted as readers, they kept
        # P40 from handing the measure that layout. Without the rule the workspace was the result alone,
        # and a never-seen discrete VAE's least-peak plan read -5.48 % at that backward (8x3x32x32).
        with support.scratch() as folder:
            graph = os.path.join(folder, "graph.json")
            run = package("export", f"{MODELS}:gumbel_autoencoder", "--input", "8x3x32x32", "-o", graph)
            self.assertEqual(run.returncode, 0, run.stderr)
            with open(graph) as f:
                softmax = next(v for v in json.load(f)["vertices"] if v["id"] == "_softmax")
        self.assertEqual(softmax["bytes"], 8 * 128 * 16 * 16 * 4)
        self.assertGreaterEqual(softmax["backward_workspace_bytes"], 2 * softmax["bytes"])
        # P60: the hard sample's max, whose values nothing reads, is exported for its indices, which
        # the one-hot's scatter_ reads. Its node saved them, but goes with the unread values in the
        # forward: held to the sum's backward, they read the regular step +0.23 % high.
        document = self.check_within("gumbel_autoencoder", ["8x3x32x32"], 0.1, ("regular", "checkpointed"),
                                     solver=("optimal", "memory-model=pytorch"))
        indices = next(v for v in document["vertices"] if v["id"] == "max")
        self.assertEqual((indices["dtype"], indices["saved_by"]), ("int64", []))

    def test_unet(self):
        # A concatenation's backward hands the skip a slice of its gradient, which holds all of it
        # until the skip's other reader, the pooling, adds its gradient near the end (P27).
        self.check_within("unet", ["4x3x32x32"], 1.0, ("regular", "checkpointed"))

    def test_weight_norm(self):
        # nn.utils.weight_norm keeps each weight as a tensor autograd computed: profile's copies of the
        # model (copy.deepcopy) failed on it ("Only Tensors created explicitly by the user (graph
        # leaves) support the deepcopy protocol"), and no plan could be measured.
        self.check_within("weight_norm_net", ["8x3x32x32"], 0.5, ("regular", "checkpointed"))

    def test_shared_weight_norm(self):
        # P87: three statics over weight_g and weight_v, one per call; the last call's node forms their
        # gradients, right after its backward. Owned by the first call, every phase from the last
        # call's backward on read them low (means 1.94 % regular, 2.88 % feng-acg's plan).
        document = self.check_within("shared_weight_norm", ["4x4x32"], 0.1, ("regular", "checkpointed"))
        owners = {v["id"]: v["parameter_bytes"] for v in document["vertices"] if v["id"].startswith("conv")}
        self.assertEqual(owners, {"conv": 0, "conv#2": 0, "conv#3": (16 + 16 * 16 * 3 + 16) * 4})

    def test_conv_autoencoder(self):
        # P43: a transposed convolution and an in-place ReLU (`decoder.2`), whose ReLU's backward node
        # is the released run's peak, before the convolution's node forms its weight gradient. The
        # whole measure subtracts that gradient all the same; the export now also reads the peak at the
        # node's end. Regular step −1.89 % without the rule, −0.00 % with it.
        document = self.check_within("conv_autoencoder", ["8x3x64x64"], 0.5, ("regular", "checkpointed"))
        relu = next(v for v in document["vertices"] if v["id"] == "decoder.2")
        self.assertGreater(relu["first_backward_node_bytes"], relu["backward_workspace_released_bytes"])

    def test_channels_last(self):
        # P40: the readers of a channels-last tensor hand it a channels-last gradient, made in their
        # backward and freed once its first backward node has read it. The export formed it contiguous,
        # or (one reader) as a view it held, so BatchNorm + ReLU's backward measured an output-sized copy
        # more: feng-acg's plan read +6.65 % high (ResNet-18, 16x3x64x64), +3.89 % here (8x3x64x64).
        self.check_within("channels_last_resnet", ["8x3x64x64"], 0.5, ("regular", "checkpointed"))

    def test_channels_last_output(self):
        # P78: the loss's mean hands a channels-last output a contiguous gradient, which the last
        # convolution's backward copies to its own layout. The export's held measure handed it one
        # laid out as the output (ones_like), so the output's backward phase read one output low.
        self.check_within("channels_last_head", ["8x3x32x32"], 0.5, ("regular", "checkpointed"))

    def test_weight_gradients_after_the_backward_frees(self):
        # P81: the classifier's weights' gradients come once the in-place dropout's node has let go of
        # its mask and the vertex's gradient, and the hardswish's of the copy it saved: the model held
        # them all beside the weights' gradients, at the step's peak.
        self.check_within("hardswish_head", ["8x64"], 0.5, ("regular", "checkpointed"))

    def test_output_saved_by_its_operation(self):
        # P41: the model's output is a sigmoid's, which its backward saves: it stays beside the
        # gradient the loss forms, in the last forward phase. The model freed it there, and that
        # phase read 3.5 MB low (ESPCN, 8x3x64x64: mean 1.10 %; here 1.11 %, now 0.00 %).
        self.check_within("espcn", ["8x3x32x32"], 0.5, ("regular", "checkpointed"))

    def test_lstm(self):
        # The gates of an LSTM cell start from what parameters alone compute (the initial state, zeros,
        # times W_hh), which the cell then updates in place from the input: the export refused it ("in-
        # place update of a parameter or buffer"). Now the update and its operand are one vertex, and
        # the planned step's gradients are the model's. Each time step's backward adds the gradient of
        # the whole input projection (made per reader through `unbind`, zero-padded) to the sum the
        # later steps formed, out of place on torch 1.13: the export now measures it so (P31); the
        # regular peak was −7.9 % here before, now −0.06 %, the checkpointed −0.80 %. torch 2.11's CPU
        # cell measured a mean of 0.64 % and a peak of −1.92 % before P31 (the H200 machine's CPU,
        # "Second GPU run"), hence a mean within 1 % and the peak within the 2 % target.
        self.check_within("lstm_lm", ["8x24:int64:500"], 1.0, ("regular", "checkpointed"), peak=2.0)

    def test_scan(self):
        # A loop over time that reads slices of its projections: each step's backward adds a gradient of
        # the whole projection into the one the later steps formed (torch 1.13: out of place, the old
        # sum, the new term and their sum at once). The export measured each step's backward with no
        # gradient there yet: peaks +8.1 % (two reads of `dt[:, t]`, added together) and −11.5 %
        # (`select`s alone) on the two halves of this model; now that the export measures each step's
        # backward with the gradient the later steps formed (P31), within 0.7 %.
        self.check_within("scan", ["8x16x32"], 0.5, ("regular", "checkpointed"), peak=1.0)

    def test_gru(self):
        # A GRU cell updates chunks of that static (static views), and autograd copies the last chunk
        # before `mul_` overwrites it: the copy is no step but a saved extra (P11), which at module
        # granularity had joined the next vertex of the cell's call (a graph ckptx refused: saved by a
        # vertex before it). Peaks −0.28 % here; the LSTM's missing tensor is the same, smaller beside
        # a hidden size of 128.
        self.check_within("gru_tagger", ["8x16:int64:500"], 0.5, ("regular", "checkpointed"), peak=1.0)

    def test_gru_exits_saved_by_the_reforward(self):
        # The peak search's plan re-forwards one function, the embedding and the input projection, whose
        # exits are every time step: the re-forward computes each hidden state again, and the next
        # step's gates save that copy, which the checkpoint's storage keeps until their backward (P32).
        # Dropping the copies when the re-forward returned predicted the peak −3.79 % (8x16; −4.81 %
        # at 8x64).
        self.check_within("gru_tagger", ["8x16:int64:500"], 1.0, peak=1.0, solver=("optimal", "memory-model=pytorch"))

    def test_shared_layer(self):
        # One encoder layer at every depth: each call transposes its weights, and the calls that do
        # not own them (P5) hold that gradient to the end of the backward (P20). Without the rule
        # the means were 4.7-8.2 % (a four-deep ALBERT at 8x64).
        self.check_within("shared_layer", ["8x32:int64:500"], 1.0)

    def test_plan_for_another_model_leaves_no_file(self):
        with support.scratch() as folder:
            _, plan = prepare(folder, "gpt")
            other = os.path.join(folder, "resnet.json")
            self.assertEqual(package("export", f"{MODELS}:resnet18", "--input", "2x3x64x64", "-o", other).returncode, 0)
            trace = os.path.join(folder, "trace.json")
            run = package("profile", f"{MODELS}:resnet18", "--graph", other, "--plan", plan, "--input", "2x3x64x64",
                          "-o", trace)
            self.assertEqual(run.returncode, 1, run.stderr)
            self.assertEqual(len(run.stderr.strip().splitlines()), 1, run.stderr)
            self.assertIn("the plan is for another graph", run.stderr)
            self.assertFalse(os.path.exists(trace))

    def test_killed_run_leaves_no_file(self):
        with support.scratch() as folder:
            graph, plan = prepare(folder, "resnet18")
            trace = os.path.join(folder, "trace.json")
            process = subprocess.Popen([sys.executable, "-m", "checkpoint_explorer", "profile", f"{MODELS}:resnet18",
                                        "--graph", graph, "--plan", plan, "--input", INPUTS["resnet18"],
                                        "--iterations", "100000", "-o", trace], env=ENV,
                                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(8)
            process.send_signal(signal.SIGKILL)
            process.wait()
            self.assertEqual(sorted(os.listdir(folder)), ["graph.json", "plan.json"])


# MobileNet-V2 (depthwise convolutions, ReLU6 in place) has its peak errors bounded, in percent. Measured
# 2026-11-24: regular 0.00 %, checkpointed +2.86 %, once -8.73 % in a full ctest run (the exporter's
# measurement of a depthwise convolution's backward saw a smaller peak that time; BENCHMARKS.md); before
# P11 and that measurement -27.3 % and -17.4 %.
# position_bias: each block's backward forms the gradient of its bias, which an MLP makes from parameters
# alone, and autograd holds it to the end of the backward (P20); without the rule the checkpointed peak
# was -4.18 %; with it -0.69 %, and -0.00 % (mean 0.00 %) since P22 and the export's workspace leaving
# out the statics' gradients P20 counts (2026-11-26).
PEAK_WITHIN = {"mobilenet_v2": {"regular": 2.0, "checkpointed": 10.0},
               "position_bias": {"regular": 1.0, "checkpointed": 1.0}}
for _name in INPUTS:
    setattr(Profile, f"test_{_name}", lambda self, n=_name: self.check(n, PEAK_WITHIN.get(n)))

if __name__ == "__main__":
    unittest.main()
