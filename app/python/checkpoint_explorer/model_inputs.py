"""The arguments of one forward call, as training scripts pass them: positional tensors, and keyword
ones as Hugging Face models take them (`model(input_ids=ids, attention_mask=mask, labels=ids)`,
`model(**batch)`). The graph's inputs are the call's tensors: the positional ones in order, then the
keyword ones by name (so that the order a batch's keys come in makes no other graph); keyword values
that are not tensors (`use_cache=False`, `labels=None`) are passed as they are."""
from collections.abc import Mapping, Sequence

import torch

# Keyword values passed as they are: they choose what the model computes, not what it computes on.
_PLAIN = (bool, int, float, str, type(None))


class InputError(ValueError):
    pass


class ModelInputs(tuple):
    """The call's tensors (graph inputs 0, 1, ...); the last len(keywords) go by those names."""

    def __new__(cls, tensors, keywords=(), options=None):
        self = super().__new__(cls, tensors)
        self.keywords = tuple(keywords)
        self.options = dict(options or {})
        return self

    @classmethod
    def of(cls, args=(), kwargs=None):
        """From a call's arguments: `args` one tensor or a sequence of them, `kwargs` a mapping of
        names to tensors or to plain values (None, bool, int, float, str)."""
        if isinstance(args, ModelInputs) and not kwargs:
            return args
        if isinstance(args, torch.Tensor):
            args = (args,)
        if not isinstance(args, Sequence) or not all(isinstance(t, torch.Tensor) for t in args):
            raise InputError("positional inputs must be tensors")
        tensors, keywords, options = list(args), [], {}
        for name, value in sorted((kwargs or {}).items()):
            if isinstance(value, torch.Tensor):
                tensors.append(value)
                keywords.append(name)
            elif isinstance(value, _PLAIN):
                options[name] = value
            else:
                raise InputError(f"keyword input {name!r} is a {type(value).__name__}: give a tensor or a plain "
                                 "value (None, bool, int, float, str)")
        if not tensors:
            raise InputError("the call has no tensor input")
        return cls(tensors, keywords, options)

    @classmethod
    def of_example(cls, example):
        """`export_graph`'s and `profile`'s example inputs: one tensor, a sequence of tensors (positional)
        or a mapping (keyword arguments, a batch as a data loader yields it)."""
        if isinstance(example, Mapping):
            return cls.of((), example)
        return cls.of(example)

    @property
    def positional(self):
        return tuple(self[:len(self) - len(self.keywords)])

    def keyword_arguments(self):
        arguments = dict(zip(self.keywords, self[len(self) - len(self.keywords):]))
        arguments.update(self.options)
        return arguments

    def call(self, model):
        return model(*self.positional, **self.keyword_arguments())

    def describe(self, index):
        """Input `index` in words: "input 0", or "input 1 ('attention_mask')" for a keyword one."""
        positional = len(self) - len(self.keywords)
        return f"input {index}" + (f" ({self.keywords[index - positional]!r})" if index >= positional else "")

    def replaced(self, tensors):
        """The same call with other tensors (detached copies, the same batch on another device)."""
        return ModelInputs(tensors, self.keywords, self.options)

    def distinct(self):
        """The call with a tensor passed in several places (`labels=input_ids`) copied for the later
        ones: recorded so, each place is an input of its own, as when a data collator makes the labels a
        copy of the ids, and a plan applies to both calls."""
        seen, tensors = set(), []
        for tensor in self:
            tensors.append(tensor.clone() if id(tensor) in seen else tensor)
            seen.add(id(tensor))
        return self.replaced(tensors) if len(seen) < len(self) else self

    def signature(self):
        """What, beside the tensors' shapes, makes another recorded program: the names and the plain values."""
        return self.keywords, tuple(sorted((name, repr(value)) for name, value in self.options.items()))
