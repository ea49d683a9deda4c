"""A scripted generation backend: the trained model's turns, written from a task's gold.

A random model never calls a tool, so the tests script what it says, token by token
through the real tokenizer, and everything else (templates, sandboxes, rewards, TRL)
runs for real."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

from toolscale.task import Task
from trainer.rollout import GenerateBatch, Generated


def gold_turns(
    tasks: list[Task], tokenizer: Any, skip_last_write: Callable[[], bool] = lambda: False
) -> GenerateBatch:
    """Each turn: the next gold call, or the answer with every value to tell; when
    `skip_last_write()` says so at the last call, it answers instead of making it."""

    def turn_text(ids: list[int]) -> str:
        text = tokenizer.decode(ids)
        task = next(t for t in tasks if t.instruction.split("\n")[0] in text)
        made = text.count("<tool_response>")
        last = made == len(task.gold_calls) - 1
        if made < len(task.gold_calls) and not (last and skip_last_write()):
            call = task.gold_calls[made]
            body = json.dumps({"name": call.name, "arguments": call.arguments})
            return f"<tool_call>\n{body}\n</tool_call>"
        told = task.expected.communicate if task.expected else []
        return "Done. " + "; ".join(str(v) for v in told)

    def generate(batch: list[list[int]], budgets: list[int]) -> list[Generated]:
        eos = tokenizer.eos_token_id
        return [
            Generated([*tokenizer.encode(turn_text(ids), add_special_tokens=False), eos])
            for ids in batch
        ]

    return generate


def coin(seed: int = 0, p: float = 0.5) -> Callable[[], bool]:
    rng = random.Random(seed)
    return lambda: rng.random() < p
