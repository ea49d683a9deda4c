"""Prompts as jinja2 templates in a package's `prompts/` folder, rendered into chat messages.

Generators and validators each keep their own templates beside their code (validators may
not import generators), so the loader is here, shared, and takes the package by name."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import jinja2


@cache
def _env(package: str) -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader(package, "prompts"),
        undefined=jinja2.StrictUndefined,  # a missing variable is a bug, not an empty string
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=False,
    )
    env.filters["json"] = lambda v: json.dumps(v, ensure_ascii=False)
    return env


def render(package: str, template: str, **context: Any) -> str:
    """`package`'s `prompts/<template>` with `context`; a missing variable raises."""
    return _env(package).get_template(template).render(**context).strip()


def chat(system: str, user: str) -> list[dict[str, str]]:
    """System and user messages for one request."""
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]
