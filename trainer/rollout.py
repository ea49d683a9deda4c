"""Rollouts at the token level: the trained model's episodes as TRL needs them.

A rollout is one `run_episode` whose policy is the model being trained. Its completion
is everything after the prompt, in one token sequence: the model's own turns (loss on,
`env_mask` 1) and what the environment said between them (tool responses and the next
turn's header, rendered by the chat template: loss off, `env_mask` 0). The environment's
tokens are found as TRL's own tool loop finds them: render the conversation up to the
model's last turn and with the tool messages after it, and take the difference, so the
model's tokens are kept exactly as it generated them.

The episodes of a batch advance together: each runs on its own thread, and the
`Lockstep` generator waits until every live episode has asked for its next turn, then
generates them all in one batch (one `model.generate` or one vLLM call per turn of the
batch, not per episode).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from toolscale.environment import Environment, Evaluation
from toolscale.spec import EnvironmentSpec
from toolscale.task import Task
from toolscale.trajectory import Message
from trainer.episode import Episode, Turn, run_episode
from trainer.helpers import Helper
from trainer.toolcalls import parse_reply


@dataclass
class Generated:
    """One generated turn: its tokens (ending at end-of-turn unless cut) and their
    log-probabilities under the sampler, when the backend gives them."""

    ids: list[int]
    logprobs: list[float] | None = None


# ids of every live episode, and how many new tokens each may still take -> their turns
GenerateBatch = Callable[[list[list[int]], list[int]], list[Generated]]


class Lockstep:
    """Collects one request per live episode, generates them as one batch, hands each its
    answer. An episode that ends leaves, so the others do not wait for it."""

    def __init__(self, generate: GenerateBatch, episodes: int):
        self.generate = generate
        self.live = episodes
        self.pending: dict[int, tuple[list[int], int]] = {}
        self.answers: dict[int, Generated] = {}
        self.failed: BaseException | None = None
        self.cond = threading.Condition()

    def _run_if_ready(self) -> None:
        if self.failed is None and self.pending and len(self.pending) >= self.live:
            keys = sorted(self.pending)
            try:
                out = self.generate(
                    [self.pending[k][0] for k in keys], [self.pending[k][1] for k in keys]
                )
                if len(out) != len(keys):
                    raise RuntimeError(f"the backend gave {len(out)} turns for {len(keys)} asks")
            except BaseException as e:  # every waiting episode must learn of it
                self.failed = e
                out = []
            self.pending.clear()
            self.answers.update(zip(keys, out, strict=False))
            self.cond.notify_all()

    def ask(self, key: int, ids: list[int], budget: int) -> Generated:
        with self.cond:
            self.pending[key] = (ids, budget)
            self._run_if_ready()
            while key not in self.answers and self.failed is None:
                self.cond.wait()
            if self.failed is not None:
                raise RuntimeError("generation failed") from self.failed
            return self.answers.pop(key)

    def leave(self) -> None:
        with self.cond:
            self.live -= 1
            self._run_if_ready()


def template_message(message: Message) -> dict[str, Any]:
    """A message as chat templates take it: arguments as objects, content never None."""
    out: dict[str, Any] = {"role": message.role, "content": message.content or ""}
    if message.tool_calls:
        out["tool_calls"] = [
            {
                "id": tc.id,
                "type": "function",
                "function": {
                    "name": tc.function.name,
                    "arguments": _arguments(tc.function.arguments),
                },
            }
            for tc in message.tool_calls
        ]
    if message.tool_call_id:
        out["tool_call_id"] = message.tool_call_id
    return out


def _arguments(text: str) -> Any:
    try:
        return json.loads(text or "{}")
    except json.JSONDecodeError:
        return text


@dataclass
class TokenPolicy:
    """The trained model as an episode's policy, keeping the token record TRL trains on."""

    key: int
    tokenizer: Any
    lockstep: Lockstep
    max_completion_tokens: int
    prompt_ids: list[int] = field(default_factory=list)
    completion_ids: list[int] = field(default_factory=list)
    env_mask: list[int] = field(default_factory=list)
    logprobs: list[float] = field(default_factory=list)
    _seen: int = 0  # messages already in the token record
    _turn: int = 0

    def _render(self, messages: Sequence[Message], tools: list[dict], open_turn: bool) -> list[int]:
        rendered = self.tokenizer.apply_chat_template(
            [template_message(m) for m in messages],
            tools=tools or None,
            add_generation_prompt=open_turn,
            tokenize=True,
        )
        ids = (
            rendered["input_ids"]
            if isinstance(rendered, dict) or hasattr(rendered, "keys")
            else rendered
        )
        return list(ids)

    def _environment_tokens(self, messages: list[Message], tools: list[dict]) -> list[int]:
        """What the chat template puts between the model's last turn and its next one."""
        before = self._render(messages[: self._seen], tools, open_turn=False)
        eos = self.tokenizer.eos_token_id
        ends = [i for i, t in enumerate(before) if t == eos]
        if ends:  # templates close a turn with end-of-turn and a newline: cut at the former
            before = before[: ends[-1] + 1]
        after = self._render(messages, tools, open_turn=True)
        if after[: len(before)] != before:
            raise ValueError(
                "the chat template does not render the conversation as a prefix of itself"
            )
        return after[len(before) :]

    def reply(self, messages: list[Message], tools: list[dict]) -> Turn:
        if not self.prompt_ids:
            self.prompt_ids = self._render(messages, tools, open_turn=True)
        else:
            said = self._environment_tokens(messages, tools)
            if len(self.completion_ids) + len(said) >= self.max_completion_tokens:
                self.lockstep.leave()  # no room for the tool output: the episode ends here
                self._seen = -1
                return Turn(message=Message(role="assistant", content=""), cut=True)
            self.completion_ids += said
            self.env_mask += [0] * len(said)
            self.logprobs += [0.0] * len(said)
        budget = self.max_completion_tokens - len(self.completion_ids)
        out = self.lockstep.ask(self.key, self.prompt_ids + self.completion_ids, budget)
        self.completion_ids += out.ids
        self.env_mask += [1] * len(out.ids)
        self.logprobs += out.logprobs if out.logprobs is not None else [0.0] * len(out.ids)
        eos = self.tokenizer.eos_token_id
        text = self.tokenizer.decode([t for t in out.ids if t != eos], skip_special_tokens=False)
        parsed = parse_reply(text, self._turn)
        self._turn += 1
        self._seen = len(messages) + 1
        cut = not out.ids or out.ids[-1] != eos  # the budget ran out mid-turn: a failure,
        error = None if cut else "; ".join(parsed.errors) or None  # not a broken format
        return Turn(
            message=parsed.message(), completion_tokens=len(out.ids), format_error=error, cut=cut
        )

    def finished(self) -> None:
        if self._seen != -1:
            self.lockstep.leave()


