"""The generation flow end to end against the fake endpoint: outputs, faults, resume, kill -9.

The scripted library "model" (toolscale/testing/fakedomain.py) answers every stage; faults are
layered on top. Prefect runs against one temporary harness for the session.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from generators.strategies import STRATEGY_NAMES
from tests.conftest import ROOT
from toolscale.environment import Environment
from toolscale.spec import EnvironmentSpec
from toolscale.store import DomainStore
from toolscale.task import Task
from toolscale.testing.fakedomain import OPENERS, judging, library
from toolscale.testing.fakellm import FakeLLM, Reply, faulty


def run_flow(fake: FakeLLM, domains: Path, data: Path | str, n: int, **options: Any) -> dict:
    from flows.generate import generate_domain
    from generators.config import GenerationConfig

    options.setdefault("config", GenerationConfig(free_sql_tools=True))  # both tool paths
    return asyncio.run(
        generate_domain(
            "library",
            n_tasks=n,
            data_dir=str(data),
            domains_dir=str(domains),
            base_url=fake.base_url,
            model="fake",
            **options,
        )
    )


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_generate_writes_a_verified_dataset(prefect_harness, domains: Path, tmp_path: Path) -> None:
    data = tmp_path / "data"
    with FakeLLM(library) as fake:
        summary = run_flow(fake, domains, data, n=10, strategies=STRATEGY_NAMES)  # llm too
    out = data / "library"
    for name in (
        "environment.json",
        "seed.sqlite",
        "tasks.jsonl",
        "trajectories.jsonl",
        "rejected.jsonl",
        "report.json",
    ):
        assert (out / name).is_file(), name
    tasks = [Task.model_validate(t) for t in read_jsonl(out / "tasks.jsonl")]
    trajectories = read_jsonl(out / "trajectories.jsonl")
    assert len(tasks) >= 10 and summary["tasks"] == len(tasks)
    assert [t.id for t in tasks] == [r["task_id"] for r in trajectories]
    assert len({t.id for t in tasks}) == len(tasks)
    assert {t.provenance.source for t in tasks} >= {"sampled", "llm", "evolved"}
    spec = EnvironmentSpec.model_validate_json((out / "environment.json").read_text())
    with Environment(spec) as env:
        for task, record in zip(tasks, trajectories, strict=True):
            assert env.evaluate(task, record["messages"]).success, task.id
    rejected = read_jsonl(out / "rejected.jsonl")
    assert all(r["stage"] and r["reason"] for r in rejected)
    report = json.loads((out / "report.json").read_text())
    stages = {r["stage"]: r for r in report["rows"]}
    assert stages["tools"]["rejected"] == {"sql_rejected": 1}  # broken_tool, after repairs
    assert stages["tool_choice"]["accepted"] >= 3  # the catalogue's tools
    assert {t.origin for t in spec.tools} == {"derived", "pattern", "sql"}
    assert [r.tools() for r in spec.rules] == [["lend_book"], ["lend_book"]]
    assert report["environment"]["rules_enforced"] == 2
    assert "## Operations" in spec.policy and "### lend_book" in spec.policy
    llm = stages["tasks/llm"]  # the library model borrows for a member and book it was shown
    assert llm["accepted"] >= 1 and all(":" in reason for reason in llm["rejected"])
    assert report["tasks"] == len(tasks)
    assert sum(r["accepted"] for r in report["rows"] if r["stage"].startswith("tasks/")) == len(
        tasks
    )
    assert report["dataset"]["tasks"] == len(tasks)  # the figures (toolscale/figures.py)
    assert report["environment"]["seed_rows"] == sum(len(rows) for rows in spec.seed.values())


def latest_artifact(key: str) -> dict | None:
    """The newest artifact with `key` on the harness server (raw filter: this client's typed
    read sends null filters the pinned server refuses)."""
    from prefect.client.orchestration import get_client

    async def read() -> dict | None:
        async with get_client() as client:
            body = {"artifacts": {"key": {"any_": [key]}}, "sort": "CREATED_DESC", "limit": 1}
            found = (await client._client.post("/artifacts/filter", json=body)).json()
            return found[0] if found else None

    return asyncio.run(read())


def test_generate_leaves_the_table_as_a_prefect_artifact(
    prefect_harness, domains, tmp_path
) -> None:
    with FakeLLM(library) as fake:
        summary = run_flow(fake, domains, tmp_path / "data", n=3, strategies=("sampled",))
    artifact = latest_artifact("generate-library")
    assert artifact is not None and artifact["type"] == "markdown"
    assert "| tasks/sampled |" in artifact["data"]
    assert f"{summary['tasks']} verified tasks" in artifact["data"]


def test_rerun_resumes_without_new_calls_or_duplicates(
    prefect_harness, domains: Path, tmp_path: Path
) -> None:
    data = tmp_path / "data"
    with FakeLLM(library) as fake:
        run_flow(fake, domains, data, n=6)
        first = read_jsonl(data / "library" / "tasks.jsonl")
    with FakeLLM(library) as fake:
        run_flow(fake, domains, data, n=6)
        assert fake.count == 0  # everything was on disk or in the cache
    again = read_jsonl(data / "library" / "tasks.jsonl")
    assert again == first
    with FakeLLM(library) as fake:  # asking for more continues where it stopped
        run_flow(fake, domains, data, n=9)
    more = [t["id"] for t in read_jsonl(data / "library" / "tasks.jsonl")]
    assert len(more) >= 9 and len(set(more)) == len(more)
    assert {t["id"] for t in first} <= set(more)


def judge_requests(fake: FakeLLM) -> int:
    return sum(
        r.get("response_format", {}).get("json_schema", {}).get("name") == "JudgeVerdict"
        for r in fake.requests
    )


def test_a_judge_rejection_reaches_rejected_jsonl_and_the_report(
    prefect_harness, domains: Path, tmp_path: Path
) -> None:
    data, marker = tmp_path / "data", OPENERS[3]  # the judge refuses requests opening so
    with FakeLLM(judging(marker)) as fake:
        summary = run_flow(fake, domains, data, n=6, strategies=("sampled",))
        asked = judge_requests(fake)
    refused = [r for r in read_jsonl(data / "library" / "rejected.jsonl") if r["stage"] == "judge"]
    assert refused, "the run met no request the judge refuses"
    for r in refused:
        assert r["reason"] == "judge_unasked_call" and marker in r["item"]["instruction"]
        assert r["task_id"] == r["item"]["id"] and r["item"]["expected"]  # verified, then judged
    tasks = read_jsonl(data / "library" / "tasks.jsonl")
    assert len(tasks) >= 6 and not any(marker in t["instruction"] for t in tasks)
    row = {r["stage"]: r for r in summary["rows"]}["judge"]
    assert row["proposed"] == asked == len(tasks) + len(refused)  # every verified task, once
    assert row["accepted"] == len(tasks) and row["rejected"] == {"judge_unasked_call": len(refused)}
    assert row["tokens"] > 0 and row["cost_usd"] >= 0
    sampled = {r["stage"]: r for r in summary["rows"]}["tasks/sampled"]
    assert sampled["rejected"]["judge:judge_unasked_call"] == len(refused)
    with FakeLLM(lambda body: Reply.status(500)) as fake:  # resumed: judged batches stay judged
        again = run_flow(fake, domains, data, n=6, strategies=("sampled",))
        assert fake.count == 0
    assert {r["stage"]: r for r in again["rows"]}["judge"] == row


def test_when_the_judge_cannot_answer_verified_tasks_are_rejected_not_kept(
    prefect_harness, domains: Path, tmp_path: Path
) -> None:
    def judge_down(body: dict[str, Any]) -> Reply:
        if body.get("response_format", {}).get("json_schema", {}).get("name") == "JudgeVerdict":
            return Reply.status(400)
        return library(body)

    data = tmp_path / "data"
    with FakeLLM(judge_down) as fake:
        summary = run_flow(fake, domains, data, n=2, strategies=("sampled",))
    assert summary["tasks"] == 0 and read_jsonl(data / "library" / "tasks.jsonl") == []
    refused = [r for r in read_jsonl(data / "library" / "rejected.jsonl") if r["stage"] == "judge"]
    assert refused and {r["reason"] for r in refused} == {"judge_unavailable"}
    assert all("llm_refused" in r["detail"] and r["item"]["expected"] for r in refused)
    row = {r["stage"]: r for r in summary["rows"]}["judge"]
    assert (row["proposed"], row["accepted"]) == (len(refused), 0)
    assert summary["ledger"]["stages"]["judge"]["failures"] == {"llm_refused": len(refused)}


def test_no_judge_keeps_verified_tasks_unjudged(
    prefect_harness, domains: Path, tmp_path: Path
) -> None:
    from generators.config import GenerationConfig

    with FakeLLM(judging(OPENERS[3])) as fake:
        summary = run_flow(
            fake,
            domains,
            tmp_path / "data",
            n=3,
            strategies=("sampled",),
            config=GenerationConfig(judge=False),
        )
        assert judge_requests(fake) == 0
    assert summary["tasks"] >= 3 and "judge" not in {r["stage"] for r in summary["rows"]}


FAULTS = {
    0: Reply.status(429, retry_after=0.01),
    2: Reply.status(500),
    4: Reply.drop(),
    6: Reply.garbage(),
    8: Reply(content="{not json"),
    10: Reply(content=json.dumps({"tables": "not a list"})),
    12: Reply.hang(3.0),
    15: Reply.status(503),
}


def test_faults_are_retried_repaired_and_counted(
    prefect_harness, domains: Path, tmp_path: Path
) -> None:
    data = tmp_path / "data"
    with FakeLLM(faulty(library, FAULTS)) as fake:
        summary = run_flow(fake, domains, data, n=6, timeout_s=1.0)
    assert summary["tasks"] >= 6
    ledger = summary["ledger"]["stages"]
    retries = sum(u["retries"] for u in ledger.values())
    repairs = sum(u["repairs"] for u in ledger.values())
    assert retries >= 6  # 429, 500, drop, garbage, hang (timeout), 503
    assert repairs >= 2  # malformed JSON and a schema violation went back to the model
    rejected = read_jsonl(data / "library" / "rejected.jsonl")
    assert all(r["reason"] for r in rejected)


def test_unavailable_endpoint_fails_clearly_and_keeps_nothing_half_written(
    prefect_harness, domains: Path, tmp_path: Path
) -> None:
    from generators.environment import GenerationFailed

    data = tmp_path / "data"
    with FakeLLM(lambda body: Reply.status(500)) as fake, pytest.raises(GenerationFailed) as err:
        run_flow(fake, domains, data, n=2, max_attempts=2)
    assert "schema" in str(err.value) and "llm_unavailable" in str(err.value)
    report = json.loads((data / "library" / "report.json").read_text())
    assert report["rows"][0]["rejected"] == {"llm_unavailable": 3}
    assert not list((data / "library").glob("**/*.tmp"))


KILLER = """
import asyncio
from toolscale.testing.fakellm import FakeLLM
from toolscale.testing.fakedomain import library
from flows.generate import generate_domain
with FakeLLM(library, latency_s=0.3) as fake:
    asyncio.run(generate_domain("library", n_tasks=12, data_dir={data!r},
                domains_dir={domains!r}, base_url=fake.base_url, model="fake"))
