"""Prompts are jinja2 templates beside the generators; this renders them into messages
(the loader is `toolscale.prompting`, shared with the validators' judge)."""

from __future__ import annotations

from typing import Any

from toolscale import prompting

SYSTEM = (
    "You design realistic, self-consistent software environments for training tool-using "
    "assistants. You answer with JSON only, exactly in the requested schema."
)


def render(template: str, **context: Any) -> str:
    return prompting.render("generators", template, **context)


def messages(template: str, **context: Any) -> list[dict[str, str]]:
    """System and user messages for one request."""
    return prompting.chat(SYSTEM, render(template, **context))
