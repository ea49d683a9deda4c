"""Stage `outcome`: the state the gold leaves keeps what every seed row keeps."""

from __future__ import annotations

from tests.conftest import mini_task
from tests.generators.railway import seated
from toolscale.environment import Environment
from toolscale.spec import EnvironmentSpec
from toolscale.tool import Tool
from validators.outcome import taken
from validators.pipeline import verify

SELL = (
    "INSERT INTO tickets (ticket_id, trip_id, seat_number, bags) "
    "VALUES (:_new_id, :trip_id, :seat_number, :bags)"
)


def railway(seats_per_trip: int = 5, slots: bool = True) -> EnvironmentSpec:
    """The seated bed (`tests.generators.railway.seated`) and a tool that sells a ticket."""
    spec = seated(seats_per_trip, slots)
    params = {p: {"type": "integer"} for p in ("trip_id", "seat_number", "bags")}
    sell = Tool(
        name="create_ticket",
        description="Sell a ticket.",
        kind="write",
        parameters={"type": "object", "properties": params, "required": list(params)},
        run=[SELL],
        returns="SELECT * FROM tickets WHERE ticket_id = :_new_id",
        single=True,
    )
    return spec.model_copy(update={"tools": [*spec.tools, sell]})


def sold(spec: EnvironmentSpec, trip: int, seat: int) -> str:
    call = {"name": "create_ticket", "arguments": {"trip_id": trip, "seat_number": seat, "bags": 1}}
    task = mini_task(instruction=f"Sell me seat {seat} on trip {trip}.", gold_calls=[call])
    with Environment(spec) as env:
        return taken(env, env.replay(task.gold_calls))


def test_a_new_row_that_takes_a_number_its_parents_rows_keep_apart_is_taken_value() -> None:
    """railway-intent-00032 on a4b9fc9 sold seat 445 of trip 31079, which ticket 51352 held
    (and 00044, 00063 the same way)."""
    spec = railway()
    assert sold(spec, 2, 3) == (
        "the gold makes ticket 1000000 with seat_number 3 under trip_id 2, which ticket 122 "
        "holds; no two seed tickets under one trip_id share a seat_number"
    )
    assert sold(spec, 2, 6) == ""  # a free seat
    # the bags every ticket shares are no number kept apart; nor are seats where too few
    # pairs tell (2 tickets a trip: 6 pairs, under APART_PAIRS)
    assert sold(railway(seats_per_trip=2), 2, 2) == ""
    # where the parent holds no places, its children's numbers differ by chance (from the
    # review of 369ec82..5318624: a passenger's tickets, a team's games)
    assert sold(railway(slots=False), 2, 3) == ""
    # through the pipeline, with its stage and reason
    call = {"name": "create_ticket", "arguments": {"trip_id": 2, "seat_number": 3, "bags": 1}}
    told = [{"call": 0, "path": "ticket_id"}]
    ask = "Sell me seat 3 on trip 2 and tell me the ticket id."
    task = mini_task(instruction=ask, gold_calls=[call], communicate=told)
    _, rejected, _ = verify(spec, [task], cross_engine=False)
    assert [(r.stage, r.reason) for r in rejected] == [("outcome", "taken_value")]
