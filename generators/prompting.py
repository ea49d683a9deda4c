"""Prompts are jinja2 templates beside the generators; this renders them into messages."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import jinja2

SYSTEM = (
    "You design realistic, self-consistent software environments for training tool-using "
    "assistants. You answer with JSON only, exactly in the requested schema."
)


@cache
def _env() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("generators", "prompts"),
        undefined=jinja2.StrictUndefined,  # a missing variable is a bug, not an empty string
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=False,
    )
    env.filters["json"] = lambda v: json.dumps(v, ensure_ascii=False)
    return env


def render(template: str, **context: Any) -> str:
    return _env().get_template(template).render(**context).strip()


def messages(template: str, **context: Any) -> list[dict[str, str]]:
    """System and user messages for one request."""
    return [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": render(template, **context)},
    ]
