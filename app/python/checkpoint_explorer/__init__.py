"""Checkpoint Explorer's Python front end: export a live nn.Module to the explorer's graph format,
apply a checkpoint plan to it with torch.utils.checkpoint, and profile it where the user trains."""
from .export import export_graph
from .planned import PlanError, apply_plan
from .program import ExportError

__all__ = ["export_graph", "apply_plan", "ExportError", "PlanError"]
