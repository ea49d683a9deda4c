"""Travel's "free checked bags ... are 2 for gold members, 1 for silver and 0 for regular;
each extra bag costs 50": no refusal enforces it, and on 277c846 no tool did (5 of 6 rules).
The adding of bags must charge for those beyond the owner's tier."""

from __future__ import annotations

from pathlib import Path

import pytest

from generators.allowances import allowance_said, charges, settled
from generators.catalogue import fallback_choice, realise
from generators.patterns import catalogue
from generators.policy import tau2_policy
from generators.schema import ColumnProposal, SchemaProposal, TableProposal, completed, to_schema
from tests.generators.railway import bed, brief_rules, col, fk
from toolscale.brief import brief_path, load_brief
from toolscale.environment import Environment
from toolscale.schema import Scalar
from toolscale.tool import ToolCall

BAGS = brief_rules("travel")[3]


def test_an_allowance_rule_is_read_whole_or_not_at_all() -> None:
    allowance = allowance_said(BAGS)
    assert allowance is not None
    assert allowance.thing == "checked bags" and allowance.record == "flight booking"
    assert allowance.per == "passenger" and allowance.price == 50
    assert allowance.free == {"gold": 2, "silver": 1, "regular": 0}
    assert (allowance.column, allowance.fee_column) == ("checked_bags", "bag_fees")
    # no price for what goes beyond: nothing to charge, so no allowance
    assert allowance_said("Free checked bags are 2 for gold members and 1 for silver.") is None
    assert allowance_said("A flight booking with fare_class basic_economy is final.") is None


def test_the_schema_gets_the_count_its_charges_and_the_tiers() -> None:
    """Travel's 1.5B schema: a boolean `membership`, no bags on a flight booking."""
    tables = [
        TableProposal(name="customers", description="", columns=[
            ColumnProposal(name="customer_id", type="integer"),
            ColumnProposal(name="email", type="text"),
            ColumnProposal(name="membership", type="boolean"),
        ]),
        TableProposal(name="flight_bookings", description="", columns=[
            ColumnProposal(name="flight_booking_id", type="integer"),
            ColumnProposal(name="customer_id", type="integer"),
            ColumnProposal(name="status", type="text", values=["active", "cancelled"]),
        ]),
    ]  # fmt: skip
    done = to_schema(completed(SchemaProposal(tables=tables), [BAGS]))
    customers, bookings = done.table("customers"), done.table("flight_bookings")
    assert customers.column("membership").type == "text"
    assert customers.enum_values("membership") == ["gold", "silver", "regular"]
    assert bookings.column("checked_bags").type == "integer"
    assert bookings.column("bag_fees").type == "real"


SCHEMA = {
    "tables": [
        {
            "name": "customers",
            "columns": [col("customer_id", "integer"), col("membership", "text")],
            "primary_key": ["customer_id"],
            "checks": ["membership IN ('gold', 'silver', 'regular')"],
        },
        {
            "name": "flight_bookings",
            "columns": [
                col("flight_booking_id", "integer"),
                col("customer_id", "integer"),
                col("passengers", "integer"),
                col("checked_bags", "integer"),
                col("bag_fees", "real"),
                col("status", "text"),
            ],
            "primary_key": ["flight_booking_id"],
            "checks": ["status IN ('active', 'refunded')"],
            "foreign_keys": [fk("customer_id", "customers")],
        },
    ]
}
SEED: dict[str, list[dict[str, Scalar]]] = {
    "customers": [
        {"customer_id": 1, "membership": "gold"},
        {"customer_id": 2, "membership": "regular"},
        {"customer_id": 3, "membership": "silver"},
    ],
    "flight_bookings": [
        {"flight_booking_id": 900, "customer_id": 1, "passengers": 1, "checked_bags": 1,
         "bag_fees": 0.0, "status": "active"},
        {"flight_booking_id": 901, "customer_id": 2, "passengers": 1, "checked_bags": 0,
         "bag_fees": 0.0, "status": "active"},
        {"flight_booking_id": 902, "customer_id": 3, "passengers": 2, "checked_bags": 0,
         "bag_fees": 10.0, "status": "active"},
        {"flight_booking_id": 903, "customer_id": 1, "passengers": 1, "checked_bags": 0,
         "bag_fees": 0.0, "status": "refunded"},
    ],
}  # fmt: skip


