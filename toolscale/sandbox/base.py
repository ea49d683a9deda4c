"""The sandbox a caller holds: tool calls with checked, typed arguments, run by an engine in
a worker process that is killed when a call outlives its budget.

What a call means (require / run / returns, caps, error codes) is the engine's
(`engine`); this side checks and binds arguments, keeps the writes that succeeded (to
rebuild a worker that was lost), and computes state hashes from the changes the engine
reports. A call that outlives its budget is stopped by the engine's own interrupt, and
if that does not come (one expensive function call), by killing the worker: the call is
a timeout, the next call finds a new worker holding the same state.
"""

from __future__ import annotations

import datetime as dt
import json
import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, get_args

from toolscale.errors import ToolscaleError
from toolscale.reasons import SeedReason, StaticSQLReason, ToolErrorCode
from toolscale.sandbox.arguments import ArgumentCheck
from toolscale.sandbox.blueprint import (
    Blueprint,
    EngineName,
    Limits,
    Outcome,
    Step,
    TablePlan,
    ToolPlan,
)
from toolscale.sandbox.ddl import create_statements
from toolscale.sandbox.engine import CallFailed, SandboxRefused, SeedError
from toolscale.sandbox.process import POOL, InProcess, WorkerLost, WorkerProcess
from toolscale.sandbox.sqlcheck import SQLCheckError, Statement, check_constraint, compile_tool
from toolscale.sandbox.state import Changes, SeedState
from toolscale.schema import Schema
from toolscale.spec import EnvironmentSpec
from toolscale.tool import Tool, ToolResult

__all__ = [
    "ENGINE_NAMES",
    "CallFailed",
    "DuckDBSandbox",
    "EngineName",
    "Limits",
    "Program",
    "SQLiteSandbox",
    "Sandbox",
    "SandboxError",
    "SandboxRefused",
    "SeedError",
    "compile_programs",
    "portability_errors",
    "same_results",
]

ENGINE_NAMES: tuple[EngineName, ...] = get_args(EngineName)
_BOOKKEEPING_S = 60.0  # reset, changes, restore: the sandbox's own queries
_MARGIN_S = 1.0  # what a request costs besides its budgets (pickling, DDL)


class SandboxError(ToolscaleError):
    """The sandbox's worker failed at its own bookkeeping (not a tool call): the sandbox
    cannot go on."""


@dataclass(frozen=True)
class Program:
    """A tool with its checked statements and the tables it may write."""

    tool: Tool
    statements: tuple[Statement, ...]
    writes: frozenset[str]

    @classmethod
    def of(cls, tool: Tool, statements: Sequence[Statement]) -> Program:
        return cls(tool, tuple(statements), frozenset(s.writes for s in statements if s.writes))

    def plan(self, engine: EngineName) -> ToolPlan:
        errors = iter(step.error for step in self.tool.require)
        steps = tuple(
            Step(
                s.label.split(".", 1)[-1],
                s.role,
                s.sqlite if engine == "sqlite" else s.duckdb,
                s.params,
                next(errors) if s.role == "require" else "",
            )
            for s in self.statements
        )
        return ToolPlan(self.tool.name, self.tool.kind, self.tool.single, steps)


def compile_programs(spec: EnvironmentSpec) -> dict[str, Program]:
    """Every tool checked and compiled for both engines, once; raises SQLCheckError."""
    return {tool.name: Program.of(tool, compile_tool(tool, spec.schema_)) for tool in spec.tools}


def blueprint(
    spec: EnvironmentSpec, engine: EngineName, limits: Limits, programs: dict[str, Program]
) -> Blueprint:
    tables = tuple(
        TablePlan(t.name, tuple(t.column_names), tuple(t.primary_key), spec.seed_rows(t.name))
        for t in spec.schema_.insertion_order()
    )
    return Blueprint(
        engine=engine,
        id_start=spec.id_start,
        new_ids={
            t.name: start for t in spec.tools if (start := spec.new_id_start(t)) != spec.id_start
        },
        ddl=tuple(create_statements(spec.schema_, engine)),
        tables=tables,
        tools={name: p.plan(engine) for name, p in programs.items()},
        limits=limits,
    )


