"""Publishing with the Hub replaced by a recorder (no network): one commit that adds every
file of the export and deletes what an earlier, larger export left; every local problem is
an error before any request."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx2  # what huggingface_hub 2.x sends its requests with
import pytest
from huggingface_hub import CommitOperationAdd, CommitOperationDelete
from huggingface_hub.errors import RevisionNotFoundError

from flows.cli import main
from toolscale.hub import PublishError, plan, publish


class Recorder:
    """The HfApi calls a publish makes, recorded; the repo holds `present` files."""

    def __init__(self, present: list[str] | None = None, branch_missing: bool = False):
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.present = present or []
        self.branch_missing = branch_missing

    def create_repo(self, repo_id: str, **kw: Any) -> object:
        self.calls.append(("create_repo", {"repo_id": repo_id, **kw}))
        return None

    def create_branch(self, repo_id: str, **kw: Any) -> None:
        self.calls.append(("create_branch", {"repo_id": repo_id, **kw}))

    def list_repo_files(self, repo_id: str, **kw: Any) -> list[str]:
        self.calls.append(("list_repo_files", {"repo_id": repo_id, **kw}))
        if self.branch_missing:
            missing = httpx2.Response(404, request=httpx2.Request("GET", "https://hub"))
            raise RevisionNotFoundError("no such branch", response=missing)
        return self.present

    def create_commit(self, repo_id: str, operations: list, **kw: Any) -> object:
        self.calls.append(("create_commit", {"repo_id": repo_id, "operations": operations, **kw}))
        return None


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    out = tmp_path / "dataset"
    (out / "data" / "finance").mkdir(parents=True)
    (out / "README.md").write_text("---\nlicense: apache-2.0\n---\n# card\n")
    (out / "manifest.json").write_text("{}\n")
    (out / "data" / "finance" / "train-00000-of-00001.parquet").write_bytes(b"PAR1")
    return out


def test_a_publish_is_one_commit_that_adds_every_file_and_deletes_stale_ones(
    folder: Path,
) -> None:
    stale = "data/finance/train-00001-of-00002.parquet"
    api = Recorder(present=[".gitattributes", "README.md", stale])
    done = publish(api, folder, "my-org/toolscale", private=True)
    names = [name for name, _ in api.calls]
    assert names == ["create_repo", "list_repo_files", "create_commit"]
    assert api.calls[0][1] == {
        "repo_id": "my-org/toolscale",
        "private": True,
        "repo_type": "dataset",
        "exist_ok": True,
    }
    commit = api.calls[-1][1]
    assert commit["repo_type"] == "dataset" and commit["revision"] is None
    added = [op.path_in_repo for op in commit["operations"] if isinstance(op, CommitOperationAdd)]
    deleted = [
        op.path_in_repo for op in commit["operations"] if isinstance(op, CommitOperationDelete)
    ]
    assert added == ["README.md", "data/finance/train-00000-of-00001.parquet", "manifest.json"]
    assert deleted == [stale]  # .gitattributes is the Hub's own
    assert done.url == "https://huggingface.co/datasets/my-org/toolscale"


def test_a_branch_is_created_and_a_new_one_has_nothing_to_delete(folder: Path) -> None:
    api = Recorder(branch_missing=True)
    done = publish(api, folder, "my-org/toolscale", revision="v2")
    assert [name for name, _ in api.calls] == [
        "create_repo",
        "create_branch",
        "list_repo_files",
        "create_commit",
    ]
    assert api.calls[1][1]["branch"] == "v2" and api.calls[-1][1]["revision"] == "v2"
    assert done.delete == [] and done.url.endswith("/tree/v2")


@pytest.mark.parametrize(
    ("repo", "change", "message"),
    [
        ("my-org/toolscale", "no card", "no dataset card with YAML front matter"),
        ("my-org/toolscale", "no shard", "no parquet shard to publish"),
        ("not a repo!", "", "--repo 'not a repo!'"),
        ("toolscale", "", "must be OWNER/NAME"),
    ],
)
def test_local_problems_are_errors_before_any_request(
    folder: Path, repo: str, change: str, message: str
) -> None:
    if change == "no card":
        (folder / "README.md").unlink()
    if change == "no shard":
        next(folder.rglob("*.parquet")).unlink()
    api = Recorder()
    with pytest.raises(PublishError, match=message):
        publish(api, folder, repo)
    assert api.calls == []


def test_the_cli_needs_a_token_and_a_dry_run_does_not(
    folder: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("toolscale.hub.get_token", lambda: None)
    with pytest.raises(SystemExit, match="no Hugging Face token"):
        main(["publish", str(folder), "--repo", "my-org/toolscale"])
    assert main(["publish", str(folder), "--repo", "my-org/toolscale", "--dry-run"]) == 0
    err = capsys.readouterr().err
    assert "would add data/finance/train-00000-of-00001.parquet" in err
    assert "would publish to https://huggingface.co/datasets/my-org/toolscale" in err
    assert plan(None, folder, "my-org/toolscale", None).delete == []
