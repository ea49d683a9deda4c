"""The export as a consumer meets it: every config opens with `datasets.load_dataset`, each
task scores as verified in the sandbox rebuilt from its `environments` row, the split never
separates a task from its parent or its gold sequence, unchanged input gives the same bytes,
and bad input is named and left out."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from pydantic import ValidationError

from flows.cli import main
from flows.sample import banking_run
from tests.conftest import load_fresh
from toolscale.dataset import held_out, spec_from_row, task_from_row
from toolscale.environment import Environment
from toolscale.export import ExportError, export
from toolscale.spec import EnvironmentSpec
from toolscale.store import DomainStore
from toolscale.task import Task
from toolscale.tau2 import Tau2Task


@pytest.fixture(scope="module")
def exported(
    tmp_path_factory: pytest.TempPathFactory,
    banking_spec: EnvironmentSpec,
    banking_tasks: list[Task],
) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("run")
    store = banking_run(root / "data", banking_spec, banking_tasks)
    (store.batches_dir / "intent-000900.json").write_text('{"strategy": "intent", "indic')
    first = json.loads(next(store.batches_dir.glob("intent-000000.json")).read_text())
    damaged: dict = {"strategy": "intent", "indices": [800, 801, 802], "accepted": []}
    damaged["trajectories"] = []
    pairs = zip(first["accepted"][:3], first["trajectories"][:3], strict=True)
    for n, (task, record) in enumerate(pairs):
        task_id = f"banking-salvaged-{n}"
        damaged["accepted"].append({**task, "id": task_id})
        damaged["trajectories"].append({**record, "task_id": task_id})
    damaged["accepted"][1]["gold_calls"] = "not calls"  # a task that is no task
    damaged["trajectories"][2]["messages"] = 7  # a task whose conversation is broken
    (store.batches_dir / "intent-000800.json").write_text(json.dumps(damaged))
    DomainStore(root / "data", "empty").save_environment(banking_spec)
    out = root / "dataset"
    export(root / "data", out, test_fraction=0.25)
    return root, out


def test_every_config_opens_with_load_fresh(exported: tuple[Path, Path]) -> None:
    _, out = exported
    default = load_fresh(str(out))
    banking = load_fresh(str(out), "banking")
    assert set(default) == set(banking) == {"train", "test"}
    n_train, n_test = banking["train"].num_rows, banking["test"].num_rows
    assert default["train"].num_rows == n_train and default["test"].num_rows == n_test
    assert n_test >= 1 and n_train > 3 * n_test - 4
    envs = load_fresh(str(out), "environments", split="train")
    assert envs.num_rows == 1 and envs[0]["domain"] == "banking"
    rejected = load_fresh(str(out), "rejected", split="train")
    assert rejected.num_rows >= 1
    assert all(r["stage"] and r["reason"] and r["item"] for r in rejected)
    row = banking["train"][0]
    assert set(row["user_scenario"]["instructions"]) == {
        "domain",
        "reason_for_call",
        "known_info",
        "unknown_info",
        "task_instructions",
    }
    action = row["evaluation_criteria"]["actions"][0]
    assert action["requestor"] == "assistant"
    assert isinstance(json.loads(action["arguments"]), dict)  # text: no merged struct
    assert row["messages"][0]["role"] == "system"
    with pytest.raises(ValueError, match="nope"):
        load_fresh(str(out), "nope")


def test_each_task_scores_as_verified_in_the_sandbox_its_row_rebuilds(
    exported: tuple[Path, Path], banking_spec: EnvironmentSpec
) -> None:
    _, out = exported
    env_row = load_fresh(str(out), "environments", split="train")[0]
    spec = spec_from_row(env_row)
    assert spec.model_dump(by_alias=True) == banking_spec.model_dump(by_alias=True)
    assert json.loads(env_row["seed"]) == json.loads(banking_spec.model_dump_json())["seed"]
    rows = [r for split in load_fresh(str(out), "banking").values() for r in split]
    with Environment(spec) as env:
        for row in rows:
            assert row["environment_id"] == env_row["environment_id"]
            task = task_from_row(row)
            assert env.evaluate(task, row["messages"]).success, row["id"]
            wrong = [*row["messages"][:-1], {"role": "assistant", "content": "done"}]
            if task.expected is not None and task.expected.communicate:
                assert not env.evaluate(task, wrong).success


def test_bad_input_is_named_and_left_out_and_nothing_else_is_lost(
    exported: tuple[Path, Path],
) -> None:
    root, out = exported
    manifest = json.loads((out / "manifest.json").read_text())
    skipped = "\n".join(manifest["skipped"])
    assert "intent-000900.json: not a valid batch" in skipped
    assert "intent-000800.json: accepted[1] is not valid (gold_calls" in skipped
    assert "intent-000800.json: task 'banking-salvaged-2' has no valid conversation" in skipped
    ids = {r["id"] for split in load_fresh(str(out), "banking").values() for r in split}
    assert "banking-salvaged-0" in ids and not ids & {"banking-salvaged-1", "banking-salvaged-2"}
    assert "empty: no verified task; domain 'empty' left out" in skipped
    card = (out / "README.md").read_text()
    assert card.startswith("---\nlicense: apache-2.0\n") and "## Left out" in card
    for chart in ("difficulty", "calls_per_task", "tool_usage"):
        assert f"(assets/{chart}.png)" in card
        assert (out / "assets" / f"{chart}.png").read_bytes().startswith(b"\x89PNG")
    with pytest.raises(ExportError, match="no domain with a verified task"):
        export(root / "data", root / "none", ["empty"])
    with pytest.raises(ExportError, match="no such data folder"):
        export(root / "missing", root / "none")


def test_the_card_shows_the_runs_figures(
    exported: tuple[Path, Path], banking_spec: EnvironmentSpec
) -> None:
    _, out = exported
    card = (out / "README.md").read_text()
    tables, rows = len(banking_spec.schema_.tables), sum(map(len, banking_spec.seed.values()))
    assert f"| banking | {tables} | {rows} | {len(banking_spec.tools)} (" in card  # from the spec
    manifest = json.loads((out / "manifest.json").read_text())
    banking = manifest["rows"]["banking"]
    assert f"| banking | {banking['train'] + banking['test']} |" in card  # the tasks table
    assert "| tasks/intent | 36 | 21 | dedup:duplicate_gold 1, " in card
    assert "(assets/yield.png)" in card and (out / "assets" / "yield.png").is_file()
    assert manifest["models"] == ["hand-written"] and "banking" in manifest["reports"]


def test_unchanged_input_gives_the_same_bytes(exported: tuple[Path, Path]) -> None:
    root, out = exported
    again = root / "again"
    export(root / "data", again, test_fraction=0.25)

    def digests(folder: Path) -> dict[str, str]:
        return {
            str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*"))
            if p.is_file()
        }

    assert digests(again) == digests(out)
    shard = next((out / "data" / "banking").glob("train-00000-of-*.parquet"))
    assert pq.read_schema(shard).field("tools").type == "string"


def test_the_split_keeps_families_and_gold_sequences_on_one_side() -> None:
    tasks: list[tuple[str, str | None, str]] = [(f"t{i}", None, f"gold{i}") for i in range(40)]
    tasks += [("child", "t3", "gold-child"), ("grandchild", "child", "gold-g")]
    tasks += [("twin", None, "gold7")]  # the same gold sequence as t7
    test = held_out(tasks, 0.25)
    assert test == held_out(list(reversed(tasks)), 0.25)  # order does not matter
    assert 10 <= len(test) <= 14
    for family in ({"t3", "child", "grandchild"}, {"t7", "twin"}):
        assert family <= test or not family & test
    assert held_out(tasks, 0.0) == set()


def test_the_tau2_export_reads_with_tau2s_task_model(exported: tuple[Path, Path]) -> None:
    """Each task of `tasks.json` validates against tau2-bench's `Task` fields (the model
    forbids any other), its actions are the gold calls with arguments as objects, and the
    domain's policy and database come beside it."""
    root, out = exported
    tau2_out = root / "tau2"
    assert main(["export", "--data", str(root / "data"), "--out", str(tau2_out), "--format",
                 "tau2"]) == 0  # fmt: skip
    hub = {r["id"]: r for split in load_fresh(str(out), "banking").values() for r in split}
    tasks = json.loads((tau2_out / "banking" / "tasks.json").read_text())
    assert len(tasks) == len(hub)
    for raw in tasks:
        task = Tau2Task.model_validate(raw)
        row = hub[task.id]
        assert task.evaluation_criteria is not None
        assert task.evaluation_criteria.reward_basis == ["DB", "COMMUNICATE"]
        actions = task.evaluation_criteria.actions or []
        assert [(a.name, a.arguments, a.requestor) for a in actions] == [
            (c["name"], c["arguments"], "assistant") for c in json.loads(row["gold_calls"])
        ]
    assert (tau2_out / "banking" / "policy.md").read_text().strip()
    db = json.loads((tau2_out / "banking" / "db.json").read_text())
    spec = EnvironmentSpec.model_validate_json(
        (tau2_out / "banking" / "environment.json").read_text()
    )
    assert db == json.loads(json.dumps(spec.seed)) and "clients" in db
    with pytest.raises(ValidationError):
        Tau2Task.model_validate({**tasks[0], "messages": []})  # not a tau2 field