def _check_seed_values(schema: Schema, seed: dict[str, list[dict[str, Any]]]) -> None:
    """Catch what the engines would silently accept: unknown columns, bad dates."""
    for table in schema.tables:
        columns = {c.name: c for c in table.columns}
        for i, row in enumerate(seed.get(table.name, [])):
            for name, value in row.items():
                col = columns.get(name)
                if col is None:
                    raise SeedError(
                        f"unknown column {name!r}",
                        SeedReason.SEED_UNKNOWN_COLUMN,
                        table=table.name,
                        index=i,
                    )
                if value is None or col.type not in ("date", "datetime"):
                    continue
                try:
                    if col.type == "date":
                        dt.date.fromisoformat(str(value))
                    else:
                        dt.datetime.fromisoformat(str(value))
                except ValueError:
                    raise SeedError(
                        f"column {name!r} is a {col.type} but {value!r} is not ISO 8601",
                        SeedReason.SEED_BAD_VALUE,
                        table=table.name,
                        index=i,
                    ) from None


def _statements(plan: Blueprint) -> int:
    return sum(len(t.steps) for t in plan.tools.values())


def _open_timeout(plan: Blueprint) -> float:
    """Loading the seed, then (DuckDB) binding every statement, each under its budget; a
    worker that is not done by then is killed."""
    binding = _statements(plan) * plan.limits.hard_timeout_s() if plan.engine == "duckdb" else 0
    return plan.limits.seed_timeout_s(plan.n_rows) * 1.25 + binding + _MARGIN_S


def _answer(reply: tuple) -> Any:
    """A worker's reply as a value, or the exception it stands for."""
    if reply[0] == "ok":
        return reply[1]
    kind, payload = reply[1], reply[2]
    if kind == "seed":
        what, reason, table, index = payload
        raise SeedError(what, SeedReason.of(reason), table=table, index=index)
    if kind == "refused":
        raise SandboxRefused(payload)
    raise SandboxError(f"the sandbox's worker failed: {payload}")


def _call_key(name: str, arguments: dict[str, Any]) -> str | None:
    try:
        return name + json.dumps(arguments, sort_keys=True, separators=(",", ":"))
    except (TypeError, ValueError):
        return None  # not JSON: checked in full, and refused


def _release(worker: WorkerProcess | InProcess) -> None:
    if isinstance(worker, InProcess):
        worker.close()
    else:
        worker.kill()


