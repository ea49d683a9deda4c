"""End to end on the real embedded model: llama-server built from the llama-cpp-python
sdist, the official Qwen2.5-Coder 0.5B GGUF, a tiny domain, sample-then-verbalize.

Slow (a first run builds llama-server: 4-10 min on 2 cores): run it with `make test-slow`
or `TOOLSCALE_E2E=1 pytest -m slow tests/flows/test_e2e_local.py`.
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import pytest

from toolscale.environment import Environment
from toolscale.spec import EnvironmentSpec
from toolscale.task import Task
from toolscale.testing.fakedomain import BRIEF

pytestmark = pytest.mark.slow


@pytest.mark.skipif(
    os.environ.get("TOOLSCALE_E2E") != "1",
    reason="set TOOLSCALE_E2E=1 (make test-slow) to build llama-server and run the 0.5B model",
)
def test_tiny_domain_on_the_embedded_model_gives_verified_tasks(tmp_path: Path) -> None:
    os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
    os.environ.setdefault("PREFECT_HOME", str(tmp_path / "prefect"))
    os.environ.setdefault("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "120")
    for var in ("TOOLSCALE_LLM_MODEL", "TOOLSCALE_LLM_URL"):  # the embedded model, always
        os.environ.pop(var, None)
    from flows.generate import generate_domain

    domains = tmp_path / "domains"
    (domains / "library").mkdir(parents=True)
    (domains / "library" / "brief.yaml").write_text(BRIEF)
    summary = asyncio.run(
        generate_domain(
            "library",
            n_tasks=2,
            strategies=("sampled",),
            data_dir=str(tmp_path / "data"),
            domains_dir=str(domains),
            model_size="0.5b",
        )
    )
    out = tmp_path / "data" / "library"
    tasks = [Task.model_validate_json(line) for line in (out / "tasks.jsonl").open()]
    records = [json.loads(line) for line in (out / "trajectories.jsonl").open()]
    assert summary["tasks"] == len(tasks) >= 1
    assert summary["model"] == "qwen2.5-coder-0.5b-instruct"
    spec = EnvironmentSpec.model_validate_json((out / "environment.json").read_text())
    with Environment(spec) as env:
        for task, record in zip(tasks, records, strict=True):
            assert env.evaluate(task, record["messages"]).success