def test_the_cards_scoring_snippet_runs(
    exported: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The snippet a reader copies from the card, run against the exported folder."""
    import datasets.config

    root, out = exported
    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", root / "snippet-cache")
    card = (out / "README.md").read_text()
    snippet = card.split("## Rebuild a sandbox and score an answer")[1].split("```python\n")[1]
    snippet = snippet.split("```")[0].replace('"OWNER/NAME"', repr(str(out)))
    exec(compile(snippet, "card", "exec"), {"__name__": "card"})
    assert "success=True" in capsys.readouterr().out


def test_the_cards_loading_snippet_runs(
    exported: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The card's "Load it" lines, run against the exported folder: each opens what it says
    (the one-domain line named its result `finance` whatever the domain was)."""
    import datasets.config

    root, out = exported
    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", root / "load-cache")
    card = (out / "README.md").read_text()
    snippet = card.split("## Load it")[1].split("```python\n")[1].split("```")[0]
    names: dict[str, object] = {"__name__": "card"}
    exec(compile(snippet.replace('"OWNER/NAME"', repr(str(out))), "card", "exec"), names)
    one = names["one_domain"]
    banking = load_fresh(str(out), "banking")
    assert {r["id"] for r in one["train"]} == {r["id"] for r in banking["train"]}  # type: ignore[index]
    assert len(names["envs"]) >= 1 and len(names["rejected"]) >= 1  # type: ignore[arg-type]