"""


def test_kill_9_then_rerun_loses_nothing_and_repeats_nothing(
    prefect_harness, domains: Path, tmp_path: Path
) -> None:
    data = tmp_path / "data"
    script = tmp_path / "killer.py"
    script.write_text(KILLER.format(data=str(data), domains=str(domains)))
    from prefect.settings import PREFECT_API_URL

    env = {**os.environ, "PREFECT_API_URL": str(PREFECT_API_URL.value())}  # the harness server
    proc = subprocess.Popen(
        [sys.executable, str(script)],
        env=env,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=(tmp_path / "killer.log").open("wb"),
    )
    store = DomainStore(data, "library")
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline and not list(store.batches_dir.glob("sampled-*.json")):
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    committed = {t.id for t in store.accepted()}
    log = (tmp_path / "killer.log").read_text(errors="replace")[-3000:]
    assert committed, f"the run was killed before it committed anything:\n{log}"
    for path in store.batches_dir.glob("*.json"):  # every committed file parses
        json.loads(path.read_text())
    with FakeLLM(library) as fake:
        run_flow(fake, domains, data, n=12)
    ids = [t["id"] for t in read_jsonl(data / "library" / "tasks.jsonl")]
    assert committed <= set(ids)  # no verified task lost
    assert len(ids) == len(set(ids)) and len(ids) >= 12  # none repeated
    trajectories = read_jsonl(data / "library" / "trajectories.jsonl")
    assert [r["task_id"] for r in trajectories] == ids
    report = json.loads((data / "library" / "report.json").read_text())
    stages = {r["stage"]: r for r in report["rows"]}
    for stage in ("schema", "rows", "tool_choice", "policy"):  # the killed run's figures survive
        assert stages[stage]["accepted"] >= 1 and stages[stage]["tokens"] > 0, stage


def test_prefect_yaml_deployments_point_at_flows_with_those_parameters() -> None:
    import importlib
    import inspect

    import yaml
    from prefect import Flow

    config = yaml.safe_load((ROOT / "prefect.yaml").read_text())
    assert config["deployments"]
    for deployment in config["deployments"]:
        path, name = deployment["entrypoint"].split(":")
        module = importlib.import_module(path.removesuffix(".py").replace("/", "."))
        target = getattr(module, name)
        assert isinstance(target, Flow), deployment["name"]
        accepted = set(inspect.signature(target.fn).parameters)
        assert set(deployment.get("parameters", {})) <= accepted, deployment["name"]
        assert all("cron" in s for s in deployment["schedules"])


def test_generate_all_runs_every_domain_on_the_configured_endpoint(
    prefect_harness, domains: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from flows.generate import generate_all

    (domains / "broken").mkdir()
    (domains / "broken" / "brief.yaml").write_text("name: broken\n")  # reported, not fatal
    with FakeLLM(library) as fake:
        monkeypatch.setenv("TOOLSCALE_LLM_URL", fake.base_url)
        monkeypatch.setenv("TOOLSCALE_LLM_MODEL", "fake")
        done = asyncio.run(
            generate_all(n_tasks=3, data_dir=str(tmp_path / "data"), domains_dir=str(domains))
        )
    assert done["library"] >= 3 and done["broken"] == 0
    assert (tmp_path / "data" / "library" / "tasks.jsonl").is_file()


def test_a_resumed_run_holds_earlier_tasks_to_todays_validators(
    prefect_harness, domains: Path, tmp_path: Path
) -> None:
    """The N=300 run was resumed after a validator fix; the tasks the fix was for, kept by
    the earlier sitting, must not ship. A task that no longer passes moves to rejected
    with its reason and itself, and the run makes up the count."""
    data = tmp_path / "data"
    with FakeLLM(library) as fake:
        run_flow(fake, domains, data, n=6)
    store = DomainStore(data, "library")
    batch = next(b for b in store.batches() if b.accepted)
    spoiled = batch.accepted[0].model_copy(update={"instruction": "Hello there."})
    batch.accepted[0] = spoiled
    store.commit_batch(batch)
    with FakeLLM(library) as fake:
        run_flow(fake, domains, data, n=6)
    kept = [t["id"] for t in read_jsonl(data / "library" / "tasks.jsonl")]
    assert spoiled.id not in kept and len(kept) >= 6
    (moved,) = [
        r for r in read_jsonl(data / "library" / "rejected.jsonl") if r["task_id"] == spoiled.id
    ]
    assert moved["detail"].startswith("kept by an earlier sitting, refused on resume")
    assert moved["item"]["instruction"] == "Hello there."
    trajectories = [t["task_id"] for t in read_jsonl(data / "library" / "trajectories.jsonl")]
    assert spoiled.id not in trajectories


def test_kept_tasks_untouched_by_a_remade_seed_are_restated_in_their_batch(
    mini_spec: EnvironmentSpec, tmp_path: Path
) -> None:
    """A resume on an environment made again restates, in the store, the tasks whose gold
    does the same there (`replay.restated`), so the validators judge them afresh instead
    of refusing every one for the whole state's hash."""
    from flows.generate import restate_unaffected
    from tests.conftest import mini_task
    from tests.validators.test_replay import remade
    from toolscale.store import Batch
    from validators.pipeline import verify

    ten = {
        "id": "t2",
        "instruction": "Withdraw $10 from account A1 and tell me the new balance.",
        "gold_calls": [{"name": "withdraw", "arguments": {"account_id": "A1", "amount": 10}}],
    }
    kept, _, _ = verify(mini_spec, [mini_task(), mini_task(**ten)])
    assert [t.id for t in kept] == ["t1", "t2"]
    store = DomainStore(tmp_path, "mini")
    store.commit_batch(Batch(strategy="intent", indices=[0, 1], accepted=kept))
    far = remade(mini_spec, 1, 50)
    assert restate_unaffected(store, far, list(store.batches())) == 2
    (batch,) = store.batches()
    assert [t.id for t in verify(far, batch.accepted)[0]] == ["t1", "t2"]
    written = [Task.model_validate(t) for t in read_jsonl(tmp_path / "mini" / "tasks.jsonl")]
    assert written == batch.accepted
    assert restate_unaffected(store, far, list(store.batches())) == 0


