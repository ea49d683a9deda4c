"""Entry points: the CLI now, Prefect flows and deployments as they come (issue 3)."""
