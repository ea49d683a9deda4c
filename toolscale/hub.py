"""`toolscale publish`: an exported dataset folder pushed to the Hugging Face Hub as one
atomic commit (`HfApi.create_commit`), so a dataset on the Hub is never half updated; files
the repo has that the folder no longer has (shards of an earlier, larger export) are deleted
in the same commit. Everything that can be wrong locally (no token, a bad repo id, a folder
that is no export) is an error before any request."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from huggingface_hub import CommitOperationAdd, CommitOperationDelete, get_token
from huggingface_hub.errors import (
    HFValidationError,
    RepositoryNotFoundError,
    RevisionNotFoundError,
)
from huggingface_hub.utils import validate_repo_id

from toolscale.errors import ToolscaleError
from toolscale.reasons import ErrorReason

KEPT_ON_HUB = {".gitattributes"}  # the Hub's own files: never deleted
_OWNER_NAME = re.compile(r"^[\w.-]+/[\w.-]+$")


class PublishError(ToolscaleError):
    """The folder, the repo id or the credentials do not allow a publish."""

    reason = ErrorReason.PUBLISH_REFUSED


class HubApi(Protocol):
    """The part of `huggingface_hub.HfApi` a publish uses (tests pass a recorder)."""

    def create_repo(
        self,
        repo_id: str,
        *,
        private: bool | None = ...,
        repo_type: str | None = ...,
        exist_ok: bool = ...,
    ) -> object: ...

    def create_branch(
        self, repo_id: str, *, branch: str, repo_type: str | None = ..., exist_ok: bool = ...
    ) -> None: ...

    def list_repo_files(
        self, repo_id: str, *, revision: str | None = ..., repo_type: str | None = ...
    ) -> list[str]: ...

    def create_commit(
        self,
        repo_id: str,
        operations: list,
        *,
        commit_message: str,
        repo_type: str | None = ...,
        revision: str | None = ...,
    ) -> object: ...


@dataclass(frozen=True)
class Plan:
    """What a publish sends: files added (path in repo, local path) and paths deleted."""

    repo: str
    revision: str | None
    add: list[tuple[str, Path]]
    delete: list[str]

    @property
    def url(self) -> str:
        base = f"https://huggingface.co/datasets/{self.repo}"
        return f"{base}/tree/{self.revision}" if self.revision else base


def check_folder(folder: Path) -> list[tuple[str, Path]]:
    """The files to push, each with its path in the repo; an error names what is missing."""
    if not folder.is_dir():
        raise PublishError(f"{folder}: no such folder; run `toolscale export --out {folder}`")
    card = folder / "README.md"
    if not card.is_file() or not card.read_text().startswith("---\n"):
        raise PublishError(f"{card}: no dataset card with YAML front matter; is this an export?")
    files = sorted(p for p in folder.rglob("*") if p.is_file() and ".cache" not in p.parts)
    if not any(p.suffix == ".parquet" for p in files):
        raise PublishError(f"{folder}/data: no parquet shard to publish")
    return [(p.relative_to(folder).as_posix(), p) for p in files]


def check_repo(repo: str) -> str:
    try:
        validate_repo_id(repo)
    except HFValidationError as e:
        raise PublishError(f"--repo {repo!r}: {e}") from None
    if not _OWNER_NAME.match(repo):
        raise PublishError(f"--repo {repo!r}: must be OWNER/NAME, e.g. my-org/toolscale")
    return repo


def token_or_error() -> str:
    token = get_token()  # HF_TOKEN, or what `hf auth login` saved
    if not token:
        raise PublishError("no Hugging Face token: set HF_TOKEN or run `hf auth login`")
    return token


def plan(api: HubApi | None, folder: Path, repo: str, revision: str | None) -> Plan:
    """What a publish would do; with an `api`, the repo's stale files are listed for
    deletion (a repo or branch that does not exist yet has none)."""
    add = check_folder(folder)
    repo = check_repo(repo)
    delete: list[str] = []
    if api is not None:
        try:
            present = api.list_repo_files(repo, revision=revision, repo_type="dataset")
        except (RepositoryNotFoundError, RevisionNotFoundError):
            present = []  # a repo or branch not there yet: nothing to delete
        ours = {path for path, _ in add}
        delete = sorted(p for p in present if p not in ours and p not in KEPT_ON_HUB)
    return Plan(repo=repo, revision=revision, add=add, delete=delete)


def publish(
    api: HubApi, folder: Path, repo: str, private: bool = False, revision: str | None = None
) -> Plan:
    """Create the dataset repo (and branch) when missing, then push the folder as one
    commit."""
    check_folder(folder)
    check_repo(repo)
    api.create_repo(repo, private=private, repo_type="dataset", exist_ok=True)
    if revision:
        api.create_branch(repo, branch=revision, repo_type="dataset", exist_ok=True)
    done = plan(api, folder, repo, revision)
    operations: list[CommitOperationAdd | CommitOperationDelete] = [
        CommitOperationAdd(path_in_repo=path, path_or_fileobj=str(local))
        for path, local in done.add
    ]
    operations += [CommitOperationDelete(path_in_repo=path) for path in done.delete]
    api.create_commit(
        repo,
        operations,
        commit_message=f"toolscale export: {len(done.add)} files",
        repo_type="dataset",
        revision=revision,
    )
    return done
