"""The environment of a domain, stage by stage: schema -> seed rows -> tools (then rows each
write on one row can act on, `reach`) -> policy, each checked before the next starts, each
stored as it is accepted, so a resumed run skips what is done. A stage that fails is
sampled afresh a few times; the policy falls back to the brief's own rules. The assembled
environment still goes through the validators' check, which the caller passes in
(generators do not import validators).
"""

from __future__ import annotations

import re
import time
from collections.abc import Awaitable, Callable, Collection
from dataclasses import dataclass, field
from typing import TypeVar

from generators import catalogue as catalogue_stage
from generators import limits as limits_stage
from generators import parents as parents_stage
from generators import policy as policy_stage
from generators import reach as reach_stage
from generators import rows as rows_stage
from generators import schema as schema_stage
from generators import tools as tools_stage
from generators.config import GenerationConfig
from generators.toolkit import schema_tools, status_tools
from toolscale.brief import Brief
from toolscale.errors import ToolscaleError
from toolscale.llm.client import LLMClient, Outcome
from toolscale.llm.ledger import Ledger
from toolscale.reasons import ErrorReason, GeneratorReason
from toolscale.report import Rejection, RunTable, StageStats, stage_entry
from toolscale.rules import RuleCoverage
from toolscale.schema import Scalar, Schema
from toolscale.spec import EnvironmentSpec
from toolscale.store import DomainStore
from toolscale.tool import Tool

ENV_STAGES = ("schema", "rows", "tool_choice", "tool_plan", "tools", "policy")
SHOWN_CHARS = 300  # of a rejection's detail in a warning
RAISED_CHARS = 500  # of the last rejection's detail in GenerationFailed
RAISED_PROBLEMS = 5  # verification problems named in GenerationFailed
SHOWN_ROWS = 3  # of the rows `reach` gave what a write needs, in its line

V = TypeVar("V")
Warn = Callable[[str, str], None]  # (headline, detail): where a stage's setbacks are told


class GenerationFailed(ToolscaleError):
    """A stage could not produce anything usable; what was made so far stays on disk."""

    reason = ErrorReason.GENERATION_FAILED


@dataclass
class EnvironmentStages:
    """The environment stages' rows and what they cost, over every run of a domain: saved as
    each stage ends, so a kill -9 loses no figure and a resumed run reports them all."""

    store: DomainStore
    ledger: Ledger  # this run's client's, still counting
    rows: dict[str, StageStats] = field(default_factory=dict)
    earlier: Ledger = field(default_factory=Ledger)  # what earlier runs spent on them
    tell: Callable[[str], None] | None = None  # a line per stage started and ended

    @classmethod
    def load(cls, store: DomainStore, ledger: Ledger) -> EnvironmentStages:
        """With the rows and tokens of earlier (maybe killed) runs."""
        return cls(
            store=store,
            ledger=ledger,
            rows=store.load_stage("environment_rows", RunTable) or {},
            earlier=store.load_stage("environment_ledger", Ledger) or Ledger(),
        )

    def row(self, stage: str) -> StageStats:
        return stage_entry(self.rows, stage, StageStats)

    def spent(self) -> Ledger:
        out = self.earlier.snapshot()
        for stage in ENV_STAGES:
            if stage in self.ledger.stages:
                out.stage(stage).add(self.ledger.stages[stage])
        return out

    def save(self) -> None:
        self.store.save_stage("environment_rows", self.rows, RunTable)
        self.store.save_stage("environment_ledger", self.spent(), Ledger)


async def _stage(
    stages: EnvironmentStages,
    name: str,
    kind: type[V],
    make: Callable[[int], Awaitable[Outcome[V]]],
    attempts: int,
    warn: Warn,
) -> V:
    """A stored stage, or up to `attempts` fresh samples of it; counted in its row."""
    stored: V | None = stages.store.load_stage(name, kind)
    tell = stages.tell or (lambda line: None)
    if stored is not None:
        tell(f"{name}: kept from an earlier run")
        return stored
    row = stages.row(name)
    started = time.perf_counter()
    tell(f"{name}: started")
    try:
        for attempt in range(attempts):
            row.seen += 1
            outcome = await make(attempt)
            if outcome.ok and outcome.value is not None:
                row.passed += 1
                stages.store.save_stage(name, outcome.value, kind)
                tell(f"{name}: done in {time.perf_counter() - started:.0f} s")
                return outcome.value
            reason = outcome.rejection.reason if outcome.rejection else GeneratorReason.FAILED
            row.reject(reason)
            detail = outcome.rejection.detail if outcome.rejection else ""
            warn(f"{name}: attempt {attempt + 1} rejected ({reason})", detail[:SHOWN_CHARS])
        raise GenerationFailed(
            f"stage {name!r} failed {attempts} times; last: {reason}: {detail[:RAISED_CHARS]}"
        )
    finally:
        row.seconds += time.perf_counter() - started
        stages.save()