class Sandbox:
    """A seeded database that runs tool calls; `reset()` returns it to the seed."""

    engine: ClassVar[EngineName]

    def __init__(
        self,
        spec: EnvironmentSpec,
        limits: Limits | None = None,
        programs: dict[str, Program] | None = None,
    ):
        self.spec = spec
        self.limits = limits or Limits()
        if programs is None:  # given, they come from the checks, which vetted the CHECKs too
            programs = compile_programs(spec)
            for table in spec.schema_.tables:
                for sql in table.checks:
                    for problem in check_constraint(sql, table):
                        raise problem
        self.programs = programs
        self.arguments = ArgumentCheck(spec.tools, self.limits.max_string)
        self._param_types = {t.name: t.param_types() for t in spec.tools}
        _check_seed_values(spec.schema_, spec.seed)
        # successful write calls since reset, bound: a lost worker is rebuilt from them
        self._log: list[tuple[str, dict[str, Any]]] = []
        self._blueprint = blueprint(spec, self.engine, self.limits, self.programs)
        self._worker: WorkerProcess | InProcess | None = None
        self._finalizer: weakref.finalize | None = None
        self.seed_state = SeedState(spec.schema_, self._start())

    # -- the worker ---------------------------------------------------------------------
    def _start(self, reviving: bool = False) -> dict[str, list]:
        """A worker holding the seed, and the writes since reset when one was lost."""
        worker: WorkerProcess | InProcess = POOL.acquire() if self.limits.isolated else InProcess()
        timeout = _open_timeout(self._blueprint)
        try:
            seed = _answer(worker.request(("open", self._blueprint), timeout))
            if self._log:
                _answer(worker.request(("restore", self._log), _BOOKKEEPING_S))
        except WorkerLost as lost:
            if reviving or not worker.ready:
                what = "rebuilt" if worker.ready else "started"
                raise SandboxError(
                    f"the sandbox's worker could not be {what}: {lost.detail}"
                ) from None
            why = "ran past its budget" if lost.timed_out else "ran out of memory"
            raise SeedError(
                f"opening the sandbox (loading the seed, checking the statements) {why} "
                f"({lost.detail})",
                SeedReason.SEED_BUDGET,
                table="",
                index=None,
            ) from None
        except BaseException:
            _release(worker)
            raise
        if self._finalizer is not None:
            self._finalizer.detach()
        self._worker = worker
        self._finalizer = weakref.finalize(self, _release, worker)
        return seed

    def _ask(self, message: tuple, timeout: float) -> Any:
        if self._worker is None or not self._worker.alive:
            self._start(reviving=True)
        assert self._worker is not None
        try:
            return _answer(self._worker.request(message, timeout))
        except WorkerLost as lost:
            self._worker = None
            raise SandboxError(f"the sandbox's worker was lost: {lost.detail}") from None

    @property
    def worker_pid(self) -> int | None:
        return self._worker.pid if self._worker is not None else None

    # -- calls --------------------------------------------------------------------------
    def reset(self) -> None:
        """Back to the seed; also restarts :_new_id (the engine counts the ids it gives)."""
        self._log.clear()
        if self._worker is not None and self._worker.alive:
            self._ask(("reset",), _BOOKKEEPING_S)

    def changes(self) -> Changes:
        """Rows that differ from the seed now."""
        return self.seed_state.prune(self._ask(("changes",), _BOOKKEEPING_S))

    def state_hash(self) -> str:
        return self.seed_state.state_hash(self.changes())

    def full_state_hash(self) -> str:
        """The state hash from every row as it is now, not from the changes the engine
        logged: what `state_hash` must always equal (tests and audits; it reads it all)."""
        rows = self._ask(("rows",), _BOOKKEEPING_S)
        return SeedState(self.spec.schema_, rows).state_hash()

    def memory(self, reset_peak: bool = False) -> dict[str, int]:
        """The worker's resident, peak resident and mapped bytes (`VmRSS`, `VmHWM`,
        `VmSize`); with `reset_peak`, the peak is first brought down to what is resident
        now. A call's peak stays within what was mapped before it plus its budget."""
        if reset_peak:
            self._ask(("reset_peak",), _BOOKKEEPING_S)
        return self._ask(("memory",), _BOOKKEEPING_S)

    def bind(self, tool: Tool, arguments: dict[str, Any]) -> dict[str, Any]:
        """Arguments with their declared types (JSON 250 for a number is 250.0), so both
        engines compute with the same types, plus :_now (the engine adds :_new_id)."""
        params = tool.param_defaults()
        params.update(arguments)
        for name, kind in self._param_types[tool.name].items():
            value = params.get(name)
            if value is None or isinstance(value, str):
                continue
            if kind == "number":
                params[name] = float(value)
            elif kind in ("integer", "boolean") and float(value).is_integer():
                params[name] = int(value)
        params["_now"] = self.spec.clock
        return params

    def call(self, name: str, arguments: dict[str, Any]) -> ToolResult:
        """Run one tool call in its own transaction; any failure leaves no trace."""
        return self.run([(name, arguments)])[0]

    def run(self, calls: Sequence[tuple[str, dict[str, Any]]]) -> list[ToolResult]:
        """Calls in order, each in its own transaction and under its own budget, in one
        request to the worker (a replay costs one round trip, not one per call)."""
        return self._batch(calls, reset=False, changes=False)[0]

    def replay(
        self, calls: Sequence[tuple[str, dict[str, Any]]]
    ) -> tuple[list[ToolResult], Changes]:
        """From the seed: every call, then the rows that differ; one request."""
        return self._batch(calls, reset=True, changes=True)

    def _batch(
        self, calls: Sequence[tuple[str, dict[str, Any]]], reset: bool, changes: bool
    ) -> tuple[list[ToolResult], Changes]:
        if reset:
            self._log.clear()
        results: list[ToolResult | None] = [None] * len(calls)
        pending: list[tuple[int, str, dict[str, Any]]] = []
        for i, (name, arguments) in enumerate(calls):
            program = self.programs.get(name)
            if program is None:
                error = f"unknown tool {name!r}"
                results[i] = ToolResult(ok=False, error=error, code=ToolErrorCode.UNKNOWN_TOOL)
                continue
            problem = self.arguments.error(name, arguments, _call_key(name, arguments))
            if problem is not None:
                results[i] = ToolResult(
                    ok=False, error=problem, code=ToolErrorCode.INVALID_ARGUMENTS
                )
                continue
            pending.append((i, name, self.bind(program.tool, arguments)))
        done = 0

        def take(outcome: Outcome) -> None:
            nonlocal done
            i, name, params = pending[done]
            done += 1
            if outcome.ok and outcome.new_id is not None:  # a write: kept to rebuild from
                self._log.append((name, {**params, "_new_id": outcome.new_id}))
            results[i] = ToolResult(
                ok=outcome.ok, output=outcome.output, error=outcome.error, code=outcome.code
            )

        first = reset
        while True:
            if self._worker is None or not self._worker.alive:
                self._start(reviving=True)  # holds the writes that succeeded, and no more
                first = False
            assert self._worker is not None
            rest = [(name, params) for _, name, params in pending[done:]]
            try:
                tail = _answer(
                    self._worker.request(
                        ("batch", first, rest, changes),
                        self.limits.hard_timeout_s(),
                        self.limits.memory_mb,
                        on_item=take,
                        items=len(rest),
                        then_s=_BOOKKEEPING_S,
                    )
                )
                break
            except WorkerLost as lost:
                self._worker = None  # the next request starts another, holding the same state
                if done == len(pending):  # lost while reading the changes back
                    raise SandboxError(f"the sandbox's worker was lost: {lost.detail}") from None
                i = pending[done][0]
                done += 1
                results[i] = self._lost(lost)
                if done == len(pending) and not changes:  # the new worker can wait for
                    tail = None  # the next request: its start is not this call's time
                    break
        out = [r for r in results if r is not None]
        assert len(out) == len(calls)
        return out, (self.seed_state.prune(tail) if changes else {})

    def _lost(self, lost: WorkerLost) -> ToolResult:
        """The result of a call whose worker was killed: past its time, or its memory."""
        if lost.timed_out:
            ms = self.limits.timeout_ms
            return ToolResult(
                ok=False,
                error=f"the call ran past its {ms:g} ms budget and was stopped",
                code=ToolErrorCode.TIMEOUT,
            )
        return ToolResult(
            ok=False,
            error=f"the call ran out of its {self.limits.memory_mb} MB memory budget",
            code=ToolErrorCode.TOO_LARGE,
        )

    def close(self) -> None:
        worker, self._worker = self._worker, None
        if self._finalizer is not None:
            self._finalizer.detach()
        if worker is None:
            return
        if isinstance(worker, InProcess):
            worker.close()
            return
        try:
            dirty = _answer(worker.request(("close",), _BOOKKEEPING_S))
        except (WorkerLost, SandboxError):
            worker.kill()
            return
        POOL.release(worker, reusable=not dirty)

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class SQLiteSandbox(Sandbox):
    engine = "sqlite"


