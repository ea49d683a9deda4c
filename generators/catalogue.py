"""Stage 3 (default): tools chosen from the catalogue of operation patterns.

The model gets the brief's rules and the candidate operations the schema allows, and
answers with choices only: which candidates become tools (a name and a description each)
and, per rule, which candidate enforces it with which conditions from the closed menu.
What fits of its answer is kept (known ids, conditions that fit); only an answer with
nothing usable goes back to it, once. If nothing usable comes back, every candidate is
taken and the rules are mapped from their wording (`generators.rulemap`). Every tool
then passes the same checks as free SQL (static, DuckDB, a smoke run on the seed) or is
dropped with its reason, and the coverage says which rule is enforced by which tool and
step.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, Field

from generators.allowances import charges
from generators.patterns import (
    EVERY,
    Candidate,
    Condition,
    Variant,
    catalogue,
    condition_problems,
    condition_step,
    with_conditions,
)
from generators.prompting import messages
from generators.realise import tool_sql_problems
from generators.refunds import refunding
from generators.rulemap import (
    candidates_for,
    changes,
    either_case,
    guess_conditions,
    rule_verb,
    says_other_operation,
    verb_parts,
)
from generators.schema import compounds, fields_named, states_named
from generators.tools import priced, smoke_problems
from toolscale.brief import Brief
from toolscale.llm.client import Invalid, LLMClient, Outcome
from toolscale.names import check_identifier
from toolscale.reasons import GeneratorReason
from toolscale.report import Rejection
from toolscale.rules import Enforcement, RuleCoverage
from toolscale.schema import Schema, Table
from toolscale.spec import EnvironmentSpec
from toolscale.tool import RequireStep, Tool
from toolscale.wording import FIELD_WORDS, GENERIC, Request, entity_words, singular, words

STAGE = "tool_choice"
SMOKE_TRIES = 40  # no model call in it: cheap, and a rule may hold for few seed rows
MAX_READS = 8  # of the deterministic selection: writes are what the floors count
FLOOR_TOOLS = 14  # issue 8's floors per domain
FLOOR_WRITES = 6
READ_PATTERNS = ("total", "history", "find")
# Patterns every environment gets whatever the model picks: finding the user by email or
# name is the policy's first step, and the guarded status changes replace the derived
# unguarded `set_<table>_status`, which would let an agent around every rule.
ALWAYS = ("find", "status")
# The example answer's description: a model that copies it (the 1.5B one did, for every
# tool) gets the pattern's own description instead, as does one of under 20 characters.
EXAMPLE_DESCRIPTION = "One sentence on what it does for the user."
# At most as many picks as ToolScale has tools per domain, each described in a sentence: a
# bound the server's grammar keeps. Movie's 1.5B listed every one of 40 candidates, some
# twice, ran into the 2048-token cap, and its cut JSON cost a second answer (5 min each on
# 2 cores). The deterministic top-up fills what a short answer leaves out.
MAX_PICKS = 25
MAX_DESCRIPTION = 160
CHOICE_TOKENS = 3072  # 25 picks and the rules' conditions, with room to spare


class ToolChoice(BaseModel):
    candidate: str = Field(description="a candidate id, exactly as listed")
    name: str = Field(default="", description="lower_snake_case verb, e.g. transfer_funds")
    description: str = Field(default="", max_length=MAX_DESCRIPTION)


class RuleChoice(BaseModel):
    rule: int = Field(description="the rule's number as listed, from 1")
    candidate: str
    conditions: list[Condition] = Field(default_factory=list, max_length=5)


class CatalogueChoice(BaseModel):
    tools: list[ToolChoice] = Field(default_factory=list, max_length=40)
    rules: list[RuleChoice] = Field(default_factory=list, max_length=40)


class CatalogueAnswer(CatalogueChoice):
    """What the model may answer (the server's grammar holds it to this); the choice it
    becomes is then topped up past it."""

    tools: list[ToolChoice] = Field(default_factory=list, max_length=MAX_PICKS)
    rules: list[RuleChoice] = Field(default_factory=list, max_length=20)


class PatternTools(BaseModel):
    """What the stage keeps: the tools, the rule coverage, why other tools were dropped."""

    tools: list[Tool] = Field(default_factory=list)
    rules: list[RuleCoverage] = Field(default_factory=list)
    dropped: list[Rejection] = Field(default_factory=list)
    fell_back: bool = False


def choice_problems(
    choice: CatalogueChoice,
    candidates: list[Candidate],
    rules: list[str],
    schema: Schema,
    taken: set[str],
) -> list[str]:
    """Every problem of the answer, each naming what it is about."""
    by_id = {c.id: c for c in candidates}
    out = []
    names = set(taken)
    for pick in choice.tools:
        if pick.candidate not in by_id:
            out.append(f"tools: unknown candidate {pick.candidate!r}; use an id from the list")
            continue
        if pick.name:
            try:
                check_identifier(pick.name, "tool", in_sql=False)
            except ValueError as e:
                out.append(f"tools: {pick.candidate}: {e}")
            if pick.name in names:
                out.append(f"tools: the name {pick.name!r} is taken; choose another")
            names.add(pick.name)
    n_rules = len(rules)
    for mapping in choice.rules:
        if not 1 <= mapping.rule <= n_rules:
            out.append(f"rules: there is no rule {mapping.rule}; rules are numbered 1 to {n_rules}")
        cand = by_id.get(mapping.candidate)
        if cand is None:
            out.append(f"rules: rule {mapping.rule}: unknown candidate {mapping.candidate!r}")
            continue
        if (
            1 <= mapping.rule <= n_rules
            and either_case(rules[mapping.rule - 1])
            and not _one_either(mapping.conditions)
        ):
            out.append(
                f"rules: rule {mapping.rule} allows the operation in either of two cases: map "
                "it to one condition of kind either with a case for each, or leave it out"
            )
            continue
        if 1 <= mapping.rule <= n_rules and says_other_operation(rules[mapping.rule - 1], cand):
            out.append(
                f"rules: rule {mapping.rule} is about another operation than {cand.id} "
                f"({cand.summary}); map it to the operation it names, or leave it out"
            )
        for cond in mapping.conditions:
            out += [
                f"rules: rule {mapping.rule}: {p}" for p in condition_problems(cand, cond, schema)
            ]
    return out


def salvage(
    choice: CatalogueChoice, candidates: list[Candidate], rules: list[str], schema: Schema
) -> CatalogueChoice:
    """What fits of an answer: known candidates, valid names, fitting conditions."""
    by_id = {c.id: c for c in candidates}
    tools, names = [], set()
    for pick in choice.tools:
        if pick.candidate not in by_id:
            continue
        try:
            ok = bool(pick.name) and check_identifier(pick.name, "tool", in_sql=False) == pick.name
        except ValueError:
            ok = False
        name = pick.name if ok and pick.name not in names else ""
        names.add(name)
        tools.append(pick.model_copy(update={"name": name}))
    mapped = []
    for m in choice.rules:
        cand = by_id.get(m.candidate)
        if cand is None or not 1 <= m.rule <= len(rules):
            continue
        if says_other_operation(rules[m.rule - 1], cand):
            continue
        if either_case(rules[m.rule - 1]) and not _one_either(m.conditions):
            continue
        fits = [c for c in m.conditions if not condition_problems(cand, c, schema)]
        if fits:
            mapped.append(m.model_copy(update={"conditions": fits}))
    return CatalogueChoice(tools=tools, rules=mapped)


def _one_either(conditions: list[Condition]) -> bool:
    """Conditions that say a rule of two cases: one `either`, and nothing that must hold
    beside it (a condition that must hold in both cases refuses one of them)."""
    return [c.kind for c in conditions] == ["either"]


def fallback_choice(
    candidates: list[Candidate],
    rules: list[str],
    schema: Schema,
    seed: dict[str, list[dict]] | None = None,
) -> CatalogueChoice:
    """Every write candidate and the first reads, named from the pattern; each rule mapped
    from its wording where it can be."""
    writes = [c for c in candidates if c.tool.kind == "write"]
    reads = [c for c in candidates if c.tool.kind == "read"]
    finds = [c for c in reads if c.pattern == "find"]
    mapped: list[RuleChoice] = []
    for i, rule in enumerate(rules, start=1):
        for part in verb_parts(rule):
            # a change is every move of the record ("changed": to another table, another
            # customer); any other operation is the one the wording ranks first
            every = changes(rule_verb(part))
            for cand in candidates_for(part, writes):
                if any(m.rule == i and m.candidate == cand.id for m in mapped):
                    continue
                moved = every and cand.pattern == "move"
                if moved and cand.variant is not None:
                    continue  # its plain form's mapping goes to it (`onto_variants`)
                # the record's state before the move, not the row it moves to: "a flight
                # booking with fare_class basic_economy" is the booked flight's class
                read = (
                    cand.model_copy(update={"rows": {cand.main: cand.rows[cand.main]}})
                    if moved
                    else cand
                )
                conditions = guess_conditions(part, read, schema, seed)
                conditions = [c for c in conditions if not condition_problems(cand, c, schema)]
                if conditions:
                    mapped.append(RuleChoice(rule=i, candidate=cand.id, conditions=conditions))
                    if not moved:
                        break
    used = {m.candidate for m in mapped}
    # a variant (a create that takes stock, a move) only where a rule asks for it; its plain
    # form's pick then goes to it (`onto_variants`)
    writes = [c for c in writes if not _variant(c) or c.id in used]
    picked = writes + finds + [c for c in reads if c not in finds][: max(0, MAX_READS - len(finds))]
    return CatalogueChoice(tools=[ToolChoice(candidate=c.id) for c in picked], rules=mapped)


def onto_variants(choice: CatalogueChoice, by_id: dict[str, Candidate]) -> CatalogueChoice:
    """Where a rule needs a variant ("while seats_sold is below the train's capacity": the
    sale that counts itself), the plain form's pick and rules go to it, under the pick's
    name or the plain tool's (`create_ticket`, not `create_ticket_counting_seats_sold`):
    one tool for one act, named as the agent would look for it."""
    variant = {
        _plain(m.candidate, by_id): m.candidate
        for m in choice.rules
        if _plain(m.candidate, by_id) != m.candidate
    }
    if not variant:
        return choice
    tools, seen = [], set()
    for pick in choice.tools:
        ident = variant.get(pick.candidate, pick.candidate)
        if ident in seen:
            continue
        seen.add(ident)
        name = pick.name
        if not name and ident != pick.candidate and pick.candidate in by_id:
            name = by_id[pick.candidate].tool.name  # the plain form's own name
        tools.append(pick.model_copy(update={"candidate": ident, "name": name}))
    rules = [
        m.model_copy(update={"candidate": variant.get(m.candidate, m.candidate)})
        for m in choice.rules
    ]
    return choice.model_copy(update={"tools": tools, "rules": rules})


def _plain(ident: str, by_id: dict[str, Candidate]) -> str:
    """The id of the operation a variant is offered beside."""
    cand = by_id.get(ident)
    return cand.plain if cand is not None else ident


def _plain_name(cand: Candidate, by_id: dict[str, Candidate]) -> str:
    """A variant tool's name as its plain form's: ecommerce's users asked to "create an
    order item taking stock", the tool's name, for an order item."""
    plain = by_id.get(cand.plain)
    return plain.tool.name if plain is not None else cand.tool.name


def _variant(cand: Candidate) -> bool:
    """An operation offered beside a plainer one, or one few domains want (a move)."""
    return cand.pattern == "move" or cand.variant is not None


def topped_up(
    choice: CatalogueChoice, default: CatalogueChoice, brief: Brief, spec: EnvironmentSpec
) -> CatalogueChoice:
    """The model's picks, the patterns every environment gets (`ALWAYS`), plus default ones
    until the environment can reach its floors (14 tools, 6 guarded writes): a shy answer
    must not leave the domain poor."""
    want = max(brief.n_tools, FLOOR_TOOLS) - len(spec.tools)
    picked = {p.candidate for p in choice.tools} | {m.candidate for m in choice.rules}
    tools = list(choice.tools)
    for pick in default.tools:  # always: the policy's first step, and guarded transitions
        if pick.candidate.split(":")[0] in ALWAYS and pick.candidate not in picked:
            picked.add(pick.candidate)
            tools.append(pick)
    writes = sum(1 for p in picked if p.split(":")[0] not in READ_PATTERNS)
    for pick in default.tools:
        if len(picked) >= want and writes >= FLOOR_WRITES + 2:
            break
        if pick.candidate not in picked:
            picked.add(pick.candidate)
            writes += pick.candidate.split(":")[0] not in READ_PATTERNS
            tools.append(pick)
    return choice.model_copy(update={"tools": tools})


def onto_moves(
    rules: list[RuleChoice], picked: set[str], by_id: dict[str, Candidate], schema: Schema
) -> list[RuleChoice]:
    """What a rule asks of the row a record is made under, it asks of the row a picked move
    takes the record to: restaurant's "an order can only be placed for a reservation with
    status seated and for a menu item whose is_available is true" held for a new order,
    while `move_order_menu_item` moved one onto an unavailable dish. Only conditions on
    that row alone (a status, a value) carry over; a bound on the call's own parameters
    has none to read in a move."""
    out: list[RuleChoice] = []
    for m in rules:
        cand = by_id[m.candidate]
        for param in cand.rows if cand.creates else []:
            move = by_id.get(f"move:{cand.creates}.{param}")
            # a record made taking its parent's stock moves taking the new one's: travel's
            # moves of a flight booking took no seat
            took = cand.variant if cand.variant and cand.variant.how == "taking" else None
            taking = (
                by_id.get(Variant(of=move.id, how="taking", column=took.column).id)
                if move and took
                else None
            )
            if move is None or not {move.id, taking.id if taking else ""} & picked:
                continue  # not picked, nor its taking form (picked for a rule of its own)
            carried = [
                _carried(c, param, move, schema)
                for c in m.conditions
                if not (c.if_parameter or c.if_row)
                and (c.row == param or c.row.startswith(f"{param}."))
            ]
            carried += [
                _other_side(c, param, move)
                for c in m.conditions
                if not (c.if_parameter or c.if_row) and c.other == param and c.row in cand.rows
            ]
            moved = schema.table(move.rows[move.main])
            kept = [r for r in cand.rows if r != param and r in moved.column_names]
            carried += [_counted(c, param, move.main, kept, moved) for c in m.conditions]
            carried += [_conditional(c, param, move.main, kept) for c in m.conditions]
            carried = [
                c for c in carried if c is not None and not condition_problems(move, c, schema)
            ]
            if taking is not None and taking.rows[f"new_{param}"] == cand.rows[param]:
                move = taking
                carried += [Condition(kind="guard", guard=g) for g in ("enough", "takes")]
            if carried and not any(r.rule == m.rule and r.candidate == move.id for r in rules):
                out.append(RuleChoice(rule=m.rule, candidate=move.id, conditions=carried))
    return out


def onto_activations(
    rules: list[RuleChoice], picked: set[str], by_id: dict[str, Candidate], schema: Schema
) -> list[RuleChoice]:
    """A create's limit on the records of a state under its parent ("the sum of yearly
    salaries of a team's active contracts cannot exceed the team's salary_cap", "at most 15
    players with an active contract"), for a picked status change that puts a record of
    that kind into the state: the record's own parent is read. Basketball's
    `activate_contract` on 31bc8d2 held the roster limit (the model mapped it) and not the
    cap, so a suspended contract came back over it (audit)."""
    out: list[RuleChoice] = []
    for m in rules:
        cand = by_id[m.candidate]
        if cand.creates is None:
            continue
        child = schema.table(cand.creates)
        for other in sorted(picked):
            change = by_id.get(other)
            if change is None or change.sets is None or change.sets[0] != cand.creates:
                continue
            carried = [
                c.model_copy(
                    update={
                        "row": f"{change.main}.{c.row}",
                        "other": f"{change.main}.{c.other}" if c.other else "",
                    }
                )
                for c in m.conditions
                if c.kind == "count"
                and c.child == cand.creates
                and (c.column, str(c.value)) == change.sets[1:]
                and not (c.per or c.if_row or c.if_parameter)
                and c.row in child.column_names
                and (not c.other or c.other.split(".")[0] in child.column_names)
            ]
            carried = [c for c in carried if not condition_problems(change, c, schema)]
            mapped = [r for r in [*rules, *out] if r.rule == m.rule and r.candidate == change.id]
            if carried and not mapped:
                out.append(RuleChoice(rule=m.rule, candidate=change.id, conditions=carried))
    return out


def counted_forms(picked: set[str], by_id: dict[str, Candidate]) -> dict[str, str]:
    """The picked moves, cancellations and refunds of a record whose picked create counts
    it sold on its parent, each to its form that keeps the count: railway's `create_ticket`
    added to the trip's seats_sold, `move_ticket_trip` left both trips' counts as they were
    and `cancel_ticket` left the seat sold."""
    out = {}
    for ident in picked:
        made = by_id.get(ident)
        if made is None or made.creates is None or made.variant is None:
            continue
        if made.variant.how != "counting":
            continue
        for other in picked:
            cand = by_id.get(other)
            if cand is None or cand.rows.get(cand.main) != made.creates:
                continue
            how = "counting" if cand.pattern == "move" else "releasing" if cand.sets else None
            counted = Variant(of=other, how=how, column=made.variant.column).id if how else ""
            if counted in by_id:
                out[other] = counted
    return out


def _conditional(cond: Condition, param: str, main: str, kept: list[str]) -> Condition | None:
    """A create's condition that holds in one case, of the row a move of `param` changes:
    the rows it reads named as the move names them (the new row, or one the moved record
    keeps). Medicine's "a medication marked controlled can only be prescribed by a doctor
    with can_prescribe_controlled set to true" held for a new prescription, while
    medicine-intent-00143 on 21e9774 moved one of a doctor who may not to a controlled
    medication."""
    if not cond.if_row or cond.if_parameter or cond.kind not in ("value", "in"):
        return None
    heads = (cond.row.split(".")[0], cond.if_row.split(".")[0])
    if param not in heads:
        return None

    def named(row: str) -> str | None:
        head = row.split(".")[0]
        if head == param:
            return f"new_{row}"
        return f"{main}.{row}" if head in kept else None

    row, if_row = named(cond.row), named(cond.if_row)
    if row is None or if_row is None:
        return None
    return cond.model_copy(update={"row": row, "if_row": if_row})


def _counted(
    cond: Condition, param: str, main: str, kept: list[str], moved: Table
) -> Condition | None:
    """A create's "at most N of them ... in the same X", for the move of `param`: the rows
    it counts named as the move names them. School's "a student cannot have more than 6
    active enrollments in the same term" and "cannot enroll twice in the same course" held
    for a new enrollment, while `move_enrollment_course` took one into a course the student
    was already in. A count whose row and kind of row the move leaves as they were is not
    changed by it. A sum under the parent's own cap ("the seats already booked plus the new
    seats cannot exceed the screen's capacity") is counted where the record goes, its own
    seats with it (`patterns`): movie's `move_booking_showtime` on 3d6f8ed filled any
    showtime."""
    if cond.kind != "count" or cond.if_row or cond.if_parameter:
        return None
    if cond.total and not cond.per and cond.row == param:
        other = cond.other.split(".", 1)
        if cond.other and other[0] != param:
            return None
        held = f"new_{cond.other}" if cond.other else ""
        return cond.model_copy(update={"row": f"new_{param}", "other": held})
    if not cond.per or cond.total:
        # a sum "on the same trip" would need the moved record's own per column as well
        return None
    if cond.row == EVERY:
        return None

    def named(row: str) -> str | None:
        head = row.split(".")[0]
        if head == param:
            return f"new_{row}"
        if head in kept:
            return f"{main}.{row}"
        return f"{main}.{row}" if row in moved.column_names else None  # the record's own

    # restaurant's "two reservations with status booked on the same date and time slot" (per
    # "date,time_slot" of the new row) held for a new one, and `move_reservation_table`
    # moved one onto a table booked at its date and time (the audit of 0fd2081's run)
    row, parts = named(cond.row), [named(p) for p in cond.per.split(",")]
    if row is None or None in parts:
        return None
    per = ",".join(p for p in parts if p is not None)
    if not (row.startswith("new_") or any(p.startswith("new_") for p in per.split(","))):
        return None
    if "," in per and not all("." in p for p in per.split(",")):
        return None  # several values shared, each the moved record's or the new row's own
    return cond.model_copy(update={"row": row, "per": per})


def _other_side(cond: Condition, param: str, move: Candidate) -> Condition | None:
    """A create's "this other row of the record has the same `param` row" as the move of
    `param`'s: the row the record keeps must have the new one. Medicine's "a completed
    appointment between the same patient and the prescribing doctor" held for a new
    prescription, while `move_prescription_to_doctor` gave one a doctor its appointment was
    not with (medicine-intent-00129 on ac78a9f)."""
    if cond.kind != "compare" or cond.op != "=" or "." in cond.row:
        return None
    return Condition(
        kind="compare", row=f"{move.main}.{cond.row}", column=cond.column, op="=",
        other=f"new_{param}", other_column=cond.other_column,
    )  # fmt: skip


def _carried(cond: Condition, param: str, move: Candidate, schema: Schema) -> Condition | None:
    """A create's condition on its parent row, as the move's on the row it moves to: a
    status or value of that row as it is, and "a party_size no larger than the table's
    seats" (the call's own number then) as the moved record's own column against it."""
    row = f"new_{cond.row}"
    # and when it is: movie's "a booking needs a showtime in the future" held for a new
    # booking only, and movie-intent-00004 on 71aacdf moved one onto a showtime of
    # 2024-10-10 under a 2025 clock
    timed = ("days_ahead", "hours_ahead", "within_days", "within_hours")
    if cond.kind in ("value", "in") or (cond.kind in timed and cond.column):
        return cond.model_copy(update={"row": row})
    if cond.kind == "count" and cond.row == param and not (cond.per or cond.total):
        # school's "a student can enroll in a course only while the number of active
        # enrollments is below the course's capacity" held for a new enrollment, while
        # `move_enrollment_course` took one into any course, full or not
        return cond.model_copy(update={"row": row})
    if cond.kind == "compare" and cond.op != "=" and cond.row == param:
        # basketball's "while tickets_sold is below the game's capacity" held for a new
        # ticket, and `move_ticket_to_game` on 31bc8d2 moved one onto a full game: both
        # columns are read off the row it goes to (or rows that row reaches)
        head = cond.other.split(".")[0] if cond.other else param
        if head == param:
            return cond.model_copy(update={"row": row, "other": f"new_{cond.other or param}"})
    moved = schema.table(move.rows[move.main])
    refs = {fk.columns[0]: fk.ref_table for fk in moved.foreign_keys if len(fk.columns) == 1}
    if (
        cond.kind == "compare"
        and cond.op == "="
        and cond.row == param
        and cond.other in refs
        and schema.table(refs[cond.other]).primary_key == [cond.other_column]
    ):
        # medicine's "a prescription requires a completed appointment between the same
        # patient and the prescribing doctor": the new appointment's patient is the one the
        # moved prescription names (medicine-intent-00019 on 8fb416f moved one to another
        # doctor's appointment; only "completed" had carried over)
        return Condition(
            kind="compare", row=row, column=cond.column, op="=", other=move.main,
            other_column=cond.other,
        )  # fmt: skip
    if (
        cond.kind == "amount"
        and cond.column
        and cond.parameter in moved.column_names
        and cond.factor in (None, 1.0)
    ):
        return Condition(
            kind="compare",
            row=move.main,
            column=cond.parameter,
            op=cond.op,
            other=row,
            other_column=cond.column,
        )
    return None


def realise(
    choice: CatalogueChoice,
    candidates: list[Candidate],
    rules: list[str],
    spec: EnvironmentSpec,
) -> PatternTools:
    """The chosen tools with their rules' conditions, each checked like free SQL; the
    coverage of every rule by the tools that were kept."""
    by_id = {c.id: c for c in candidates}
    choice = onto_variants(choice, by_id)
    picks = {p.candidate: p for p in choice.tools}
    for m in choice.rules:  # a rule's candidate is a tool even if the answer forgot it
        picks.setdefault(m.candidate, ToolChoice(candidate=m.candidate))
    moved = onto_moves(choice.rules, set(picks), by_id, spec.schema_)
    renamed: dict[str, str] = {}
    for m in moved:  # a move that takes along replaces the plain one picked, under its name,
        # and takes its rules along ("cannot be changed" holds for it)
        plain = _plain(m.candidate, by_id)
        if m.candidate not in picks and plain in picks:
            picks[m.candidate] = picks.pop(plain)
            renamed[plain] = m.candidate
    for plain, counting in counted_forms(set(picks), by_id).items():
        picks[counting] = picks.pop(plain)
        renamed[plain] = counting
    activated = onto_activations(choice.rules, set(picks), by_id, spec.schema_)
    mapped = [
        r.model_copy(update={"candidate": renamed.get(r.candidate, r.candidate)})
        for r in [*choice.rules, *moved, *activated]
    ]
    choice = choice.model_copy(update={"rules": mapped})
    taken = {t.name for t in spec.tools}
    steps: dict[str, list[tuple[int, Condition, RequireStep | None]]] = {}
    for m in choice.rules:
        cand = by_id[m.candidate]
        for cond in m.conditions:
            rule = rules[m.rule - 1]
            guard = cond.kind == "guard"
            step = None if guard else condition_step(cand, cond, spec.schema_, rule)
            steps.setdefault(m.candidate, []).append((m.rule, cond, step))
    out = PatternTools()
    coverage = [RuleCoverage(rule=r) for r in rules]
    plain_picked = [by_id[i].tool.name for i in picks if _plain(i, by_id) == i]
    for ident, pick in picks.items():
        cand = by_id[ident]
        kept = keeps_verb(pick.name, cand.tool.name) and names_its_records(pick.name, cand)
        name = pick.name if kept else cand.tool.name
        plain_name = _plain_name(cand, by_id)
        if name == cand.tool.name and plain_name not in taken | set(plain_picked):
            name = plain_name  # `create_order_item`, not `..._taking_stock`
        if name in taken:
            if pick.name or cand.tool.kind == "read":
                continue  # a derived tool already does it (or the name is the model's slip)
            name = f"{name}_checked"
        mine = steps.get(ident, [])
        if barring := forbidding(cand, [(number, cond) for number, cond, _ in mine]):
            out.dropped.append(
                Rejection(
                    stage=STAGE,
                    reason=GeneratorReason.FORBIDDEN_BY_RULES,
                    detail=f"tool {name!r} ({ident}): rules {barring} allow it from none of "
                    f"{', '.join(cand.moves_from)}",
                )
            )
            for number in barring:
                coverage[number - 1].left_out.append(name)
            continue
        extra = [s for _, _, s in mine if s is not None]
        said = pick.description.strip()
        described = said if len(said) >= 20 and said != EXAMPLE_DESCRIPTION else ""
        if not describes_its_states(described, cand, spec.schema_):
            described = ""
        tool = with_conditions(cand, extra, name, described)
        problems = tool_sql_problems(tool, spec.schema_)
        reason = GeneratorReason.SQL_REJECTED
        if not problems:
            # the errors as built: a rule's step of the states may be said as the change's
            sqls = {s.sql for s in [*extra, *cand.checks]}
            ruled = frozenset(r.error for r in tool.require if r.sql in sqls)
            problems = smoke_problems(tool, spec, tries=SMOKE_TRIES, rule_errors=ruled)
            reason = GeneratorReason.SMOKE_FAILED
        if problems:
            out.dropped.append(
                Rejection(
                    stage=STAGE,
                    reason=reason,
                    detail=f"tool {name!r} ({ident}): " + "; ".join(problems[:3]),
                )
            )
            continue
        taken.add(name)
        out.tools.append(priced(tool))
        for number, cond, step in mine:
            coverage[number - 1].enforced_by.append(_enforcement(tool, cand, cond, step))
    out.rules = [unchecked_states(c, out.tools) for c in coverage]
    return out


def forbidding(cand: Candidate, conditions: list[tuple[int, Condition]]) -> list[int]:
    """The rules (by number) that together leave a status change no state to start from:
    weather's reactivation, allowed by its pattern only from decommissioned, under "a
    station with status decommissioned cannot be set back to active". Its two steps
    contradicted each other, so every call was refused (0 of 69 stations passed) and every
    task about it was a refusal. Empty when some state is left, or the tool sets no status."""
    if cand.sets is None or "transition" not in cand.guards:
        return []
    column = cand.sets[1]
    on_state = [
        (number, c)
        for number, c in conditions
        if c.kind == "in"
        and c.column == column
        and c.row in ("", cand.main)
        and not (c.if_parameter or c.if_column)
    ]
    allowed = [c.values for _, c in on_state if c.op != "not in"]  # they replace the pattern's
    states = set.intersection(*map(set, allowed)) if allowed else set(cand.moves_from)
    states -= {v for _, c in on_state if c.op == "not in" for v in c.values}
    return [] if states else sorted({number for number, _ in on_state})


def unchecked_states(coverage: RuleCoverage, tools: list[Tool]) -> RuleCoverage:
    """The rule with the states (and spans of time) it names that no step enforcing it
    reads: medicine's "a
    prescription requires a completed appointment between the same patient and the
    prescribing doctor" was mapped onto the patient and the doctor alone, so any
    appointment did, and the rule was counted as enforced."""
    by_name = {t.name: t for t in tools}
    sqls = []
    for e in coverage.enforced_by:
        tool = by_name.get(e.tool)
        if e.step is None or tool is None:
            return coverage  # the write itself enforces it: nothing to read here
        sqls.append(tool.require[e.step].sql)
    if not sqls:
        return coverage
    # ... or by what the tool writes: railway's refund works its amount out by the 24 hours
    written = [s for e in coverage.enforced_by for s in by_name[e.tool].run]
    missing = unread_parts(coverage.rule, sqls, written)
    return coverage.model_copy(update={"unchecked": missing}) if missing else coverage


def unread_parts(rule: str, sqls: list[str], written: list[str]) -> list[str]:
    """The states, spans of time and fields `rule` names that none of `sqls` reads and none
    of `written` uses: what a check made of those steps leaves out of the rule."""
    sqls = [q.lower() for q in sqls]
    written = [q.lower() for q in written]
    missing = [s for s in states_named(rule) if not any(f"'{s}'" in q for q in sqls)]
    # ecommerce's "... only for an order with status delivered and within 30 days of its
    # delivered_date" was enforced by the status alone, and counted as enforced
    missing += [
        m.group()
        for m in _TIME_BOUND.finditer(rule)
        if not any(
            re.search(rf"(?<![\w.]){re.escape(m[1])}(?:\.0+)?(?![\w.])", q)
            for q in [*sqls, *written]
        )
    ]
    # the fields it reads, by a word of theirs in a step or in what the tool writes:
    # basketball's "while tickets_sold is below the game's capacity" was enforced by the
    # status alone on 65cb0f1 (its column was tickets_capacity), and "the home and away
    # scores cannot be equal" by no step (its schema held no scores)
    said = " ".join([*sqls, *written])
    # weather's "an email address can have at most 5 subscriptions" was read by its
    # per-email count, its column `email`, and reported in part ("address" read nowhere)
    held = {field for word, field in compounds(rule) if re.search(rf"\b{word}\b", said)}
    missing += [
        field
        for field in fields_named(rule)
        if field not in held
        and not any(w in said for w in words(field.replace(" ", "_")) if len(w) > 2)
    ]
    return list(dict.fromkeys(missing))  # movie's now_showing is a state and a field


_TIME_BOUND = re.compile(
    r"\b(\d+(?:\.\d+)?)\s+(?:days?|hours?|minutes?|weeks?|months?|years?)\b", re.I
)


def keeps_verb(name: str, default: str) -> bool:
    """A model's name for a tool says what it does as the pattern's own name does (its
    verb or a synonym): `adjust_max_balance` for a decrease would have users ask for the
    wrong thing, so the pattern's `reduce_account_max_balance` is kept instead. Where the
    pattern's verb is generic, its next word says what it does: basketball's
    `update_game_status` for `set_scheduled_game` hid that it schedules a postponed game.
    A name that opens with a field names no act."""
    said = [w for w in default.split("_") if w not in GENERIC]
    if name.split("_")[0] in FIELD_WORDS:  # movie's `status_active_bookings`: no verb
        return False
    return bool(name) and (not said or Request(name.replace("_", " ")).says(said[0]))


# where a description states what a row must be: "Repay a loan if it is active"
_CONDITION = re.compile(r"\b(?:if|when|unless|only|while|whose|once)\b(.*)", re.I | re.S)


def describes_its_states(description: str, cand: Candidate, schema: Schema) -> bool:
    """A model's description of a status change names only the states the tool moves a row
    from, and, outside its condition, the one it moves it into: finance's model described
    `set_repaid_loan` as "Repay a loan if it is active or closed" (only an active loan can
    be) and `set_pending_transfer` as "Start a transfer if it is pending" (only a failed
    one can be), and the policy told agents so."""
    if cand.sets is None or not description:
        return True
    table, column, target = cand.sets
    known = schema.table(table).enum_values(column) or [*cand.moves_from, target]

    def named(text: str) -> set[str]:
        spelled = {v: r"[\s_-]+".join(map(re.escape, v.split("_"))) for v in known}
        return {v for v, p in spelled.items() if re.search(rf"\b{p}\b", text, re.I)}

    condition = _CONDITION.search(description)
    stated = named(condition.group(1)) if condition else set()
    return named(description) <= {*cand.moves_from, target} and stated <= set(cand.moves_from)


# patterns whose tool acts on a row the user names: its name says which kind of row
_NAMED_ROW = {"move", "update", "use", "status", "cancel"}


def names_its_records(name: str, cand: Candidate) -> bool:
    """A model's name for a tool that acts on a row names that row's kind, and a move names
    where to: medicine's model called the move of a prescription to another appointment
    `move_appointment`, and its users asked to "move this appointment" (4 of the first 16
    drafts were rejected as unasked_target, one kept that names no prescription)."""
    if cand.pattern not in _NAMED_ROW:
        return True
    said = set(words(name)) | {singular(w) for w in words(name)}
    tables = [cand.rows[cand.main]] if cand.main in cand.rows else []
    if cand.pattern == "move":
        tables += [t for p, t in cand.rows.items() if p.startswith("new_")]
    return all(entity_words(t) & said for t in tables)


def _enforcement(
    tool: Tool, cand: Candidate, cond: Condition, step: RequireStep | None
) -> Enforcement:
    """Where the tool enforces a condition: its step, found by SQL in the tool as built (a
    rule's states replace the pattern's own transition step, which shifts the steps after
    it), or its description for a guard built into the writes (the restocking of a cancel).
    The pattern's description was reported for ecommerce's cancel on 6b0b758: "allowed from
    pending, shipped, delivered", the states the rule had replaced."""
    if step is None:  # a built-in guard
        index = cand.guards[cond.guard]
        if index < 0:
            return Enforcement(tool=tool.name, step=None, check=tool.description)
        step = cand.tool.require[index]
    found = next((i for i, r in enumerate(tool.require) if r.sql == step.sql), None)
    if found is None:  # a guard the rule's own step replaced
        return Enforcement(tool=tool.name, step=None, check=tool.description)
    return Enforcement(tool=tool.name, step=found, check=tool.require[found].error)


def example_choice(candidates: list[Candidate]) -> dict:
    """A complete answer on this very catalogue: small models follow an example."""
    write = next((c for c in candidates if c.amount and c.tool.kind == "write"), candidates[0])
    cond: dict = {"kind": "amount", "op": "<=", "value": 1000}
    if not write.amount:
        cond = {"kind": "guard", "guard": next(iter(write.guards), "exists")}
    return {
        "tools": [
            {"candidate": write.id, "name": write.tool.name, "description": EXAMPLE_DESCRIPTION}
        ],
        "rules": [{"rule": 1, "candidate": write.id, "conditions": [cond]}],
    }


async def choose_tools(
    llm: LLMClient,
    brief: Brief,
    spec: EnvironmentSpec,
    candidates: list[Candidate],
    sample: int = 0,
    feedback: int = 0,
) -> Outcome[CatalogueChoice]:
    """The model's picks. With `feedback` 0, what fits of the first answer is kept; with N,
    the answer's problems go back N times before what fits is kept. On the cached answers
    of finance, basketball and travel, 2 gave the very tools and rule coverage 0 does, for
    2 more calls (`bench/tool_choice.py --replay`). An answer with nothing usable, or no
    JSON, always gets one more try."""
    taken = {t.name for t in spec.tools}

    def check(choice: CatalogueChoice) -> CatalogueChoice:
        problems = choice_problems(choice, candidates, brief.rules, spec.schema_, taken)
        if not choice.tools and not choice.rules:
            problems.append("choose at least one candidate")
        if problems:
            raise Invalid(problems, reason=GeneratorReason.BAD_CHOICE)
        return choice

    def last(choice: CatalogueChoice) -> CatalogueChoice:
        kept = salvage(choice, candidates, brief.rules, spec.schema_)
        if not kept.tools and not kept.rules:
            return check(choice)
        return kept

    return await llm.structured(
        messages(
            "catalogue.j2",
            brief=brief,
            candidates=candidates,
            example=example_choice(candidates),
            n_tools=min(max(brief.n_tools, 14), MAX_PICKS),
        ),
        CatalogueAnswer,
        stage=STAGE,
        check=check if feedback else last,
        last_check=last,
        repairs=max(feedback, 1),
        sample=sample,
        max_tokens=CHOICE_TOKENS,
    )


async def propose_pattern_tools(
    llm: LLMClient, brief: Brief, spec: EnvironmentSpec, sample: int = 0, feedback: int = 0
) -> PatternTools:
    """The catalogue's tools for this environment, chosen by the model or, failing that,
    deterministically; never raises for a bad answer."""
    candidates = catalogue(spec.schema_, spec.seed, charges(spec.schema_, brief.rules))
    candidates = refunding(candidates, spec.schema_, brief.rules)
    if not candidates:
        return PatternTools(rules=[RuleCoverage(rule=r) for r in brief.rules])
    outcome = await choose_tools(llm, brief, spec, candidates, sample, feedback)
    fell_back = not outcome.ok or outcome.value is None
    choice = (
        fallback_choice(candidates, brief.rules, spec.schema_, spec.seed)
        if fell_back or outcome.value is None
        else outcome.value
    )
    if not fell_back:
        # a rule the wording reads is mapped as it reads (tested phrase by phrase); the
        # model's mapping stays for the rest. Railway's 1.5B had "scheduled or delayed, while
        # seats_sold is below the train's capacity" as status = 'scheduled' alone.
        read = fallback_choice(candidates, brief.rules, spec.schema_, spec.seed).rules
        by_wording = {m.rule for m in read}
        model = [m for m in choice.rules if m.rule not in by_wording]
        choice = choice.model_copy(update={"rules": [*model, *read]})
    choice = topped_up(
        choice, fallback_choice(candidates, [], spec.schema_, spec.seed), brief, spec
    )
    out = realise(choice, candidates, brief.rules, spec)
    if fell_back:
        out.fell_back = True
        detail = outcome.rejection.detail if outcome.rejection else ""
        out.dropped.insert(
            0, Rejection(stage=STAGE, reason=GeneratorReason.FELL_BACK_TO_CATALOGUE, detail=detail)
        )
    return out
