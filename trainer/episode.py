"""One multi-turn episode: a policy talks to a task's sandbox until it answers.

Evaluation and the GRPO trainer both run episodes through `run_episode`, so a rollout
the trainer rewards and a trial eval scores are the same thing. The policy is anything
with `reply(messages, tools) -> Turn`: a model behind an OpenAI-compatible endpoint
(`trainer.policies`), a local model generating text, or a script in tests. The
sandbox's tools run in the `Environment`; other models offered as priced tools
(`trainer.helpers`) run outside it and are charged to the episode.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Mapping
from typing import Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field

from toolscale.environment import Environment, Evaluation
from toolscale.task import Task
from toolscale.tool import ToolCall
from toolscale.trajectory import Message, Trajectory
from trainer.helpers import Helper, HelperCall

# answer: the policy answered without a call; turn_limit: max_turns used up; length: the
# completion budget ran out mid-turn or before a tool's output fit; invalid_format: a turn's
# calls could not be read. Only an answer can solve a task (tau2 scores a cut episode 0).
Stop = Literal["answer", "turn_limit", "length", "invalid_format"]


class Turn(BaseModel):
    """What a policy said in one turn, and what saying it cost."""

    model_config = ConfigDict(extra="forbid")

    message: Message
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0
    format_error: str | None = Field(
        default=None, description="the turn's tool calls could not be read (text policies)"
    )
    cut: bool = Field(default=False, description="the completion budget ran out (text policies)")


class Policy(Protocol):
    def reply(self, messages: list[Message], tools: list[dict]) -> Turn: ...


class Episode(BaseModel):
    """A finished episode: the conversation, its score, and its costs."""

    model_config = ConfigDict(extra="forbid")

    task_id: str
    domain: str
    messages: list[Message]
    evaluation: Evaluation
    stop: Stop
    format_error: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    calls_per_tool: dict[str, int] = Field(default_factory=dict)
    helper_calls: list[HelperCall] = Field(default_factory=list)
    policy_seconds: float = 0.0
    sandbox_seconds: float = 0.0
    sandbox_calls: int = 0

    @property
    def solved(self) -> bool:
        return self.evaluation.success and self.stop == "answer"


def _tool_message(call_id: str, content: str) -> Message:
    return Message(role="tool", tool_call_id=call_id, content=content)


def run_episode(
    env: Environment,
    task: Task,
    policy: Policy,
    max_turns: int = 30,
    helpers: Mapping[str, Helper] | None = None,
) -> Episode:
    """Drive the policy until it answers without a call (other than to ask the user to
    confirm a write, which the user answers), breaks the call format, or uses up
    `max_turns` assistant turns; then score the conversation from the seed."""
    helpers = helpers or {}
    tools = env.spec.openai_tools() + [h.schema() for h in helpers.values()]
    messages = env.reset(task)
    stop: Stop = "turn_limit"
    format_error: str | None = None
    prompt = completion = 0
    policy_s = sandbox_s = 0.0
    sandbox_calls = 0
    used: Counter[str] = Counter()
    asked: list[HelperCall] = []
    for _ in range(max_turns):
        turn = policy.reply(messages, tools)
        prompt += turn.prompt_tokens
        completion += turn.completion_tokens
        policy_s += turn.seconds
        messages.append(turn.message)
        if turn.cut:
            stop = "length"
            break
        if turn.format_error is not None:
            stop, format_error = "invalid_format", turn.format_error
            break
        if not turn.message.tool_calls:
            said = env.user_reply(messages)  # a yes to "shall I go ahead?" before a write
            if said is None:
                stop = "answer"
                break
            messages.append(said)
            continue
        for tc in turn.message.tool_calls:
            name = tc.function.name
            used[name] += 1
            if name in helpers:
                answer = helpers[name].ask(tc.function.arguments)
                asked.append(answer)
                messages.append(_tool_message(tc.id, answer.content))
                continue
            try:
                arguments = json.loads(tc.function.arguments or "{}")
                call = ToolCall(name=name, arguments=arguments)
            except (json.JSONDecodeError, ValueError, TypeError) as e:
                messages.append(
                    _tool_message(tc.id, f"error: arguments are not a JSON object ({e})")
                )
                continue
            started = time.perf_counter()
            result = env.step(call)
            sandbox_s += time.perf_counter() - started
            sandbox_calls += 1
            messages.append(_tool_message(tc.id, result.content()))
    sandbox_only = _without_helpers(messages, set(helpers))
    started = time.perf_counter()
    evaluation = env.evaluate(task, sandbox_only)
    sandbox_s += time.perf_counter() - started
    return Episode(
        task_id=task.id,
        domain=task.domain,
        messages=messages,
        evaluation=evaluation,
        stop=stop,
        format_error=format_error,
        prompt_tokens=prompt,
        completion_tokens=completion,
        calls_per_tool=dict(used),
        helper_calls=asked,
        policy_seconds=policy_s,
        sandbox_seconds=sandbox_s,
        sandbox_calls=sandbox_calls,
    )


def _without_helpers(messages: list[Message], names: set[str]) -> Trajectory:
    """The conversation as the sandbox saw it: calls to other models are not its tools, so
    `Environment.evaluate` must not count them as unknown."""
    if not names:
        return Trajectory(messages=messages)
    kept: list[Message] = []
    dropped: set[str] = set()
    for m in messages:
        if m.role == "tool" and m.tool_call_id in dropped:
            continue
        if m.tool_calls:
            mine = [tc for tc in m.tool_calls if tc.function.name not in names]
            dropped |= {tc.id for tc in m.tool_calls if tc.function.name in names}
            m = m.model_copy(update={"tool_calls": mine or None})
        kept.append(m)
    return Trajectory(messages=kept)