def _replaced(derived: list[Tool], patterns: list[Tool]) -> list[Tool]:
    """The derived tools less the generic status changes whose column the catalogue's
    guarded ones cover: an unguarded `set_cards_status` would let the agent around a rule."""
    covered = set()
    for tool in patterns:
        for sql in tool.run:
            covered |= {
                (m.group(1), m.group(2)) for m in re.finditer(r"UPDATE (\w+) SET (\w+) = '", sql)
            }
    out = []
    for tool in derived:
        generic = tool.kind == "write" and tool.name.startswith("set_")
        target = re.match(r"UPDATE (\w+) SET (\w+) = :", tool.run[0]) if generic else None
        if target and (target.group(1), target.group(2)) in covered:
            continue
        out.append(tool)
    return out


async def _tools(
    llm: LLMClient,
    brief: Brief,
    base: EnvironmentSpec,
    stages: EnvironmentStages,
    config: GenerationConfig,
    warn: Warn,
) -> tuple[list[Tool], list[RuleCoverage]]:
    """The catalogue's tools (and, for strong models, free-SQL ones) beside the derived
    ones; each stage counted in its row; tools, drops and rule coverage stored."""
    store = stages.store
    row = stages.row("tool_choice")
    started = time.perf_counter()
    chosen = await catalogue_stage.propose_pattern_tools(
        llm, brief, base, feedback=config.tool_choice_feedback
    )
    row.seen += len(chosen.tools) + len(chosen.dropped)
    row.passed += len(chosen.tools)
    for rejection in chosen.dropped:
        row.reject(rejection.reason)
        warn(f"tool_choice: {rejection.reason}", rejection.detail[:SHOWN_CHARS])
    for rule in chosen.rules:
        if rule.unchecked:
            unread = ", ".join(rule.unchecked)
            warn(f"tool_choice: rule enforced in part ({unread} checked by no step)", rule.rule)
        elif not rule.enforced:
            warn("tool_choice: rule not enforced by any tool", rule.rule)
    row.seconds += time.perf_counter() - started
    tools = _replaced(base.tools, chosen.tools) + chosen.tools
    dropped = list(chosen.dropped)
    if config.free_sql_tools:
        row = stages.row("tools")
        started = time.perf_counter()
        spec = base.model_copy(update={"tools": tools})
        kept, lost = await tools_stage.propose_tools(
            llm,
            brief,
            spec,
            plan_samples=config.tool_plan_samples,
            budget_s=config.tool_budget_s,
            plan_tokens=config.tool_plan_tokens,
        )
        row.seen += len(kept) + len(lost)
        row.passed += len(kept)
        for rejection in lost:
            row.reject(rejection.reason)
            warn("tools: dropped", rejection.detail[:SHOWN_CHARS])
        row.seconds += time.perf_counter() - started
        tools += kept
        dropped += lost
    store.save_stage("tools", tools, list[Tool])
    store.save_stage("tools_dropped", dropped, list[Rejection])
    store.save_stage("rules", chosen.rules, list[RuleCoverage])
    stages.save()
    return tools, chosen.rules


def reached(spec: EnvironmentSpec, stages: EnvironmentStages, warn: Warn) -> EnvironmentSpec:
    """The seed with rows each write on one row can act on (`generators/reach.py`); run again
    on a resume, it gives the same rows."""
    found = reach_stage.reach(spec)
    row = stages.row("reach")
    row.seen, row.passed = len(found.given) + len(found.unreached), len(found.given)
    tell = stages.tell or (lambda line: None)
    for name, rows in found.given.items():
        shown = "; ".join(rows[:SHOWN_ROWS]) + (
            f"; {len(rows) - SHOWN_ROWS} more" if len(rows) > SHOWN_ROWS else ""
        )
        tell(f"reach: {name} acted on no seed row; {len(rows)} given what it needs: {shown}")
    for name in found.unreached:
        row.reject(GeneratorReason.UNREACHED)
        warn("reach: a write no seed row lets succeed", name)
    return spec.model_copy(update={"seed": found.seed})


