"""Refund schedules: railway's "the refund is the full price more than 24 hours before
departure, otherwise half the price" was enforced in part on every run up to 82a0e57 (its
1.5B tickets had no price, and the refund took no amount)."""

from __future__ import annotations

import pytest

from generators.catalogue import fallback_choice, realise
from generators.patterns import catalogue
from generators.refunds import Schedule, refunding, schedule_said, settled
from generators.schema import ColumnProposal, SchemaProposal, TableProposal, completed, to_schema
from tests.generators.railway import SCHEMA, SEED, bed, col, railway_rules
from toolscale.environment import Environment
from toolscale.schema import Scalar
from toolscale.tool import ToolCall

RULE = next(r for r in railway_rules() if "the refund is" in r)


def test_a_refund_schedule_is_read_from_its_rule() -> None:
    assert schedule_said(RULE) == Schedule(measure="price", hours=24, moment="departure", share=0.5)
    other = (
        "A booking can be refunded; the refund is the full fare if more than 2 days before "
        "the showtime's start_time, otherwise 25% of the fare."
    )
    assert schedule_said(other) == Schedule(
        measure="fare", hours=48, moment="start_time", share=0.25
    )
    assert schedule_said("A ticket can be refunded only before the trip's departure.") is None


def test_a_refunded_record_gets_the_price_and_the_amount_its_schedule_reads() -> None:
    """The 1.5B's tickets, as railway's had them: no price to give back, nowhere to keep it."""

    def table(name: str, *columns: str, values: tuple[str, ...] = ()) -> TableProposal:
        typed = [
            ColumnProposal(
                name=c,
                type="datetime" if c.endswith("_time") else "integer" if "_id" in c else "text",
                values=list(values) if c == "status" else [],
            )
            for c in columns
        ]
        return TableProposal(name=name, description="", columns=typed)

    tables = [
        table("passengers", "passenger_id", "name", "email"),
        table("trips", "trip_id", "departure_time", "status", values=("scheduled", "cancelled")),
        table("tickets", "ticket_id", "passenger_id", "trip_id", "status", values=("active",)),
    ]
    tickets = to_schema(completed(SchemaProposal(tables=tables), [RULE])).table("tickets")
    assert tickets.column_names[-2:] == ["price", "refund_amount"]
    assert tickets.enum_values("status") == ["active", "refunded"]
    assert tickets.state_of("refund_amount") == "refunded"
    assert tickets.column("refund_amount").nullable
    # a rule with no schedule adds neither
    plain = RULE.split(";")[0] + "."
    assert to_schema(completed(SchemaProposal(tables=tables), [plain])).table(
        "tickets"
    ).column_names == ["ticket_id", "passenger_id", "trip_id", "status"]


@pytest.mark.parametrize("engine", ["sqlite", "duckdb"])
def test_the_refund_works_its_amount_out_by_the_schedule(engine: str) -> None:
    """Under the clock 2025-01-15T10:00: trip 11 leaves on the 16th at 08:00 (22 hours), so
    half the price; trip 14 on the 20th, so all of it. No caller names the amount."""
    schema = {**SCHEMA, "tables": [dict(t) for t in SCHEMA["tables"]]}
    tickets = next(t for t in schema["tables"] if t["name"] == "tickets")
    tickets["columns"] = [*tickets["columns"], col("refund_amount", "real") | {"nullable": True}]
    seed = {k: [dict(r) for r in rows] for k, rows in SEED.items()}
    seed["trips"].append({**seed["trips"][0], "trip_id": 14})
    seed["tickets"].append({**seed["tickets"][0], "ticket_id": 907, "trip_id": 14})
    seed["tickets"] = [{**r, "refund_amount": None} for r in seed["tickets"]]
    spec = bed("railway", schema, seed)
    candidates = refunding(catalogue(spec.schema_, spec.seed), spec.schema_, [RULE])
    refund = next(c for c in candidates if c.sets == ("tickets", "status", "refunded"))
    assert list(refund.tool.parameters["properties"]) == ["ticket_id"]
    plain = catalogue(spec.schema_, spec.seed)
    assert (
        "refund_amount" in next(c for c in plain if c.id == refund.id).tool.parameters["properties"]
    )  # the caller named it before
    made = realise(
        fallback_choice(candidates, [RULE], spec.schema_, spec.seed), candidates, [RULE], spec
    )
    tool = next(t for t in made.tools if t.name == refund.tool.name)
    assert made.rules[0].enforced, made.rules[0]
    tools = [*spec.tools, *made.tools]
    with Environment(spec.model_copy(update={"tools": tools}), engine=engine) as env:  # type: ignore[arg-type]

        def refunded(ticket: int) -> object:
            env.reset()
            done = env.step(ToolCall(name=tool.name, arguments={"ticket_id": ticket}))
            assert done.error is None, done.error
            got = env.step(ToolCall(name="get_tickets", arguments={"ticket_id": ticket}))
            return got.output["refund_amount"]

        assert refunded(900) == 20.0  # 22 hours before: half of 40.00
        assert refunded(907) == 40.0  # 5 days before: all of it


def test_a_refunded_seed_record_holds_what_the_schedule_gives() -> None:
    schema = {**SCHEMA, "tables": [dict(t) for t in SCHEMA["tables"]]}
    tickets = next(t for t in schema["tables"] if t["name"] == "tickets")
    tickets["columns"] = [*tickets["columns"], col("refund_amount", "real") | {"nullable": True}]
    spec = bed("railway", schema, SEED)
    rows: list[dict[str, Scalar]] = [
        {"ticket_id": 1, "status": "refunded", "price": 40.0, "refund_amount": 75.5},
        {"ticket_id": 2, "status": "active", "price": 25.0, "refund_amount": None},
    ]
    out = settled({"tickets": rows}, spec.schema_, [RULE])["tickets"]
    assert [r["refund_amount"] for r in out] == [40.0, None]