@dataclass
class Rollout:
    """One rollout as TRL takes it, with its scored episode."""

    prompt_ids: list[int]
    completion_ids: list[int]
    env_mask: list[int]
    logprobs: list[float]
    episode: Episode
    task: Task


def broken(task: Task, error: str) -> Episode:
    """An episode that raised (a sandbox or template surprise): scored invalid, so its tokens
    carry no loss and the rest of the batch trains."""
    failed = Evaluation(success=False, state_match=False, communicated=0.0)
    return Episode(
        task_id=task.id,
        domain=task.domain,
        messages=[],
        evaluation=failed,
        stop="invalid_format",
        format_error=error,
    )


def rollouts(
    jobs: Sequence[tuple[Task, EnvironmentSpec]],
    tokenizer: Any,
    generate: GenerateBatch,
    max_turns: int,
    max_completion_tokens: int,
    helpers: Mapping[str, Helper] | None = None,
) -> list[Rollout]:
    """Every job one episode, all advancing turn by turn together; each in a fresh sandbox
    of its own (rollouts of one task must not see each other's writes)."""
    lockstep = Lockstep(generate, len(jobs))

    def one(key: int, task: Task, spec: EnvironmentSpec) -> Rollout:
        policy = TokenPolicy(key, tokenizer, lockstep, max_completion_tokens)
        try:
            with Environment(spec) as env:
                episode = run_episode(env, task, policy, max_turns, helpers)
        except Exception as e:
            if lockstep.failed is not None or not policy.prompt_ids:
                raise  # the backend, or a prompt that cannot be rendered: no step is possible
            episode = broken(task, f"{type(e).__name__}: {e}")  # this rollout only: no loss
        finally:
            policy.finished()
        return Rollout(
            policy.prompt_ids,
            policy.completion_ids,
            policy.env_mask,
            policy.logprobs,
            episode,
            task,
        )

    with ThreadPoolExecutor(max_workers=max(1, len(jobs))) as pool:
        futures = [pool.submit(one, i, task, spec) for i, (task, spec) in enumerate(jobs)]
        return [f.result() for f in futures]
