"""What tests of the lock share: tool SQL compiled with the static check bypassed (as if it
had a hole), hostile tools, and the checks every hostile call is held to."""

from __future__ import annotations

import re
import time
from typing import cast

import pytest

import toolscale.sandbox.base as sandbox_module
from toolscale.sandbox.base import Limits, Sandbox
from toolscale.sandbox.sqlcheck import Role, Statement
from toolscale.schema import Schema
from toolscale.tool import Tool


def unchecked_compile(tool: Tool, schema: Schema) -> list[Statement]:
    """What a sandbox would run if the static check were bypassed or had a hole."""
    out = []
    for label, sql in tool.statements():
        role = cast(Role, label.split("[")[0])
        params = tuple(dict.fromkeys(re.findall(r":(\w+)", sql)))
        duck = re.sub(r":(\w+)", r"$\1", sql)
        writes = "accounts" if role == "run" else None
        out.append(Statement(f"{tool.name}.{label}", role, sql, duck, params, writes))
    return out


def bypass_static_check(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sandbox_module, "compile_tool", unchecked_compile)


def evil(role: str, sql: str, **extra: object) -> dict:
    """A tool running `sql` as the step of `role` (a read tool for require and returns)."""
    if role == "run":
        return {"name": "evil", "description": "x", "kind": "write", "run": [sql], **extra}
    if role == "require":
        return {
            "name": "evil",
            "description": "x",
            "kind": "read",
            "require": [{"sql": sql, "error": "no"}],
            **extra,
        }
    return {"name": "evil", "description": "x", "kind": "read", "returns": sql, **extra}


def bound_s(limits: Limits) -> float:
    """Issue 11's bound on one call, whatever SQL passed the checks: twice its budget plus
    100 ms."""
    return 2 * limits.timeout_ms / 1000 + 0.1


def timed_call(sb: Sandbox, name: str, arguments: dict) -> tuple[object, float]:
    started = time.perf_counter()
    result = sb.call(name, arguments)
    return result, time.perf_counter() - started


def assert_truthful_and_working(sb: Sandbox, expected_hash: str) -> None:
    """The state is what it was, the hash says so from the log and from every row alike,
    and the next calls are answered correctly."""
    assert sb.state_hash() == expected_hash
    assert sb.full_state_hash() == expected_hash
    after = sb.call("get_account", {"account_id": "A1"})
    assert after.ok, after
    balance = after.output["balance"]
    assert sb.call("withdraw", {"account_id": "A1", "amount": 1}).ok
    assert sb.call("get_account", {"account_id": "A1"}).output["balance"] == balance - 1
    assert sb.state_hash() == sb.full_state_hash()
