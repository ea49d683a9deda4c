"""toolscale core: data model, sandboxes and the Environment every other part drives."""

__version__ = "0.1.0"
