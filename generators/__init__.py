"""LLM stages that propose environments and tasks; each checks its output before the next."""
