"""Episodes in the real banking sandbox: the gold solves, a skipped write fails, a broken
call format ends the episode, other models are charged and not counted as unknown tools."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolscale.environment import Environment
from toolscale.spec import EnvironmentSpec
from toolscale.store import DomainStore
from toolscale.task import Task
from toolscale.trajectory import CONFIRMED, Message
from trainer.episode import Turn, run_episode
from trainer.helpers import HelperCall
from trainer.oracle import OraclePolicy


def writing_task(tasks: list[Task], env: Environment) -> tuple[Task, int]:
    """A task with a successful write among several calls, and that write's index."""
    for task in tasks:
        for i, call in enumerate(task.gold_calls):
            if (
                env.tools[call.name].kind == "write"
                and not call.expect_error
                and len(task.gold_calls) > 1
            ):
                return task, i
    raise AssertionError("the banking fixture has a multi-call task with a write")


def test_the_oracle_solves_every_verified_task(
    banking_spec: EnvironmentSpec, verified: list[Task]
) -> None:
    with Environment(banking_spec) as env:
        for task in verified:
            episode = run_episode(env, task, OraclePolicy(verified))
            assert episode.solved and episode.stop == "answer", (task.id, episode.evaluation)
            assert episode.sandbox_calls == len(task.gold_calls)
            assert sum(episode.calls_per_tool.values()) == len(task.gold_calls)


def test_skipping_a_write_fails_with_the_diff(
    banking_spec: EnvironmentSpec, verified: list[Task]
) -> None:
    with Environment(banking_spec) as env:
        task, write = writing_task(verified, env)
        episode = run_episode(env, task, OraclePolicy(verified, drop=[write]))
    assert not episode.solved and not episode.evaluation.state_match
    assert not episode.evaluation.diff.empty


class Broken:
    def reply(self, messages: list[Message], tools: list[dict]) -> Turn:
        return Turn(
            message=Message(role="assistant", content="<tool_call>{oops"), format_error="not JSON"
        )


class Chatty:
    """Never stops calling a read tool."""

    def __init__(self, call: str, arguments: str):
        self.call, self.arguments = call, arguments

    def reply(self, messages: list[Message], tools: list[dict]) -> Turn:
        from toolscale.trajectory import FunctionCall, MessageToolCall

        n = len(messages)
        tc = MessageToolCall(
            id=f"c{n}", function=FunctionCall(name=self.call, arguments=self.arguments)
        )
        return Turn(message=Message(role="assistant", tool_calls=[tc]), completion_tokens=10)


def test_invalid_format_and_turn_limit_end_the_episode(
    banking_spec: EnvironmentSpec, verified: list[Task]
) -> None:
    task = verified[0]
    first = task.gold_calls[0]
    import json

    with Environment(banking_spec) as env:
        broken = run_episode(env, task, Broken())
        looping = run_episode(
            env, task, Chatty(first.name, json.dumps(first.arguments)), max_turns=3
        )
    assert (
        broken.stop == "invalid_format" and not broken.solved and broken.format_error == "not JSON"
    )
    assert looping.stop == "turn_limit" and looping.evaluation.turns == 3
    assert looping.calls_per_tool == {first.name: 3} and looping.completion_tokens == 30


class FakeHelper:
    def __init__(self) -> None:
        self.asked: list[str] = []

    def schema(self) -> dict:
        return {
            "type": "function",
            "function": {"name": "ask_big", "parameters": {"type": "object"}},
        }

    def ask(self, arguments: str) -> HelperCall:
        self.asked.append(arguments)
        return HelperCall(tool="ask_big", content="use the gold", cost=0.01, latency_ms=500)


class AsksFirst(OraclePolicy):
    """Asks the helper once, then behaves as the oracle."""

    def reply(self, messages: list[Message], tools: list[dict]) -> Turn:
        from toolscale.trajectory import FunctionCall, MessageToolCall

        assert any(t["function"]["name"] == "ask_big" for t in tools)
        if not any(m.role == "tool" for m in messages):
            tc = MessageToolCall(
                id="h0", function=FunctionCall(name="ask_big", arguments='{"question": "how?"}')
            )
            return Turn(message=Message(role="assistant", tool_calls=[tc]))
        kept = [
            m
            for m in messages
            if m.tool_call_id != "h0" and not (m.tool_calls and m.tool_calls[0].id == "h0")
        ]
        return super().reply(kept, tools)


