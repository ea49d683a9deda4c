"""The published dataset, read exactly as a consumer reads it.

`datasets.load_dataset` on an exported folder or a Hub repo id: the tasks of a split
(every domain, or the ones named, each its own config) and the `environments` config,
from which each task's sandbox is rebuilt as it was verified.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toolscale.dataset import spec_from_row, task_from_row
from toolscale.llm.local.files import cache_dir as toolscale_cache
from toolscale.spec import EnvironmentSpec
from toolscale.task import Task


class DatasetError(ValueError):
    """The dataset cannot be read as toolscale's: names the source, config and problem."""


@dataclass
class Split:
    """Tasks with the environments they were verified against."""

    tasks: list[Task]
    environments: dict[str, EnvironmentSpec] = field(default_factory=dict)
    environment_of: dict[str, str] = field(default_factory=dict, repr=False)

    def environment(self, task: Task) -> tuple[str, EnvironmentSpec]:
        env_id = self.environment_of[task.id]
        return env_id, self.environments[env_id]

    def level(self, task: Task) -> str:
        return task.difficulty.level if task.difficulty else "unknown"


def folder_cache(folder: Path) -> Path:
    """A datasets cache of one export of one folder: the shared cache keys a local folder
    by its name and served another export of the same name (huggingface/datasets#2956)."""
    manifest = folder / "manifest.json"
    stamp = manifest.read_bytes() if manifest.is_file() else b""
    key = hashlib.sha256(str(folder.resolve()).encode() + b"\0" + stamp).hexdigest()[:16]
    return toolscale_cache() / "datasets" / key


def _load(source: str, config: str, split: str, cache_dir: str | None) -> Any:
    from datasets import load_dataset

    if cache_dir is None and Path(source).is_dir():
        cache_dir = str(folder_cache(Path(source)))
    try:
        return load_dataset(source, config, split=split, cache_dir=cache_dir)
    except (ValueError, FileNotFoundError, KeyError) as e:
        raise DatasetError(f"{source}: config {config!r}, split {split!r}: {e}") from e


def load_split(
    source: str,
    split: str = "test",
    domains: list[str] | None = None,
    limit: int | None = None,
    cache_dir: str | None = None,
) -> Split:
    """`source` is a folder written by `toolscale export` or a Hub repo id; `limit` keeps
    the first tasks of each domain (a quick look, a CPU test run)."""
    environments: dict[str, EnvironmentSpec] = {}
    for row in _load(source, "environments", "train", cache_dir):
        environments[row["environment_id"]] = spec_from_row(row)
    tasks: list[Task] = []
    environment_of: dict[str, str] = {}
    for config in domains or ["default"]:
        taken: dict[str, int] = {}
        for n, row in enumerate(_load(source, config, split, cache_dir)):
            domain = row["domain"]
            if limit is not None and taken.get(domain, 0) >= limit:
                continue
            if row["environment_id"] not in environments:
                raise DatasetError(
                    f"{source}: {config}/{split} row {n} ({row['id']}): environment "
                    f"{row['environment_id']!r} is not in the environments config"
                )
            task = task_from_row(row)
            tasks.append(task)
            environment_of[task.id] = row["environment_id"]
            taken[domain] = taken.get(domain, 0) + 1
    if not tasks:
        raise DatasetError(f"{source}: no tasks in split {split!r} of {domains or 'any domain'}")
    return Split(tasks=tasks, environments=environments, environment_of=environment_of)
