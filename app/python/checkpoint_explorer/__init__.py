"""Checkpoint Explorer's Python front end: export a live nn.Module to the explorer's graph format,
apply a checkpoint plan to it with torch.utils.checkpoint, and profile it where the user trains."""