@pytest.mark.parametrize("engine", ["sqlite", "duckdb"])
@pytest.mark.parametrize(
    ("booking", "amount", "bags", "fees"),
    [
        (900, 1, 2, 0.0),  # gold, 1 held: the second is free
        (900, 3, 4, 100.0),  # gold: 2 free, 2 beyond
        (901, 1, 1, 50.0),  # regular: none free
        (902, 3, 3, 60.0),  # silver, 2 passengers: 2 free, 1 beyond, on 10 already charged
    ],
)
def test_adding_bags_charges_for_each_beyond_the_tiers_allowance(
    engine: str, booking: int, amount: int, bags: int, fees: float
) -> None:
    spec = bed("travel", SCHEMA, SEED)
    charged = charges(spec.schema_, [BAGS])
    assert [c.id for c in charged] == ["charge:flight_bookings.checked_bags"]
    candidates = catalogue(spec.schema_, spec.seed, charged)
    choice = fallback_choice(candidates, [BAGS], spec.schema_, spec.seed)
    assert [m.candidate for m in choice.rules] == ["charge:flight_bookings.checked_bags"]
    made = realise(choice, candidates, [BAGS], spec)
    add = next(t for t in made.tools if t.name == "add_flight_booking_checked_bags")
    assert made.rules[0].enforced_by[0].tool == add.name  # the report counts it enforced
    env_spec = spec.model_copy(update={"tools": [*spec.tools, add]})
    with Environment(env_spec, engine=engine) as env:  # type: ignore[arg-type]
        result = env.step(ToolCall(name=add.name, arguments={"flight_booking_id": booking,
                                                             "bags": amount}))  # fmt: skip
        assert result.ok, result.error
        assert result.output == {
            "flight_booking_id": booking,
            "checked_bags": bags,
            "bag_fees": fees,
        }
        refused = env.step(ToolCall(name=add.name, arguments={"flight_booking_id": booking,
                                                              "bags": 0}))  # fmt: skip
        assert refused.error == "The bags must be > 0."
        # no bags on a booking that is over (travel-intent-00059 on 0651c04)
        over = env.step(ToolCall(name=add.name, arguments={"flight_booking_id": 903,
                                                           "bags": 1}))  # fmt: skip
        assert over.error == "A flight booking that is refunded cannot be added to."


def test_the_seeds_fees_are_what_the_rule_charges_for_the_bags_held() -> None:
    """Travel's plan drew `bag_fees` apart from `checked_bags` (167.58 for no bags, on
    7e55d3f): a record holds what adding its bags would have charged."""
    spec = bed("travel", SCHEMA, SEED)
    drawn = [{**b, "checked_bags": n, "bag_fees": 167.58} for b, n in
             zip(SEED["flight_bookings"][:3], (3, 2, 5), strict=True)]  # fmt: skip
    seed = settled({**SEED, "flight_bookings": drawn}, spec.schema_, [BAGS])
    # gold, 1 passenger: 3 held, 2 free; regular: 2 held, none free; silver, 2: 5 held, 2 free
    assert [b["bag_fees"] for b in seed["flight_bookings"]] == [50.0, 100.0, 150.0]
    assert [b["checked_bags"] for b in seed["flight_bookings"]] == [3, 2, 5]
    assert seed["customers"] == SEED["customers"]
    # no allowance rule: nothing is settled
    assert settled(SEED, spec.schema_, ["A flight booking can be cancelled."]) == SEED


@pytest.mark.parametrize("engine", ["sqlite", "duckdb"])
def test_a_new_record_starts_with_nothing_charged(engine: str) -> None:
    """Travel's create_flight_booking on f716f2d took the bag fees and the bags as its
    user said them (travel-intent-00002: "bag_fees=167.58" with no bags): what only the
    charging write changes starts at 0."""
    spec = bed("travel", SCHEMA, SEED)
    charged = charges(spec.schema_, [BAGS])
    assert charged[0].owns == ["checked_bags", "bag_fees"]
    made = {c.id: c for c in catalogue(spec.schema_, spec.seed, charged)}
    book = made["create:flight_bookings under customers"].tool
    assert set(book.parameters["properties"]) == {"customer_id", "passengers"}
    plain = {c.id: c for c in catalogue(spec.schema_, spec.seed)}  # no allowance rule
    assert (
        "bag_fees" in plain["create:flight_bookings under customers"].tool.parameters["properties"]
    )
    with Environment(spec.model_copy(update={"tools": [book]}), engine=engine) as env:  # type: ignore[arg-type]
        result = env.step(ToolCall(name=book.name, arguments={"customer_id": 2, "passengers": 1}))
        assert result.ok, result.error
        assert (result.output["checked_bags"], result.output["bag_fees"]) == (0, 0)


def test_the_policy_says_the_charge_as_done_not_as_a_refusal() -> None:
    """Listed among the reasons the tool refuses with, the bags rule would have the agent
    refuse an extra bag rather than charge for it."""
    spec = bed("travel", SCHEMA, SEED)
    charged = charges(spec.schema_, [BAGS])
    candidates = catalogue(spec.schema_, spec.seed, charged)
    made = realise(
        fallback_choice(candidates, [BAGS], spec.schema_, spec.seed), candidates, [BAGS], spec
    )
    brief = load_brief(brief_path(str(Path(__file__).parents[2] / "domains"), "travel"))
    policy = tau2_policy(brief, "You help travellers.", [*spec.tools, *made.tools], made.rules)
    section = policy.split("### add_flight_booking_checked_bags\n")[1].split("###")[0]
    refuses, done = section.split("Its write itself carries out:")
    assert BAGS not in refuses and f"- {BAGS}" in done
