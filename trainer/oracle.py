"""The oracle: a policy that makes a task's gold calls and tells its values.

It is the upper bound every environment must reach (pass^k = 1 on a verified split) and
the test double the trainer and eval are pinned with; `drop` makes it leave out gold
calls, the way a careless agent skips a write.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from toolscale.task import Task
from toolscale.trajectory import FunctionCall, Message, MessageToolCall
from trainer.episode import Turn


def _task_of(messages: list[Message], tasks: dict[str, Task]) -> Task:
    said = next((m.content or "" for m in messages if m.role == "user"), "")
    instruction = said.split("\n", 1)[0]
    if instruction not in tasks:
        raise KeyError(f"no task has the instruction {instruction[:80]!r}")
    return tasks[instruction]


class OraclePolicy:
    def __init__(self, tasks: Iterable[Task], drop: Iterable[int] = ()):
        self.tasks = {t.instruction.split("\n", 1)[0]: t for t in tasks}
        self.drop = set(drop)

    def next_message(self, messages: list[Message]) -> Message:
        task = _task_of(messages, self.tasks)
        made = sum(len(m.tool_calls or []) for m in messages if m.role == "assistant")
        plan = [c for i, c in enumerate(task.gold_calls) if i not in self.drop]
        if made < len(plan):
            call = plan[made]
            arguments = json.dumps(call.arguments, sort_keys=True)
            return Message(
                role="assistant",
                content=None,
                tool_calls=[
                    MessageToolCall(
                        id=f"call_{made}",
                        function=FunctionCall(name=call.name, arguments=arguments),
                    )
                ],
            )
        told = task.expected.communicate if task.expected else []
        text = "Done." + (" " + "; ".join(str(v) for v in told) if told else "")
        return Message(role="assistant", content=text)

    def reply(self, messages: list[Message], tools: list[dict]) -> Turn:
        message = self.next_message(messages)
        return Turn(message=message, completion_tokens=len(message.model_dump_json()) // 4)
