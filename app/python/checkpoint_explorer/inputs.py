"""`--input [NAME=]SHAPE[:DTYPE[:HIGH]]` (one per forward argument; NAME= passes it by keyword, as
Hugging Face models take `input_ids=`) and the random tensors made from it."""
import torch

from .model_inputs import ModelInputs

DTYPES = {"float32": torch.float32, "float64": torch.float64, "float16": torch.float16, "bfloat16": torch.bfloat16,
          "int64": torch.int64, "int32": torch.int32, "int16": torch.int16, "int8": torch.int8,
          "uint8": torch.uint8, "bool": torch.bool}


class InputSpec:
    def __init__(self, shape, dtype, high, keyword=None):
        self.shape, self.dtype, self.high, self.keyword = shape, dtype, high, keyword

    def make(self, device="cpu", generator=None):
        """`generator`: a CPU generator, so that one seed gives the same tensors on any device."""
        if self.dtype.is_floating_point:
            tensor = torch.randn(self.shape, dtype=self.dtype, generator=generator)
        elif self.dtype == torch.bool:
            tensor = torch.zeros(self.shape, dtype=self.dtype)
        else:
            tensor = torch.randint(0, self.high, self.shape, dtype=self.dtype, generator=generator)
        return tensor.to(device)


def make_all(specs, device="cpu", seed=0):
    """One tensor per spec, drawn from a generator of its own seeded `seed`: every command that makes
    them (export, profile) gets the same batch, whatever the model's factory did to torch's global
    random state. Where memory follows the data (a mixture of experts' routing), the profiled step
    then runs the batch the graph was exported with."""
    generator = torch.Generator().manual_seed(seed)
    tensors = [spec.make(device, generator) for spec in specs]
    return ModelInputs.of([t for t, s in zip(tensors, specs) if s.keyword is None],
                          {s.keyword: t for t, s in zip(tensors, specs) if s.keyword is not None})


def parse_input(text):
    """'8x3x224x224', '4x64:int64' or '4x64:int64:50257', each optionally after 'NAME=' (passed by
    keyword). Integer inputs are token ids drawn from [0, HIGH); HIGH defaults to 2, valid for any
    embedding (a dense model's memory and time do not depend on the ids; a routed one's do: give it the
    vocabulary)."""
    keyword, equals, spec = text.rpartition("=")
    if equals and not keyword.isidentifier():
        raise ValueError(f"input {text!r}: {keyword!r} before '=' is not a keyword argument's name")
    parts = spec.split(":")
    if len(parts) > 3:
        raise ValueError(f"input {text!r} is not like 8x3x224x224, 4x64:int64 or 4x64:int64:50257")
    dims = parts[0].split("x")
    if not all(d.isdigit() and 0 < int(d) < 10**9 for d in dims):
        raise ValueError(f"input shape {parts[0]!r} is not like 8x3x224x224 (positive sizes joined by x)")
    name = parts[1] if len(parts) > 1 else "float32"
    if name not in DTYPES:
        raise ValueError(f"input dtype {name!r} is not one of {', '.join(DTYPES)}")
    dtype = DTYPES[name]
    high = 2
    if len(parts) == 3:
        if dtype.is_floating_point or not parts[2].isdigit() or int(parts[2]) < 1:
            raise ValueError(f"input {text!r}: HIGH (the id range) goes with an integer dtype and must be >= 1")
        high = int(parts[2])
    return InputSpec(tuple(int(d) for d in dims), dtype, high, keyword or None)