def test_kept_tasks_are_shown_on_todays_environment_after_a_resume(
    mini_spec: EnvironmentSpec, tmp_path: Path
) -> None:
    """weather's 30 conversations in runs/ told the agent to find the user with
    `find_subscription_by_email` after its policy was made again to name `find_forecaster`,
    which every gold calls first: a resume shows each kept task on today's environment."""
    from flows.generate import redemonstrate
    from tests.conftest import mini_task
    from toolscale.store import Batch, TrajectoryRecord
    from validators.pipeline import verify

    kept, _, _ = verify(mini_spec, [mini_task()])
    with Environment(mini_spec) as env:
        shown = TrajectoryRecord(
            task_id=kept[0].id,
            domain="mini",
            strategy="intent",
            messages=env.demonstrate(kept[0]).messages,
            tools=mini_spec.openai_tools(),
        )
    store = DomainStore(tmp_path, "mini")
    store.commit_batch(Batch(strategy="intent", indices=[0], accepted=kept, trajectories=[shown]))
    assert redemonstrate(store, mini_spec) == 0  # the same environment: nothing to show anew
    policy = "Identify the user by their email first. Never withdraw more than the balance."
    today = mini_spec.model_copy(update={"policy": policy})
    assert redemonstrate(store, today) == 1
    (batch,) = store.batches()
    assert policy in str(batch.trajectories[0].messages[0].content)
    (written,) = read_jsonl(tmp_path / "mini" / "trajectories.jsonl")
    assert TrajectoryRecord.model_validate(written) == batch.trajectories[0]
    assert redemonstrate(store, today) == 0