def test_a_helper_model_is_charged_and_is_not_an_unknown_tool(
    banking_spec: EnvironmentSpec, verified: list[Task]
) -> None:
    helper = FakeHelper()
    task = verified[0]
    with Environment(banking_spec) as env:
        episode = run_episode(env, task, AsksFirst(verified), helpers={"ask_big": helper})
    assert episode.solved and episode.evaluation.invalid_calls == 0
    assert helper.asked == ['{"question": "how?"}']
    assert [h.cost for h in episode.helper_calls] == [0.01]
    assert episode.calls_per_tool["ask_big"] == 1


class OracleThenReads(OraclePolicy):
    """Makes the gold calls, then never answers: keeps reading until the turn limit."""

    def reply(self, messages: list[Message], tools: list[dict]) -> Turn:
        turn = super().reply(messages, tools)
        if turn.message.tool_calls:
            return turn
        task = next(iter(self.tasks.values()))
        first = task.gold_calls[0]
        import json

        from toolscale.trajectory import FunctionCall, MessageToolCall

        again = FunctionCall(name=first.name, arguments=json.dumps(first.arguments))
        call = MessageToolCall(id=f"r{len(messages)}", function=again)
        return Turn(message=Message(role="assistant", tool_calls=[call]))


def test_an_episode_cut_by_the_turn_limit_is_not_solved_even_in_the_right_state(
    banking_spec: EnvironmentSpec, verified: list[Task]
) -> None:
    """tau2 scores an episode that never finishes 0: right writes and no answer is not a
    solution (and would teach a policy that stopping does not matter)."""
    with Environment(banking_spec) as env:
        task, _ = writing_task(verified, env)
        episode = run_episode(
            env, task, OracleThenReads([task]), max_turns=len(task.gold_calls) + 2
        )
    assert episode.stop == "turn_limit" and episode.evaluation.state_match
    assert not episode.solved


class Demonstrated:
    """Says, turn by turn, what the assistant says in a gold conversation."""

    def __init__(self, turns: list[Message]):
        self.turns = iter(turns)

    def reply(self, messages: list[Message], tools: list[dict]) -> Turn:
        return Turn(message=next(self.turns))


def test_the_gold_conversations_play_back_with_the_users_yes(
    banking_spec: EnvironmentSpec, verified: list[Task]
) -> None:
    """The gold conversation asks for a yes before each write, as the policy says; an
    agent saying exactly its turns gets that yes from the episode's user, makes the same
    calls with the same outputs, and solves the task."""
    confirmed = 0
    with Environment(banking_spec) as env:
        for task in verified:
            gold = env.demonstrate(task).messages
            turns = [m for m in gold if m.role == "assistant"]
            episode = run_episode(env, task, Demonstrated(turns))
            assert episode.solved and episode.stop == "answer", (task.id, episode.evaluation)
            assert episode.messages == gold, task.id
            confirmed += sum(m.role == "user" and m.content == CONFIRMED for m in gold)
    assert confirmed >= 3  # the fixture's writes were confirmed, not skipped


RUNS = Path(__file__).resolve().parents[2] / "runs"


@pytest.mark.parametrize("domain", sorted(d.name for d in RUNS.iterdir() if d.is_dir()))
def test_the_recorded_runs_conversations_play_back(domain: str) -> None:
    """The conversations `runs/` publishes are today's gold conversations (a change to how
    they are shown fails here until the runs are shown again, as a resume does), and said
    turn by turn each gets the same outputs and the same yes, and solves its task."""
    store = DomainStore.open(RUNS, domain)
    spec = EnvironmentSpec.model_validate_json((store.dir / "environment.json").read_text())
    batches = list(store.batches())
    tasks = {t.id: t for b in batches for t in b.accepted}
    records = [r for b in batches for r in b.trajectories]
    assert len(records) == len(tasks) > 0
    with Environment(spec) as env:
        for record in records:
            assert record.messages == env.demonstrate(tasks[record.task_id]).messages
            turns = [m for m in record.messages if m.role == "assistant"]
            episode = run_episode(env, tasks[record.task_id], Demonstrated(turns))
            assert episode.solved, (record.task_id, episode.evaluation)
            assert episode.messages == record.messages, record.task_id
