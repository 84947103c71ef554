"""`python3 -m checkpoint_explorer export|profile ...`: exit 0 ok, 1 bad input (one line naming the file
and the problem), 2 usage."""
import argparse
import importlib.util
import os
import sys

import torch

from .export import export_graph
from .inputs import make_all, parse_input
from .optimizer_step import OPTIMIZERS
from .planned import PlanError
from .program import ExportError


class CliError(Exception):
    pass


def load_factory(reference):
    """FILE.py:FACTORY -> the module FACTORY() returns."""
    path, sep, name = reference.rpartition(":")
    if not sep or not path or not name:
        raise CliError(f"{reference}: expected FILE.py:FACTORY")
    if not os.path.isfile(path):
        raise CliError(f"{path}: no such file")
    spec = importlib.util.spec_from_file_location(os.path.splitext(os.path.basename(path))[0], path)
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    try:
        spec.loader.exec_module(module)
    except Exception as error:
        raise CliError(f"{path}: cannot be loaded: {type(error).__name__}: {_first_line(error)}") from None
    finally:
        sys.path.pop(0)
    factory = getattr(module, name, None)
    if not callable(factory):
        raise CliError(f"{path}: has no function {name}")
    try:
        model = factory()
    except Exception as error:
        raise CliError(f"{path}: {name}() failed: {type(error).__name__}: {_first_line(error)}") from None
    if not isinstance(model, torch.nn.Module):
        raise CliError(f"{path}: {name}() returned {type(model).__name__}, not a torch.nn.Module")
    return model


def _first_line(error):
    text = str(error).strip()
    return text.splitlines()[0] if text else ""


def make_inputs(texts, device):
    try:
        specs = [parse_input(t) for t in texts]
    except ValueError as error:
        raise CliError(str(error)) from None
    keywords = [s.keyword for s in specs if s.keyword is not None]
    if len(set(keywords)) < len(keywords):
        raise CliError(f"--input: keyword {next(k for k in keywords if keywords.count(k) > 1)!r} given twice")
    if device == "cuda" and not torch.cuda.is_available():
        raise CliError("--device cuda: this torch has no CUDA device")
    return make_all(specs, device)


def _export(args):
    model = load_factory(args.model)
    inputs = make_inputs(args.input, args.device)
    model.to(args.device)
    name = os.path.splitext(os.path.basename(args.model.rpartition(":")[0]))[0]
    try:
        document = export_graph(model, inputs, args.output, granularity=args.granularity, depth=args.depth, name=name,
                                cost=args.cost, autocast=args.autocast, accumulate=args.accumulate,
                                optimizer=args.optimizer)
    except ExportError as error:
        raise CliError(f"{args.model}: {error}") from None
    print(f"{args.output}: {len(document['vertices'])} vertices, {len(document['edges'])} edges "
          f"({args.granularity} granularity)")


def _profile(args):
    from .profiler import profile_to_file
    if args.snapshot is not None and args.device != "cuda":
        raise CliError("--snapshot records the CUDA caching allocator's history: it needs --device cuda")
    if args.snapshot is not None and not hasattr(torch.cuda.memory, "_dump_snapshot"):
        raise CliError("--snapshot: this torch cannot save the CUDA allocator's history "
                       "(it has no torch.cuda.memory._dump_snapshot)")
    model = load_factory(args.model)
    inputs = make_inputs(args.input, args.device)
    model.to(args.device)
    try:
        profile_to_file(model, inputs, args.graph, args.plan, args.output, args.device, args.iterations,
                        model_name=args.model, snapshot=args.snapshot, optimizer=args.optimizer)
    except (ExportError, PlanError) as error:
        raise CliError(f"{args.model}: {error}") from None


def parser():
    p = argparse.ArgumentParser(prog="python3 -m checkpoint_explorer",
                                description="Export a PyTorch model to Checkpoint Explorer's graph format, "
                                            "profile a checkpoint plan on it.")
    commands = p.add_subparsers(dest="command", required=True)
    e = commands.add_parser("export", help="record a model and write its graph file")
    e.add_argument("model", metavar="FILE.py:FACTORY", help="a zero-argument function returning the nn.Module")
    e.add_argument("--input", action="append", required=True, metavar="[NAME=]SHAPE[:DTYPE[:HIGH]]",
                   help="one per forward argument, e.g. 8x3x224x224 or 4x64:int64 (ids in [0, HIGH), HIGH=2); "
                        "NAME= passes it by keyword, e.g. input_ids=8x128:int64:50257")
    e.add_argument("--granularity", choices=("module", "op"), default="module")
    e.add_argument("--depth", type=int, default=None, help="module granularity: cut at module paths of N parts")
    e.add_argument("--device", default="cpu", choices=("cpu", "cuda"))
    e.add_argument("--cost", default="flops", choices=("flops", "time"),
                   help="what a vertex's compute counts: its FLOPs, or its forward's time measured on --device")
    e.add_argument("--autocast", choices=("bfloat16", "float16"), default=None,
                   help="record the forward in mixed precision, as torch.autocast(DEVICE, dtype) runs it "
                        "(profile then runs it so too)")
    e.add_argument("--accumulate", action="store_true",
                   help="predict a gradient-accumulation micro-batch: the step starts with the weights' gradients "
                        "of the one before and adds into them (profile then runs it so too)")
    e.add_argument("--optimizer", choices=OPTIMIZERS, default=None,
                   help="measure this optimizer's state and one step's scratch memory on --device, for "
                        "ckptx max-batch (momentum: SGD with momentum 0.9; torch's defaults otherwise)")
    e.add_argument("-o", "--output", required=True, metavar="GRAPH.json")
    e.set_defaults(run=_export)
    f = commands.add_parser("profile", help="measure a regular and a planned training step")
    f.add_argument("model", metavar="FILE.py:FACTORY")
    f.add_argument("--graph", required=True, metavar="GRAPH.json")
    f.add_argument("--plan", required=True, metavar="PLAN.json")
    f.add_argument("--input", action="append", required=True, metavar="[NAME=]SHAPE[:DTYPE[:HIGH]]")
    f.add_argument("--device", default="cpu", choices=("cpu", "cuda"))
    f.add_argument("--iterations", type=int, default=3)
    f.add_argument("--snapshot", metavar="SNAPSHOT.pickle",
                   help="CUDA: also save the allocator's history of the measured steps (ckptx import-snapshot)")
    f.add_argument("--optimizer", choices=OPTIMIZERS, default=None,
                   help="follow each measured step with this optimizer's step and measure it too")
    f.add_argument("-o", "--output", required=True, metavar="TRACE.json")
    f.set_defaults(run=_profile)
    return p


def main(argv=None):
    args = parser().parse_args(argv)
    try:
        args.run(args)
    except CliError as error:
        print(f"checkpoint_explorer: {error}", file=sys.stderr)
        return 1
    except torch.cuda.OutOfMemoryError if hasattr(torch.cuda, "OutOfMemoryError") else MemoryError as error:
        print(f"checkpoint_explorer: {args.model}: out of memory: {_first_line(error)}", file=sys.stderr)
        return 1
    return 0
