"""A dataset to try the trainer and eval on without generating one: the bundled banking
reference environment (`toolscale.testing.banking`) and its hand-written tasks, verified
and exported exactly as a generated run is (`toolscale sample-dataset`, used by
`make train CONFIG=cpu-tiny` and by the tests)."""

from __future__ import annotations

from pathlib import Path

from toolscale.environment import Environment
from toolscale.export import export
from toolscale.jsonl import write_json
from toolscale.llm.ledger import Ledger
from toolscale.spec import EnvironmentSpec
from toolscale.store import Batch, DomainStore, TrajectoryRecord
from toolscale.summary import RunSummary, summarise
from toolscale.task import Task
from validators.pipeline import verify

BANKING = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "banking"


def banking_spec() -> EnvironmentSpec:
    return EnvironmentSpec.model_validate_json((BANKING / "environment.json").read_text())


def banking_tasks() -> list[Task]:
    lines = (BANKING / "tasks.jsonl").read_text().splitlines()
    return [Task.model_validate_json(line) for line in lines if line.strip()]


def banking_run(root: Path, spec: EnvironmentSpec, tasks: list[Task]) -> DomainStore:
    """A run of the banking fixture as `make generate` leaves one: the environment, and a
    batch with the verified tasks, their conversations and the rejections."""
    accepted, rejected, _ = verify(spec, tasks, cross_engine=False)
    store = DomainStore(root, "banking")
    store.save_environment(spec)
    with Environment(spec) as env:
        records = [
            TrajectoryRecord(
                task_id=t.id,
                domain="banking",
                strategy="intent",
                messages=env.demonstrate(t).messages,
                tools=spec.openai_tools(),
            )
            for t in accepted
        ]
    store.commit_batch(
        Batch(
            strategy="intent",
            indices=list(range(len(tasks))),
            accepted=accepted,
            trajectories=records,
            rejected=rejected,
        )
    )
    summary = summarise(
        RunSummary(domain="banking", model="hand-written", endpoint="-"),
        store,
        {},
        Ledger(),
        ("intent",),
        0.0,
    )
    write_json(store.dir / "report.json", summary)
    return store


def sample_dataset(out: Path, test_fraction: float = 0.25) -> Path:
    """`out/data` (the run) and `out/dataset` (the export); returns the dataset folder."""
    banking_run(out / "data", banking_spec(), banking_tasks())
    export(out / "data", out / "dataset", test_fraction=test_fraction)
    return out / "dataset"
