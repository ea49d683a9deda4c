"""The value flow of a call sequence: which calls repeat and which reads nothing uses."""

from __future__ import annotations

from toolscale.dataflow import avoidable_reads, repeated_call, useless_reads, value_key
from toolscale.tool import ToolCall, ToolResult


def _calls(*specs: tuple[str, dict]) -> list[ToolCall]:
    return [ToolCall(name=n, arguments=a) for n, a in specs]


def _ok(*outputs: object) -> list[ToolResult]:
    return [ToolResult(ok=True, output=o) for o in outputs]


def is_write(name: str) -> bool:
    return name.startswith("set_")


def test_value_key_meets_as_a_person_would() -> None:
    assert value_key(1) == value_key(1.0) == value_key(True)
    assert value_key("Active") == value_key("active") and value_key("a") != value_key("b")
    assert value_key("Canceled") == value_key("cancelled")  # medicine on 6789a02: 'canceled'


def test_a_repeat_counts_only_while_nothing_was_written() -> None:
    read = ("get", {"id": 1})
    calls = _calls(read, ("set_status", {"id": 1, "status": "x"}), read, read)
    results = _ok({"id": 1}, {"id": 1}, {"id": 1}, {"id": 1})
    assert repeated_call(calls, results, is_write) == 3
    assert repeated_call(calls[:3], results[:3], is_write) is None


def test_reads_that_feed_an_argument_or_a_told_value_are_used() -> None:
    calls = _calls(
        ("find", {"email": "a@b.c"}),  # brings id 7, which the write takes
        ("get_note", {"id": 7}),  # told to the user
        ("get_other", {"id": 9}),  # nothing uses it
        ("set_status", {"id": 7, "status": "x"}),
    )
    results = _ok({"id": 7}, {"note": "n"}, {"id": 9, "v": 3}, {"id": 7})
    said = "I am a@b.c"
    assert useless_reads(calls, results, is_write, said, {1}, check_before_write=False) == [2]
    # a value the user said is no news: finding it does not make the read useful
    assert useless_reads(
        calls, results, is_write, "I am a@b.c, id 7", {1}, check_before_write=False
    ) == [0, 2]


def test_a_read_of_what_the_next_write_touches_is_its_check() -> None:
    calls = _calls(("get", {"id": 7}), ("set_status", {"id": 7, "status": "x"}))
    results = _ok({"id": 7, "status": "y"}, {"id": 7})
    assert useless_reads(calls, results, is_write, "id 7", set(), check_before_write=True) == []
    assert useless_reads(calls, results, is_write, "id 7", set(), check_before_write=False) == [0]
    assert avoidable_reads(calls, results, is_write, "id 7", []) == [0]


def test_a_listing_that_shows_the_row_the_write_acts_on_is_its_check() -> None:
    """Finance's gold found the user, listed their loans and repaid the loan 58949 the user
    named: the listing shows it is theirs, as the policy asks (6 of 25 proposals were lost
    as unused_read). A listing of other rows (the client's cards) is no such check."""
    find = ("find", {"email": "a@b.c"})
    loans = ("list_loans", {"client_id": 1})
    repay = ("set_repaid", {"loan_id": 58949})
    rows = [{"loan_id": 58948, "client_id": 1}, {"loan_id": 58949, "client_id": 1}]
    said = "I am a@b.c, loan 58949"
    results = _ok({"client_id": 1}, rows, {"loan_id": 58949})
    calls = _calls(find, loans, repay)
    assert useless_reads(calls, results, is_write, said, set(), check_before_write=True) == []
    assert useless_reads(calls, results, is_write, said, set(), check_before_write=False) == [1]
    cards = ("list_cards", {"client_id": 1})
    results = _ok({"client_id": 1}, [{"card_id": 5, "client_id": 1}], {"loan_id": 58949})
    calls = _calls(find, cards, repay)
    assert useless_reads(calls, results, is_write, said, set(), check_before_write=True) == [1]


def test_a_told_value_an_earlier_output_gave_is_avoidable() -> None:
    calls = _calls(("list", {"owner": 1}), ("get", {"id": 7}))
    results = _ok([{"id": 7, "balance": 5}], {"id": 7, "balance": 5})
    told = [(0, "0.balance"), (1, "balance")]
    assert avoidable_reads(calls, results, is_write, "owner 1, id 7", told) == [1]


def test_a_find_brings_what_an_earlier_row_only_pointed_to() -> None:
    """travel-intent-00030 on d7b1bec listed the user's bookings (one at hotel 38582), then
    found "Marshall-King" (38582) to move another booking there: the listing does not say
    which hotel 38582 is, so the find is no idle read. A row's own key already shown is."""
    calls = _calls(
        ("list_bookings", {"customer_id": 1}),
        ("find_hotel", {"name": "Marshall-King"}),
        ("set_hotel", {"booking_id": 5, "new_hotel_id": 38582}),
    )
    bookings = [{"booking_id": 5, "hotel_id": 10}, {"booking_id": 6, "hotel_id": 38582}]
    results = _ok(bookings, {"hotel_id": 38582, "name": "Marshall-King"}, {"booking_id": 5})
    said = "Move my booking 5 to Marshall-King."
    assert useless_reads(calls, results, is_write, said, set(), check_before_write=False) == []
    hotels = [{"hotel_id": 38582, "name": "Marshall-King"}]
    shown = _ok(hotels, {"hotel_id": 38582, "name": "Marshall-King"}, {"booking_id": 5})
    assert useless_reads(calls, shown, is_write, said, set(), check_before_write=False) == [1]


def test_a_new_rows_field_is_not_the_field_of_the_row_it_points_to() -> None:
    """basketball on 9cd916d: a new ticket's row holds its game's key, and "gold call 3
    tells games.status = 'active', read before a later write made it 'scheduled'" was said
    of the ticket's own status (the write had raised the game's tickets sold)."""
    from tests.generators.railway import col, fk
    from toolscale.dataflow import stale_told
    from toolscale.schema import Schema
    from toolscale.task import OutputRef

    games = {"name": "games", "columns": [col("game_id", "integer"), col("status", "text")]}
    ticket_columns = [col("ticket_id", "integer"), col("game_id", "integer"), col("status", "text")]
    schema = Schema.model_validate(
        {
            "tables": [
                games | {"primary_key": ["game_id"]},
                {"name": "tickets", "columns": ticket_columns, "primary_key": ["ticket_id"]}
                | {"foreign_keys": [fk("game_id", "games")]},
            ]
        }
    )
    calls = _calls(("sell", {"game_id": 4}), ("set_status", {"game_id": 4}))
    new_ticket = {"ticket_id": 9, "game_id": 4, "status": "active"}
    told = [OutputRef(call=0, path="status")]

    def stale(changes: dict) -> str | None:
        return stale_told(told, calls, _ok(new_ticket, None), changes, schema, is_write)

    assert stale({"games": {(4,): (4, "scheduled")}}) is None
    assert stale({"tickets": {(9,): (9, 4, "void")}}) == (
        "gold call 0 tells tickets.status = 'active', read before a later write made it 'void'"
    )
