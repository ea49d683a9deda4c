"""Prefect flows: `publish_dataset` exports the runs under data/ as a dataset folder and,
when a repo is named, pushes it to the Hugging Face Hub; `generate_and_publish` is the
scheduled chain (generate every domain, then publish). Each leaves an artifact with the
card's tables and, once pushed, the dataset's link.

Wiring only: toolscale/export.py writes the folder, toolscale/hub.py pushes it."""

from __future__ import annotations

from pathlib import Path

from huggingface_hub import HfApi
from prefect import flow, task
from prefect.cache_policies import NO_CACHE

from flows.console import leave_artifact, make_console
from flows.generate import generate_all
from generators.config import DEFAULT_CONFIG
from toolscale.dataset import TEST_FRACTION
from toolscale.export import export
from toolscale.hub import publish, token_or_error


@task(name="export-dataset", cache_policy=NO_CACHE)
def export_dataset(
    data_dir: str, out: str, domains: list[str] | None, test_fraction: float, repo: str | None
) -> dict[str, dict[str, int]]:
    report = export(data_dir, out, domains, test_fraction=test_fraction, repo=repo)
    for skipped in report.skipped:
        print(f"left out: {skipped}")
    return report.rows


@task(name="push-dataset", cache_policy=NO_CACHE)
def push_dataset(out: str, repo: str, private: bool, revision: str | None) -> str:
    done = publish(HfApi(token=token_or_error()), Path(out), repo, private, revision)
    return done.url


def card_body(out: str) -> str:
    """The card without its YAML front matter: what the artifact shows."""
    text = (Path(out) / "README.md").read_text()
    return text.split("\n---\n", 1)[1] if text.startswith("---\n") else text


@flow(name="publish-dataset", log_prints=True)
async def publish_dataset(
    data_dir: str = "data",
    out: str = "out/dataset",
    domains: list[str] | None = None,
    repo: str | None = None,
    private: bool = False,
    revision: str | None = None,
    test_fraction: float = TEST_FRACTION,
) -> dict:
    """Export the runs; push them when `repo` (OWNER/NAME) is set."""
    rows = export_dataset(data_dir, out, domains, test_fraction, repo)
    url = push_dataset(out, repo, private, revision) if repo else None
    where = f"Published: {url}\n\n" if url else f"Exported to `{out}` (no repo set: not pushed)\n\n"
    await leave_artifact(
        make_console(), "publish-dataset", where + card_body(out), "toolscale publish"
    )
    return {"rows": rows, "url": url}


@flow(name="generate-and-publish", log_prints=True)
async def generate_and_publish(
    n_tasks: int = 100,
    domains: list[str] | None = None,
    data_dir: str = "data",
    domains_dir: str = "domains",
    out: str = "out/dataset",
    repo: str | None = None,
    private: bool = False,
) -> dict:
    """The scheduled chain: generate (resuming what earlier runs left), export, publish."""
    made = await generate_all(
        n_tasks=n_tasks,
        domains=domains,
        data_dir=data_dir,
        domains_dir=domains_dir,
        config=DEFAULT_CONFIG,
    )
    published = await publish_dataset(
        data_dir=data_dir, out=out, domains=domains, repo=repo, private=private
    )
    return {"generated": made, **published}
