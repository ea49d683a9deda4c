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


def test_one_domain_spread_over_two_workers_keeps_the_in_process_tasks(
    prefect_harness, tmp_path: Path
) -> None:
    """`generate DOMAIN --runner dask`: slices of work items on two Dask workers, dedup and
    settling here in index order; the very tasks the in-process run keeps, every file
    written by this process (workers write nothing)."""
    from flows.generate import generate_domain
    from generators.config import GenerationConfig

    domains = two_domains(tmp_path / "domains")
    config = GenerationConfig(batch_size=3)  # several slices per worker

    def run(where: str, runner: str) -> dict:
        return asyncio.run(
            generate_domain(
                "library",
                n_tasks=10,
                data_dir=str(tmp_path / where),
                domains_dir=str(domains),
                base_url=fake.base_url,
                model="fake",
                config=config,
                runner=runner,
                dask_workers=2,
            )
        )

    with FakeLLM(library) as fake:
        runs = {"here": run("here", "process"), "spread": run("spread", "dask")}
    assert runs["here"]["tasks"] == runs["spread"]["tasks"] >= 10
    assert made(tmp_path / "here") == made(tmp_path / "spread")
    stages = {s["stage"]: s for s in runs["spread"]["verification"]["stages"]}
    assert stages["dedup"]["seen"] >= 10  # checked here, for what the workers verified
    assert stages["replay"]["seen"] >= stages["dedup"]["seen"]  # the workers' counts merged
    spent = runs["spread"]["ledger"]["stages"]
    assert spent["intent"]["calls"] >= 10 and spent["judge"]["calls"] >= 10  # workers' calls
