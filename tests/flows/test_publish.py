"""The publish flow on a generated run (fake endpoint, fake Hub): the export loads with
`datasets`, the push is one commit of every exported file, and the run leaves an artifact
with the card's tables and the link."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, ClassVar

import pytest

from tests.conftest import load_fresh
from tests.flows.test_generate import latest_artifact, run_flow
from toolscale.dataset import spec_from_row, task_from_row
from toolscale.environment import Environment
from toolscale.testing.fakedomain import library
from toolscale.testing.fakellm import FakeLLM


class FakeHub:
    """HfApi as the publish flow uses it, recording the one commit."""

    commits: ClassVar[list[dict[str, Any]]] = []

    def __init__(self, token: str | None = None):
        self.token = token

    def create_repo(self, repo_id: str, **kw: Any) -> None:
        return None

    def list_repo_files(self, repo_id: str, **kw: Any) -> list[str]:
        return []

    def create_commit(self, repo_id: str, operations: list, **kw: Any) -> None:
        FakeHub.commits.append({"repo_id": repo_id, "paths": [o.path_in_repo for o in operations]})


def test_publish_exports_pushes_one_commit_and_leaves_an_artifact(
    prefect_harness, domains: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from flows.publish import publish_dataset

    data, out = tmp_path / "data", tmp_path / "dataset"
    with FakeLLM(library) as fake:
        summary = run_flow(fake, domains, data, n=6)
    monkeypatch.setattr("flows.publish.HfApi", FakeHub)
    monkeypatch.setattr("flows.publish.token_or_error", lambda: "hf_fake")
    result = asyncio.run(
        publish_dataset(data_dir=str(data), out=str(out), repo="my-org/library", test_fraction=0.2)
    )
    assert result["url"] == "https://huggingface.co/datasets/my-org/library"
    rows = result["rows"]["library"]
    assert rows["train"] + rows["test"] == summary["tasks"]
    loaded = load_fresh(str(out), "library")
    assert loaded["train"].num_rows == rows["train"] and loaded["test"].num_rows == rows["test"]
    env_row = load_fresh(str(out), "environments", split="train")[0]
    with Environment(spec_from_row(env_row)) as env:  # the round trip, on a generated domain
        for row in (r for split in loaded.values() for r in split):
            task = task_from_row(row)
            assert env.evaluate(task, row["messages"]).success, row["id"]
    [commit] = FakeHub.commits
    pushed = set(commit["paths"])
    assert commit["repo_id"] == "my-org/library"
    assert pushed == {str(p.relative_to(out)) for p in out.rglob("*") if p.is_file()}
    assert {"README.md", "manifest.json", "assets/yield.png"} <= pushed
    artifact = latest_artifact("publish-dataset")
    assert artifact is not None
    assert artifact["data"].startswith("Published: https://huggingface.co/datasets/my-org/library")
    assert "| library |" in artifact["data"] and "## Domains" in artifact["data"]
