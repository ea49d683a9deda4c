"""The Environment: reset / step / evaluate over a sandbox.

Validators, evaluation and the GRPO trainer all drive this one class, so a task means
the same thing everywhere.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from toolscale.matching import Text
from toolscale.reasons import ToolErrorCode
from toolscale.sandbox import open_sandbox
from toolscale.sandbox.base import EngineName, Limits, Program, Sandbox
from toolscale.sandbox.state import Changes, StateDiff
from toolscale.schema import Scalar
from toolscale.spec import EnvironmentSpec
from toolscale.task import Task
from toolscale.tool import ToolCall, ToolResult
from toolscale.trajectory import (
    CONFIRMED,
    FunctionCall,
    Message,
    MessageToolCall,
    Trajectory,
    asks_to_confirm,
    confirmation_request,
    final_message,
)


@dataclass
class Replay:
    """What a call sequence did: each result and the rows it changed."""

    results: list[ToolResult]
    changes: Changes


class Evaluation(BaseModel):
    """Reward components for one trajectory; the trainer weighs them."""

    model_config = ConfigDict(extra="forbid")

    success: bool
    state_match: bool
    communicated: float = Field(description="share of required values stated in the answer")
    missing: list[Scalar] = Field(default_factory=list)
    price: float = 0.0
    latency_ms: float = 0.0
    turns: int = 0
    n_calls: int = 0
    invalid_calls: int = 0
    failed_calls: int = 0
    avoided_tools_used: list[str] = Field(default_factory=list)
    diff: StateDiff = Field(default_factory=StateDiff, description="expected vs actual rows")


def system_prompt(spec: EnvironmentSpec) -> str:
    """What an agent is told before the user speaks: the policy and the clock."""
    return f"{spec.policy.strip()}\n\nThe current time is {spec.clock}.".strip()


class Environment:
    def __init__(
        self,
        spec: EnvironmentSpec,
        engine: EngineName = "sqlite",
        limits: Limits | None = None,
        programs: dict[str, Program] | None = None,
    ):
        self.spec = spec
        self.tools = spec.tool_map()
        self.sandbox: Sandbox = open_sandbox(spec, engine, limits, programs)
        self.task: Task | None = None
        self.invalid_calls = 0

    @property
    def engine(self) -> str:
        return self.sandbox.engine

    def system_prompt(self) -> str:
        return system_prompt(self.spec)

    def reset(self, task: Task | None = None) -> list[Message]:
        """Seed state again; returns the opening messages: the policy, then the user's words
        with what they know (the gold conversations and every episode open alike)."""
        self.sandbox.reset()
        return self.opening(task)

    def opening(self, task: Task | None) -> list[Message]:
        self.task = task
        self.invalid_calls = 0
        messages = [Message(role="system", content=self.system_prompt())]
        if task is not None:
            said = "\n".join([task.instruction, *task.known_facts])
            messages.append(Message(role="user", content=said))
        return messages

    def argument_error(self, call: ToolCall) -> str | None:
        """What is wrong with a call's arguments (the sandbox's own check), or None."""
        return self.sandbox.arguments.error(call.name, call.arguments, call.key())

    def step(self, call: ToolCall) -> ToolResult:
        error = self.argument_error(call)
        if error is not None:
            self.invalid_calls += 1
            code = (
                ToolErrorCode.UNKNOWN_TOOL
                if call.name not in self.tools
                else ToolErrorCode.INVALID_ARGUMENTS
            )
            return ToolResult(ok=False, error=error, code=code)
        return self.sandbox.call(call.name, call.arguments)

    def replay(self, calls: Sequence[ToolCall]) -> Replay:
        """Every call from the seed, as `step` would make it, and the rows that differ
        after; the valid calls go to the sandbox in one request."""
        self.task = None
        self.invalid_calls = 0
        results, changes = self._from_seed(calls)
        return Replay(results, changes)

    def _from_seed(self, calls: Sequence[ToolCall]) -> tuple[list[ToolResult], Changes]:
        results: list[ToolResult | None] = []
        valid: list[ToolCall] = []
        for call in calls:
            error = self.argument_error(call)
            if error is None:
                results.append(None)
                valid.append(call)
                continue
            self.invalid_calls += 1
            known = call.name in self.tools
            code = ToolErrorCode.INVALID_ARGUMENTS if known else ToolErrorCode.UNKNOWN_TOOL
            results.append(ToolResult(ok=False, error=error, code=code))
        ran, changes = self.sandbox.replay([(c.name, c.arguments) for c in valid])
        answers = iter(ran)
        return [r if r is not None else next(answers) for r in results], changes

    def state_hash(self, replay: Replay | None = None) -> str:
        """The canonical hash of the current state, or of the state a replay reached."""
        if replay is None:
            return self.sandbox.state_hash()
        return self.sandbox.seed_state.state_hash(replay.changes)

    def diff(self, before: Changes, after: Changes) -> StateDiff:
        return self.sandbox.seed_state.diff(before, after)

    def evaluate(self, task: Task, trajectory: Trajectory | list[dict[str, Any]]) -> Evaluation:
        """Replay the trajectory's calls from the seed and score them against the task."""
        if task.expected is None:
            raise ValueError(f"task {task.id!r} has no expected outcome: verify it first")
        traj = Trajectory.of(trajectory)
        self.task = task
        self.invalid_calls = 0
        price = latency = 0.0
        invalid = failed = n_calls = 0
        used: set[str] = set()
        parsed = [call for call in traj.calls() if not isinstance(call, str)]
        n_calls = len(traj.calls())
        invalid = n_calls - len(parsed)  # not even a call: text the agent meant as one
        results, actual = self._from_seed(parsed)
        for call, result in zip(parsed, results, strict=True):
            if result.code in (ToolErrorCode.UNKNOWN_TOOL, ToolErrorCode.INVALID_ARGUMENTS):
                invalid += 1
                continue
            tool = self.tools[call.name]
            price += tool.price
            latency += tool.latency_ms
            used.add(call.name)
            failed += not result.ok
        state_match = self.sandbox.seed_state.state_hash(actual) == task.expected.state_hash
        answer = Text(traj.final_answer())
        missing = [v for v in task.expected.communicate if not answer.mentions(v)]
        wanted = len(task.expected.communicate)
        communicated = 1.0 if wanted == 0 else (wanted - len(missing)) / wanted
        diff = StateDiff()
        if not state_match:
            diff = self.diff(self.replay(task.gold_calls).changes, actual)
        avoid = set(task.preferences.avoid_tools) if task.preferences else set()
        return Evaluation(
            success=state_match and not missing,
            state_match=state_match,
            communicated=communicated,
            missing=missing,
            price=round(price, 6),
            latency_ms=latency,
            turns=traj.turns,
            n_calls=n_calls,
            invalid_calls=invalid,
            failed_calls=failed,
            avoided_tools_used=sorted(used & avoid),
            diff=diff,
        )

    def user_reply(self, messages: Sequence[Message]) -> Message | None:
        """The user's words after an answer without a call, or None when that answer ends
        the episode. The user says yes when the agent asks to confirm a change and fewer
        writes than the task's gold makes have been tried: the policy has the agent ask
        before each write, and without a yes an agent that obeys could never write. A
        question once the gold's writes are all tried ("would you like me to do anything
        else?") gets no yes, so the episode ends on it."""
        if self.task is None or not messages:
            return None
        last = messages[-1]
        if last.role != "assistant" or last.tool_calls or not asks_to_confirm(last.content or ""):
            return None
        writes = sum(self._writes(c.name) for c in self.task.gold_calls)
        tried = sum(
            self._writes(tc.function.name)
            for m in messages
            if m.role == "assistant"
            for tc in m.tool_calls or []
        )
        confirmed = sum(m.role == "user" and m.content == CONFIRMED for m in messages)
        if tried >= writes or confirmed >= writes:
            return None
        return Message(role="user", content=CONFIRMED)

    def _writes(self, name: str) -> bool:
        tool = self.tools.get(name)
        return tool is not None and tool.kind == "write"

    def demonstrate(self, task: Task) -> Trajectory:
        """The gold conversation: policy, the user's words, each gold call with its real
        output, the user's yes asked for before each write (as the policy says), and a
        last answer stating every value the user must be told."""
        if task.expected is None:
            raise ValueError(f"task {task.id!r} has no expected outcome: verify it first")
        messages = self.opening(task)
        results, _ = self._from_seed(task.gold_calls)
        wrote = False
        for i, (call, result) in enumerate(zip(task.gold_calls, results, strict=True)):
            call_id = f"call_{i}"
            if self._writes(call.name):
                messages.append(
                    Message(
                        role="assistant", content=confirmation_request(call.name, call.arguments)
                    )
                )
                messages.append(Message(role="user", content=CONFIRMED))
            wrote = wrote or (self._writes(call.name) and result.ok)
            arguments = json.dumps(call.arguments, ensure_ascii=False, sort_keys=True)
            messages.append(
                Message(
                    role="assistant",
                    content=None,
                    tool_calls=[
                        MessageToolCall(
                            id=call_id, function=FunctionCall(name=call.name, arguments=arguments)
                        )
                    ],
                )
            )
            messages.append(Message(role="tool", tool_call_id=call_id, content=result.content()))
        labels = [
            ref.path.split(".")[-1] or task.gold_calls[ref.call].name for ref in task.communicate
        ]
        refused = [  # the changes refused, each reason once
            *dict.fromkeys(
                r.error
                for call, r in zip(task.gold_calls, results, strict=True)
                if not r.ok and r.error and self.tools[call.name].kind == "write"
            )
        ]
        text = final_message(labels, list(task.expected.communicate), wrote, refused)
        messages.append(Message(role="assistant", content=text))
        return Trajectory(messages=messages)

    def close(self) -> None:
        self.sandbox.close()

    def __enter__(self) -> Environment:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