def test_a_task_refused_on_resume_gives_back_the_budget_it_took(
    prefect_harness, domains: Path, tmp_path: Path
) -> None:
    """Medicine on dec7bf3 lost 5 of its 30 on a resume, and had spent all 124 of its
    proposals: the resume stopped at 25. A task refused on resume is made up for with the
    budget it took."""
    from generators.config import GenerationConfig

    data = tmp_path / "data"
    tight = GenerationConfig(free_sql_tools=True, budget_factor=1, budget_slack=0)
    with FakeLLM(library) as fake:
        run_flow(fake, domains, data, n=3, strategies=("intent",), config=tight)
    store = DomainStore(data, "library")
    indices = sorted(i for b in store.batches("intent") for i in b.indices)
    assert indices == [0, 1, 2]  # the budget: 3 proposals for 3 tasks
    batch = next(b for b in store.batches("intent") if b.accepted)
    batch.accepted[0] = batch.accepted[0].model_copy(update={"instruction": "Hello there."})
    store.commit_batch(batch)
    with FakeLLM(library) as fake:
        run_flow(fake, domains, data, n=3, strategies=("intent",), config=tight)
    again = sorted(i for b in store.batches("intent") for i in b.indices)
    assert again == [0, 1, 2, 3]  # one more proposal, for the task refused
    assert sum(b.moved for b in store.batches("intent")) == 1


