"""LLM stages (schema, rows, tools, policy, tasks, evolution). Empty until issue 3."""
