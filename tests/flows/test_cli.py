"""`toolscale verify`: files in, accepted / rejected / report out, bad input named by line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from flows.cli import main
from tests.conftest import BANKING, expected_of, mini_task
from toolscale.spec import EnvironmentSpec
from toolscale.task import Task


def _write_inputs(tmp_path: Path, spec: EnvironmentSpec) -> tuple[Path, Path]:
    env = tmp_path / "env.json"
    env.write_text(spec.model_dump_json())
    good = mini_task(id="good")
    later = mini_task(
        id="later",
        instruction="Open a new account for client 2 and tell me its id.",
        gold_calls=[{"name": "open_account", "arguments": {"client_id": 2}}],
        communicate=[{"call": 0, "path": "id"}],
    )
    lines = [
        good.model_dump_json(),
        "{not json",
        json.dumps({"id": "no-instruction", "gold_calls": [{"name": "withdraw"}]}),
        mini_task(id="ghost", gold_calls=[{"name": "teleport", "arguments": {}}]).model_dump_json(),
        mini_task(
            id="types",
            gold_calls=[{"name": "withdraw", "arguments": {"account_id": 5, "amount": 1}}],
        ).model_dump_json(),
        "",
        later.model_dump_json(),
    ]
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text("\n".join(lines) + "\n")
    return env, tasks


def test_verify_writes_outputs_and_names_bad_lines(
    tmp_path: Path, mini_spec: EnvironmentSpec, capsys: pytest.CaptureFixture[str]
) -> None:
    env, tasks = _write_inputs(tmp_path, mini_spec)
    out = tmp_path / "out"
    assert main(["verify", str(env), str(tasks), "--out", str(out), "--quiet"]) == 0
    accepted = [
        Task.model_validate_json(x) for x in (out / "accepted.jsonl").read_text().splitlines()
    ]
    assert [t.id for t in accepted] == ["good", "later"]  # the rest of the file still ran
    assert all(t.expected is not None for t in accepted)
    rejected = [json.loads(x) for x in (out / "rejected.jsonl").read_text().splitlines()]
    got = [
        (r["source"].rsplit(":", 1)[1] if r.get("source") else None, r["reason"]) for r in rejected
    ]
    assert got == [
        ("2", "bad_json"),
        ("3", "not_a_task"),
        (None, "unknown_tool"),
        (None, "bad_arguments"),
    ]
    assert rejected[0]["item"] == "{not json"  # nothing is lost
    assert "instruction" in rejected[1]["detail"]
    assert rejected[2]["task_id"] == "ghost" and "teleport" in rejected[2]["detail"]
    assert "account_id" in rejected[3]["detail"]
    report = json.loads((out / "report.json").read_text())
    assert (report["accepted"], report["rejected"]) == (2, 4)
    structure = next(s for s in report["stages"] if s["stage"] == "structure")
    assert structure["rejected"] == {
        "bad_json": 1,
        "not_a_task": 1,
        "unknown_tool": 1,
        "bad_arguments": 1,
    }
    printed = capsys.readouterr().err
    assert "structure" in printed and "accepted 2 of 6" in printed


def test_verify_on_duckdb(tmp_path: Path, mini_spec: EnvironmentSpec) -> None:
    env, tasks = _write_inputs(tmp_path, mini_spec)
    out = tmp_path / "out"
    assert (
        main(["verify", str(env), str(tasks), "--engine", "duckdb", "--out", str(out), "--quiet"])
        == 0
    )
    accepted = [
        Task.model_validate_json(x) for x in (out / "accepted.jsonl").read_text().splitlines()
    ]
    assert [expected_of(t).engine for t in accepted] == ["duckdb", "duckdb"]


def test_bad_environment_file_is_a_clear_error(tmp_path: Path, mini_dict: dict) -> None:
    env = tmp_path / "env.json"
    env.write_text("{")
    with pytest.raises(SystemExit, match=r"env\.json is not a valid environment"):
        main(["verify", str(env), str(tmp_path / "t.jsonl")])
    del mini_dict["tools"][0]["description"]
    env.write_text(json.dumps(mini_dict))
    with pytest.raises(SystemExit, match=r"tools\.0\.description: Field required"):
        main(["verify", str(env), str(tmp_path / "t.jsonl")])
    with pytest.raises(SystemExit, match="cannot read environment"):
        main(["verify", str(tmp_path / "missing.json"), str(tmp_path / "t.jsonl")])


def test_rejected_environment_exits_1_and_keeps_reasons(tmp_path: Path, mini_dict: dict) -> None:
    mini_dict["tools"][0]["returns"] = "SELECT * FROM read_csv('/etc/passwd')"
    env, tasks = _write_inputs(tmp_path, EnvironmentSpec.model_validate(mini_dict))
    out = tmp_path / "out"
    assert main(["verify", str(env), str(tasks), "--out", str(out), "--quiet"]) == 1
    (line,) = (out / "environment_rejected.jsonl").read_text().splitlines()
    assert json.loads(line)["reason"] == "sql_forbidden_function"
    assert not (out / "accepted.jsonl").exists()


def test_console_script_runs(tmp_path: Path, mini_spec: EnvironmentSpec) -> None:
    """The `toolscale` command the package installs (make test installs it in .venv)."""
    script = Path(sys.executable).with_name("toolscale")
    if not script.exists():
        pytest.skip(f"the package is not installed beside {sys.executable}")
    env, tasks = _write_inputs(tmp_path, mini_spec)
    done = subprocess.run(
        [script, "verify", env, tasks, "--out", tmp_path / "o", "--quiet", "--no-cross-engine"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "accepted 2 of 6" in done.stderr


def test_generate_rejects_bad_input_before_starting_anything(tmp_path) -> None:
    from flows.cli import main

    prefect_loaded = "prefect" in sys.modules
    domains = tmp_path / "domains"
    (domains / "shop").mkdir(parents=True)
    (domains / "shop" / "brief.yaml").write_text("name: shop\ndescription: too short\n")
    cases = {
        ("nowhere",): "no brief for domain 'nowhere'",
        ("shop",): "description: String should have at least 20 characters",
        ("shop", "-n", "0"): "--n-tasks must be at least 1",
        ("shop", "--strategies", "sampled,magic"): "--strategies: unknown magic",
    }
    for extra, message in cases.items():
        with pytest.raises(SystemExit) as err:
            main(["generate", *extra, "--domains", str(domains), "--data", str(tmp_path / "d")])
        assert message in str(err.value), (extra, err.value)
        if extra == ("shop",):  # a bad brief names its file
            assert "shop/brief.yaml" in str(err.value)
    assert not (tmp_path / "d").exists()  # nothing was started, nothing written
    assert ("prefect" in sys.modules) == prefect_loaded  # nor was Prefect imported


def test_the_banking_malformed_file_through_the_cli(tmp_path: Path) -> None:
    out = tmp_path / "out"
    code = main(
        [
            "verify",
            str(BANKING / "environment.json"),
            str(BANKING / "tasks_malformed.jsonl"),
            "--out",
            str(out),
            "--quiet",
        ]
    )
    assert code == 0
    accepted = [json.loads(x)["id"] for x in (out / "accepted.jsonl").read_text().splitlines()]
    rejected = [json.loads(x) for x in (out / "rejected.jsonl").read_text().splitlines()]
    assert accepted == ["bank-m01", "bank-m05"]
    assert [r["reason"] for r in rejected] == ["bad_json", "not_a_task", "unknown_tool"]
    assert rejected[0]["source"].endswith("tasks_malformed.jsonl:2")


def test_generate_no_judge_turns_the_judge_off(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import flows.generate
    from toolscale.testing.fakedomain import BRIEF

    (tmp_path / "domains" / "library").mkdir(parents=True)
    (tmp_path / "domains" / "library" / "brief.yaml").write_text(BRIEF)
    configs = []

    async def generate_domain(domain: str, **options: Any) -> dict:
        configs.append(options["config"])
        return {"tasks": 1}

    monkeypatch.setattr(flows.generate, "generate_domain", generate_domain)
    for extra in (["--no-judge"], []):
        args = ["generate", "library", "--domains", str(tmp_path / "domains"), *extra]
        assert main(args) == 0
    assert [c.judge for c in configs] == [False, True]
