"""The bundled GRPO trainer. Empty until its issue; it will drive toolscale.environment."""