class DuckDBSandbox(Sandbox):
    engine = "duckdb"


def portability_errors(
    spec: EnvironmentSpec, programs: dict[str, Program] | None = None, limits: Limits | None = None
) -> list[SQLCheckError]:
    """Statements sqlglot transpiled that DuckDB still cannot bind (unknown function, arity).

    Binds every statement against the real DDL with NULL parameters in a worker, each
    under the call budget (binding folds constant expressions, which can cost anything);
    nothing is executed.
    """
    programs = programs if programs is not None else compile_programs(spec)
    limits = limits or Limits()
    plan = blueprint(spec, "duckdb", limits, programs)
    worker: WorkerProcess | InProcess = POOL.acquire() if limits.isolated else InProcess()
    timeout = _statements(plan) * limits.hard_timeout_s() + _MARGIN_S
    try:
        found = _answer(worker.request(("bind", plan), timeout))
    except WorkerLost as lost:
        return [
            SQLCheckError(
                f"binding the statements on DuckDB ran past its budget ({lost.detail})",
                StaticSQLReason.SQL_CHECK_BUDGET,
            )
        ]
    except BaseException:
        _release(worker)
        raise
    if isinstance(worker, WorkerProcess):
        POOL.release(worker, reusable=True)
    return [
        SQLCheckError(f"{label}: {message}", StaticSQLReason.of(reason))
        for label, message, reason in found
    ]


def same_results(a: Sequence[ToolResult], b: Sequence[ToolResult]) -> bool:
    """Equal outcomes across replays or engines: outputs, and error codes (policy text too)."""
    if len(a) != len(b):
        return False
    for x, y in zip(a, b, strict=True):
        if x.ok != y.ok:
            return False
        if x.ok and x.output != y.output:
            return False
        if not x.ok and (
            x.code != y.code or (x.code == ToolErrorCode.POLICY and x.error != y.error)
        ):
            return False
    return True