def test_a_retired_strategys_tasks_move_to_rejected_and_the_next_run_makes_up_the_count(
    prefect_harness, domains: Path, tmp_path: Path
) -> None:
    """Evolved tasks kept by the N=300 run were found invalid after the fact: retiring the
    strategy takes them out of the output without losing them, and a resume refills."""
    from flows.cli import main

    data = tmp_path / "data"
    with FakeLLM(library) as fake:
        run_flow(fake, domains, data, n=6, strategies=("intent", "sampled"))
    store = DomainStore(data, "library")
    sampled = {t.id for t in store.accepted("sampled")}
    assert sampled, "the fake run keeps sampled tasks to retire"
    assert main(["retire", "library", "--strategy", "sampled", "--data", str(data)]) == 0
    assert store.accepted("sampled") == []
    kept = {t["id"] for t in read_jsonl(data / "library" / "tasks.jsonl")}
    assert not kept & sampled
    retired = [
        r for r in read_jsonl(data / "library" / "rejected.jsonl") if r["reason"] == "retired"
    ]
    assert {r["task_id"] for r in retired} == sampled
    assert all(r["item"]["id"] == r["task_id"] for r in retired)
    trajectories = {t["task_id"] for t in read_jsonl(data / "library" / "trajectories.jsonl")}
    assert not trajectories & sampled
    with FakeLLM(library) as fake:
        run_flow(fake, domains, data, n=6, strategies=("intent",))
    assert len(read_jsonl(data / "library" / "tasks.jsonl")) >= 6


