"""`toolscale eval` end to end: an OpenAI-compatible endpoint (the fake server) as the
agent with native tool calling, over the exported banking test split."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from flows.cli import main
from toolscale.task import Task
from toolscale.testing.fakellm import FakeLLM, Reply, Responder
from toolscale.trajectory import Message
from trainer.data import load_split
from trainer.oracle import OraclePolicy


def gold_agent(tasks: list[Task]) -> Responder:
    """Over HTTP: the next gold call as a native tool call, then the values in words."""
    oracle = OraclePolicy(tasks)

    def respond(body: dict[str, Any]) -> Reply:
        assert body["tools"], "the agent is offered the environment's tools"
        said = oracle.next_message([Message.model_validate(m) for m in body["messages"]])
        calls = tuple((c.function.name, c.function.arguments) for c in said.tool_calls or [])
        return Reply(content=said.content, tool_calls=calls)

    return respond


def run_eval(fake: FakeLLM, dataset: Path, out: Path) -> tuple[int, dict]:
    flags = ["--model", "fake", "--base-url", fake.base_url, "--dataset", str(dataset)]
    code = main(["eval", *flags, "-k", "2", "--limit", "3", "--workers", "2", "--out", str(out)])
    return code, json.loads((out / "report.json").read_text())


def test_an_agent_that_follows_the_gold_passes_and_one_that_only_talks_fails(
    prefect_harness, no_proxy, banking_dataset: Path, tmp_path: Path
) -> None:
    split = load_split(str(banking_dataset), "test", limit=3)
    with FakeLLM(gold_agent(split.tasks)) as fake:
        code, good = run_eval(fake, banking_dataset, tmp_path / "gold")
    assert code == 0 and good["overall"]["pass_hat"] == {"1": 1.0, "2": 1.0}
    trials = [json.loads(x) for x in (tmp_path / "gold" / "trials.jsonl").read_text().splitlines()]
    assert len(trials) == 2 * len(split.tasks) and all(t["success"] for t in trials)
    with FakeLLM(lambda body: Reply(content="Sorry, I cannot do that.")) as fake:
        code, bad = run_eval(fake, banking_dataset, tmp_path / "mute")
    assert bad["overall"]["pass_hat"] == {"1": 0.0, "2": 0.0}
    failed = [json.loads(x) for x in (tmp_path / "mute" / "trials.jsonl").read_text().splitlines()]
    assert any(t["diff"] or t["missing"] for t in failed), "a failure says what was missed"
    assert all(t["answer"] == "Sorry, I cannot do that." for t in failed)


def test_bad_arguments_are_named(banking_dataset: Path) -> None:
    with pytest.raises(SystemExit, match="error: -k must be at least 1, got 0"):
        main(
            [
                "eval",
                "--model",
                "m",
                "--base-url",
                "http://x",
                "--dataset",
                str(banking_dataset),
                "-k",
                "0",
            ]
        )


def test_a_model_without_its_endpoint_is_refused(banking_dataset: Path) -> None:
    with pytest.raises(SystemExit, match="--model and --base-url together"):
        main(["eval", "--model", "m", "--dataset", str(banking_dataset)])


def test_text_calls_reads_a_small_models_fenced_json_calls(
    prefect_harness, no_proxy, banking_dataset: Path, tmp_path: Path
) -> None:
    split = load_split(str(banking_dataset), "test", limit=2)
    oracle = OraclePolicy(split.tasks)

    def fenced(body: dict[str, Any]) -> Reply:
        said = oracle.next_message([Message.model_validate(m) for m in body["messages"]])
        if not said.tool_calls:
            return Reply(content=said.content)
        call = said.tool_calls[0].function
        text = json.dumps({"name": call.name, "arguments": json.loads(call.arguments)})
        return Reply(content=f"```json\n{text}\n```")

    flags = ["--dataset", str(banking_dataset), "-k", "1", "--limit", "2"]
    with FakeLLM(fenced) as fake:
        flags += ["--model", "small", "--base-url", fake.base_url]
        main(["eval", *flags, "--out", str(tmp_path / "native")])
        main(["eval", *flags, "--text-calls", "--out", str(tmp_path / "text")])
    native = json.loads((tmp_path / "native" / "report.json").read_text())
    text = json.loads((tmp_path / "text" / "report.json").read_text())
    assert native["overall"]["pass_hat"] == {"1": 0.0}
    assert text["overall"]["pass_hat"] == {"1": 1.0}
