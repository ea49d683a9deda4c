"""`generate all --runner dask` (issue 12): domains side by side on a local Dask cluster of
two workers make the very tasks the in-process run makes, and no two workers write one
file."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from flows.generate import generate_all
from toolscale.testing.fakedomain import BRIEF, library
from toolscale.testing.fakellm import FakeLLM


def two_domains(root: Path) -> Path:
    for name in ("library", "branch"):
        (root / name).mkdir(parents=True)
        (root / name / "brief.yaml").write_text(BRIEF.replace("name: library", f"name: {name}"))
    return root


def made(data: Path) -> dict[str, list[tuple[str, str]]]:
    """Per domain: each verified task's id and gold calls, sorted."""
    out = {}
    for domain in sorted(p.name for p in data.iterdir() if p.is_dir()):
        rows = (data / domain / "tasks.jsonl").read_text().splitlines()
        tasks = [json.loads(r) for r in rows]
        out[domain] = sorted((t["id"], json.dumps(t["gold_calls"])) for t in tasks)
    return out


def test_two_dask_workers_make_what_the_in_process_run_makes(
    prefect_harness, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    domains = two_domains(tmp_path / "domains")
    with FakeLLM(library) as fake:
        monkeypatch.setenv("TOOLSCALE_LLM_URL", fake.base_url)
        monkeypatch.setenv("TOOLSCALE_LLM_MODEL", "fake")
        here = asyncio.run(
            generate_all(n_tasks=4, data_dir=str(tmp_path / "here"), domains_dir=str(domains))
        )
        spread = asyncio.run(
            generate_all(
                n_tasks=4,
                data_dir=str(tmp_path / "spread"),
                domains_dir=str(domains),
                runner="dask",
                dask_workers=2,
            )
        )
    assert here == spread and all(n >= 4 for n in here.values())
    assert made(tmp_path / "here") == made(tmp_path / "spread")
    for domain in ("library", "branch"):  # each domain's files, written by one worker only
        files = list((tmp_path / "spread" / domain / "batches").glob("*.json"))
        assert files and all(domain in f.parent.parent.name for f in files)