def test_retire_names_a_missing_run(tmp_path: Path) -> None:
    from flows.cli import main

    with pytest.raises(SystemExit, match="no run of 'library'"):
        main(["retire", "library", "--strategy", "evolved", "--data", str(tmp_path)])


def test_the_solver_check_rejects_what_its_agent_cannot_solve_and_reports_it(
    prefect_harness, domains: Path, tmp_path: Path
) -> None:
    """With --solver-k, a task the judge keeps goes to an agent model: one that only says
    sorry solves nothing, so every verified task is rejected at stage `solver`."""
    from generators.config import GenerationConfig

    data = tmp_path / "data"
    config = GenerationConfig(free_sql_tools=True, solver_k=2, budget_factor=2, budget_slack=0)
    with FakeLLM(library) as fake, FakeLLM(lambda body: Reply(content="Sorry.")) as agent:
        run_flow(
            fake, domains, data, n=2, config=config, solver_model="m", solver_url=agent.base_url
        )
        asked = len(agent.requests)
    rejected = read_jsonl(data / "library" / "rejected.jsonl")
    unsolved = [r for r in rejected if r["stage"] == "solver"]
    assert unsolved and all(r["reason"] == "unsolved" for r in unsolved)
    assert asked == 2 * len(unsolved), "k episodes of one turn each per verified task"
    assert not (data / "library" / "tasks.jsonl").read_text().strip()
    report = json.loads((data / "library" / "report.json").read_text())
    row = {r["stage"]: r for r in report["rows"]}["solver"]
    assert row["proposed"] == len(unsolved) and row["accepted"] == 0 and row["tokens"] > 0


def test_a_run_on_a_bucket_resumes_on_another_machine_and_exports(
    prefect_harness, s3, domains: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The store on S3 (issue 12): a run writes through to the bucket; a machine with no
    local copy resumes it without proposing again, and export reads the URL."""
    from toolscale.export import export

    url = "s3://toolscale-test/data"
    with FakeLLM(library) as fake:
        first = run_flow(fake, domains, url, 4)
        monkeypatch.setenv("TOOLSCALE_STORE_CACHE", str(tmp_path / "another-machine"))
        asked = fake.count
        again = run_flow(fake, domains, url, 4)
        assert fake.count == asked  # nothing proposed again: the bucket had it all
    assert first["tasks"] == again["tasks"] >= 4
    assert s3.exists("toolscale-test/data/library/report.json.done")
    report = export(url, tmp_path / "out")
    assert sum(report.rows["library"].values()) == first["tasks"]