def placed(spec: EnvironmentSpec, stages: EnvironmentStages) -> EnvironmentSpec:
    """The seed with parents in the states their children's creates ask of them
    (`generators/parents.py`): before `reached`, which then gives rows what the writes need,
    and `kept`."""
    found = parents_stage.place(spec)
    row = stages.row("parents")
    row.seen = found.asks
    row.passed = row.seen - len(found.moved)
    tell = stages.tell or (lambda line: None)
    buckets: list[Collection[str]] = [
        found.moved, found.history, found.held, found.unplaced, found.spared
    ]  # fmt: skip
    for ask in dict.fromkeys(a for bucket in buckets for a in bucket):
        rows = found.moved.get(ask, [])
        shown = "; ".join(rows[:SHOWN_ROWS]) + (
            f"; {len(rows) - SHOWN_ROWS} more" if len(rows) > SHOWN_ROWS else ""
        )
        left, held = found.history.get(ask, 0), found.held.get(ask, 0)
        unplaced, spared = found.unplaced.get(ask, 0), found.spared.get(ask, 0)
        tell(
            f"parents: {ask}: {len(rows)} parents moved into it"
            + (f": {shown}" if rows else "")
            + (f"; {left} left in a state that is history" if left else "")
            + (f"; {held} left where another create asks the state they hold" if held else "")
            + (f"; {unplaced} left that the state does not fit" if unplaced else "")
            + (f"; {spared} spared so that their state keeps rows" if spared else "")
        )
    return spec.model_copy(update={"seed": found.seed})


def kept(spec: EnvironmentSpec, stages: EnvironmentStages) -> EnvironmentSpec:
    """The seed within the count limits the writes guard (`generators/limits.py`): after
    `reached`, whose rows may add to a group."""
    found = limits_stage.keep(spec)
    row = stages.row("limits")
    row.seen = len(limits_stage.limits(spec.tools))
    row.passed = row.seen - len(found.moved)
    tell = stages.tell or (lambda line: None)
    for limit, rows in found.moved.items():
        shown = "; ".join(rows[:SHOWN_ROWS]) + (
            f"; {len(rows) - SHOWN_ROWS} more" if len(rows) > SHOWN_ROWS else ""
        )
        tell(f"limits: {limit}: {len(rows)} rows moved out of it: {shown}")
    return spec.model_copy(update={"seed": found.seed})


async def build_environment(
    llm: LLMClient,
    brief: Brief,
    stages: EnvironmentStages,
    check: Callable[[EnvironmentSpec], list[Rejection]],
    config: GenerationConfig,
    warn: Warn,
) -> EnvironmentSpec:
    """The stored environment, or one built from `brief` and stored; `check` (the
    validators' environment stages) must find no problem in it, else GenerationFailed."""
    store = stages.store
    spec = store.load_environment()
    if spec is not None:
        return spec
    attempts = config.env_attempts
    schema: Schema = await _stage(
        stages,
        "schema",
        Schema,
        lambda s: schema_stage.propose_schema(llm, brief, sample=s),
        attempts,
        warn,
    )
    core = [tools_stage.priced(t) for t in schema_tools(schema)]
    seed: dict[str, list[dict[str, Scalar]]] = await _stage(
        stages,
        "rows",
        dict[str, list[dict[str, Scalar]]],
        lambda s: rows_stage.propose_rows(llm, brief, schema, core, sample=s),
        attempts,
        warn,
    )
    derived = core + [tools_stage.priced(t) for t in status_tools(schema, seed)]
    base = EnvironmentSpec(
        name=brief.name,
        description=brief.description,
        schema_=schema,
        seed=seed,
        tools=derived,
        id_start=rows_stage.id_start(seed, schema),
        id_starts=rows_stage.id_starts(seed, schema),
    )
    tools: list[Tool] | None = store.load_stage("tools", list[Tool])
    coverage: list[RuleCoverage] = store.load_stage("rules", list[RuleCoverage]) or []
    if tools is None:
        tools, coverage = await _tools(llm, brief, base, stages, config, warn)
    keys = {t.name: t.primary_key[0] for t in schema.tables if len(t.primary_key) == 1}
    tools, guarded = limits_stage.guarded_moves(tools, keys, schema)
    coverage = limits_stage.covered(coverage, guarded)
    for step in guarded:
        (stages.tell or (lambda line: None))(
            f"limits: {step.tool} given step {step.step}: {step.check}"
        )
    base = placed(base.model_copy(update={"tools": tools}), stages)
    base = kept(reached(base, stages, warn), stages)
    try:
        policy: str = await _stage(
            stages,
            "policy",
            str,
            lambda s: policy_stage.propose_policy(llm, brief, tools, sample=s, coverage=coverage),
            attempts,
            warn,
        )
    except GenerationFailed as e:  # the brief's own rules still make a usable policy
        warn(f"policy: {e}; using the brief's rules", "")
        policy = policy_stage.brief_policy(brief, tools, coverage)
        stages.row("policy").reject(GeneratorReason.FELL_BACK_TO_BRIEF_RULES)
        store.save_stage("policy", policy, str)
    policy = policy_stage.rendered_again(brief, policy, tools, coverage)
    spec = base.model_copy(update={"tools": tools, "policy": policy, "rules": coverage})
    problems = check(spec)
    if problems:
        shown = problems[:RAISED_PROBLEMS]
        lines = "; ".join(f"[{p.stage}/{p.reason}] {p.detail}" for p in shown)
        raise GenerationFailed(f"the assembled environment fails verification: {lines}")
    store.save_environment(spec)
    return spec
