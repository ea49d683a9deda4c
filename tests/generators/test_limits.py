"""Seed rows within the count limits the writes guard: weather's seed on 369ec82 held 12
(region, alert type) pairs with two or more active alerts against "only one alert with
status active of the same alert_type at a time"."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from generators.environment import EnvironmentStages, kept
from generators.limits import Limit, covered, guarded_moves, keep, limit_of, limits
from tests.conftest import write_tool
from tests.generators.test_reach import banked
from toolscale.environment import Environment
from toolscale.llm.ledger import Ledger
from toolscale.spec import EnvironmentSpec
from toolscale.store import DomainStore
from toolscale.tool import RequireStep, ToolCall

CARDS = "at most 2 cards with status = 'active' per account_id"
CARD_RULE = (
    "A card can only be issued on an active account, and an account holds at most 2 cards "
    "with status active."
)


# an order item moved to another order (ecommerce's move_order_item)
ITEM_MOVE = write_tool(
    "move_order_item",
    "UPDATE order_items SET order_id = :new_order_id WHERE order_item_id = :order_item_id",
    order_item_id="integer",
    new_order_id="integer",
)


def keys(spec: EnvironmentSpec) -> dict[str, str]:
    return {t.name: t.primary_key[0] for t in spec.schema_.tables if len(t.primary_key) == 1}


def active_cards(seed: dict) -> Counter[str]:
    return Counter(c["account_id"] for c in seed["cards"] if c["status"] == "active")


def test_a_step_that_counts_by_equalities_is_a_limit() -> None:
    alerts = (
        "SELECT COUNT(*) + 1 <= 1 AS within_limit FROM alerts WHERE region_id = :region_id "
        "AND status = 'active' AND alert_type = :alert_type"
    )
    assert limit_of(alerts) == Limit(
        "alerts", 1, ("region_id", "alert_type"), (("status", "active"),)
    )
    email = (
        "SELECT COUNT(*) + 1 <= 5 AS within_limit FROM subscriptions WHERE 1 = 1 AND "
        "status = 'active' AND email = :email"
    )
    assert str(limit_of(email)) == "at most 5 subscriptions with status = 'active' per email"
    # a move's step reads a subquery, a found step counts no group, a count of every row
    # leaves no value to move a row out of
    move = (
        "SELECT COUNT(*) + (SELECT COUNT(*) FROM alerts WHERE alert_id = :alert_id) <= 1 AS "
        "within_limit FROM alerts WHERE region_id = :new_region_id AND alert_type = "
        "(SELECT alert_type FROM alerts WHERE alert_id = :alert_id)"
    )
    found = "SELECT COUNT(*) > 0 AS found FROM regions WHERE region_id = :region_id"
    every = "SELECT COUNT(*) + 1 <= 3 AS within_limit FROM cards WHERE account_id = :account_id"
    assert [limit_of(s) for s in (move, found, every)] == [None, None, None]


def test_rows_past_a_limit_are_moved_to_an_ended_state() -> None:
    spec = banked()
    assert CARDS in [str(x) for x in limits(spec.tools)]
    before = active_cards(spec.seed)
    over = {a: n for a, n in before.items() if n > 2}
    assert over  # the bed's plan drew up to 4 active cards on one account
    found = keep(spec)
    after = active_cards(found.seed)
    assert max(after.values()) == 2
    assert sum(before.values()) - sum(after.values()) == sum(n - 2 for n in over.values())
    moved = found.moved[CARDS]
    assert len(moved) == sum(n - 2 for n in over.values())
    assert all(line.endswith("status active -> blocked") for line in moved)
    # the first two of each account stay active; no other row changes
    for old, new in zip(spec.seed["cards"], found.seed["cards"], strict=True):
        if old != new:
            assert old["account_id"] in over and new == old | {"status": "blocked"}
    assert spec.seed["cards"] != found.seed["cards"] and keep(spec).seed == found.seed
    # the account that held 4 holds 2: a new card there is refused, as the rule says
    fullest = max(over, key=lambda a: over[a])
    card = {
        "network": "visa",
        "last4": "1234",
        "daily_spend_limit": 500,
        "expires_on": "2028-01-31",
    }
    create = ToolCall(name="create_card", arguments={"account_id": fullest} | card)
    with Environment(spec.model_copy(update={"seed": found.seed})) as env:
        assert after[fullest] == 2 and not env.replay([create]).results[0].ok
        one = create.model_copy(update={"arguments": create.arguments | {"account_id": "A20001"}})
        assert after["A20001"] == 1 and env.replay([one]).results[0].ok


def test_a_row_moved_to_a_settled_state_owes_nothing() -> None:
    spec = banked()
    loans = spec.seed["loans"]
    second = loans[0] | {"loan_id": "L4999", "outstanding": 999.5}  # C1001's second active loan
    spec = spec.model_copy(update={"seed": spec.seed | {"loans": [*loans, second]}})
    found = keep(spec)
    assert found.moved["at most 1 loans with status = 'active' per client_id"] == [
        "loans L4999: status active -> paid_off"
    ]
    assert found.seed["loans"][-1] == second | {"status": "paid_off", "outstanding": 0.0}
    assert found.seed["loans"][0] == loans[0]
    with Environment(spec.model_copy(update={"seed": found.seed})):
        pass  # the moved rows still pass the DDL's CHECKs on load


def test_the_environment_stage_counts_and_tells_what_it_moved(tmp_path: Path) -> None:
    lines: list[str] = []
    stages = EnvironmentStages(
        store=DomainStore(tmp_path, "finance"), ledger=Ledger(), tell=lines.append
    )
    spec = kept(banked(), stages)
    assert max(active_cards(spec.seed).values()) == 2
    row = stages.rows["limits"]
    assert (row.seen, row.passed) == (2, 1)  # the loans were within theirs
    assert lines == [lines[0]] and lines[0].startswith(f"limits: {CARDS}: 8 rows moved out of it: ")
    assert lines[0].endswith("; 5 more")


def test_a_create_that_wants_none_before_leaves_at_most_one() -> None:
    """Basketball's "a player can be signed only if the player has no contract with status
    active" (`COUNT(*) + 0 <= 0` on create_contract): after it the player holds one."""
    sql = (
        "SELECT COUNT(*) + 0 <= 0 AS within_limit FROM contracts WHERE player_id = :player_id "
        "AND status = 'active'"
    )
    wanted = Limit("contracts", 1, ("player_id",), (("status", "active"),))
    assert limit_of(sql, {"status": "'active'"}) == wanted
    assert limit_of(sql) is None  # a step of a tool that makes no contract says no limit
    # "no new contract while one is disputed", beside a create of an active one, says no
    # limit on disputed ones (from the review of 369ec82..5318624)
    disputed = sql.replace("'active'", "'disputed'")
    assert limit_of(disputed, {"status": "'active'"}) is None


def test_a_move_into_a_counted_state_asks_the_limit_too() -> None:
    """Basketball's activate_contract (from suspended) gave a player a fifth active contract
    (basketball-intent-00028 on 277c846): the limit was asked only by create_contract."""
    spec = banked()
    tools, given = guarded_moves(spec.tools, keys(spec))
    # the count, then the account's state (the next test)
    assert [(g.tool, g.check) for g in given] == [("activate_card", CARD_RULE)] * 2
    activate = next(t for t in tools if t.name == "activate_card")
    assert "COUNT(*) + 1 <= 2" in activate.require[given[0].step or 0].sql
    assert guarded_moves(tools, keys(spec))[1] == []  # given once
    spec = spec.model_copy(update={"tools": tools, "seed": keep(spec).seed})
    full, room = ("K30040", "A20080"), ("K30086", "A20182")  # frozen, beside 2 and 1 active
    with Environment(spec) as env:
        for (card, account), ok in ((full, False), (room, True)):
            assert active_cards(spec.seed)[account] == (2 if not ok else 1)
            done = env.replay([ToolCall(name="activate_card", arguments={"card_id": card})])
            assert done.results[0].ok is ok, done.results[0].error
            assert ok or done.results[0].error == CARD_RULE
    # the rule's coverage names the new step beside the create's
    rule = next(r for r in covered(spec.rules, given) if r.rule == CARD_RULE)
    assert ("activate_card", given[0].step) in [(e.tool, e.step) for e in rule.enforced_by]
    assert ("create_card", 3) in [(e.tool, e.step) for e in rule.enforced_by]


def test_a_move_into_the_state_a_create_makes_asks_the_creates_steps_on_its_parents() -> None:
    """finance-intent-00007 on 0ee2fcd activated a frozen card of a closed account, where
    create_card (which makes a card active) reads "a card can only be issued on an active
    account": the activation now reads the card's account the same way."""
    spec = banked()
    tools, given = guarded_moves(spec.tools, keys(spec))
    activate = next(t for t in tools if t.name == "activate_card")
    step = activate.require[given[1].step or 0]
    assert step.sql == (
        "SELECT status IN ('active') AS ok FROM accounts WHERE account_id = "
        "(SELECT account_id FROM cards WHERE card_id = :card_id)"
    )
    assert step.error == CARD_RULE
    # the create's lookup of the account and its value check on a new card are not carried
    before = len(next(t for t in spec.tools if t.name == "activate_card").require)
    assert len(activate.require) == before + 2
    accounts = [
        a | {"status": "frozen"} if a["account_id"] == "A20182" else a
        for a in spec.seed["accounts"]
    ]
    spec = spec.model_copy(update={"tools": tools, "seed": spec.seed | {"accounts": accounts}})
    call = ToolCall(name="activate_card", arguments={"card_id": "K30086"})  # frozen, on A20182
    with Environment(spec) as env:
        assert env.replay([call]).results[0].error == CARD_RULE
    thawed = spec.model_copy(update={"seed": banked().seed})
    with Environment(thawed) as env:
        assert env.replay([call]).results[0].ok


def test_a_creates_step_on_its_own_table_is_not_carried_to_a_move() -> None:
    """A create's "no such enrollment yet" (`COUNT(*) = 0 ... FROM enrollments`) asked of the
    row a move reactivates would count that row itself and refuse every move (from the
    review of 369ec82..5318624). A stamp set beside the state is still a move into it."""
    unique = (
        "SELECT COUNT(*) = 0 AS unique_pair FROM enrollments WHERE student_id = :student_id "
        "AND course_id = :course_id"
    )
    active = "SELECT status IN ('active') AS ok FROM students WHERE student_id = :student_id"
    create = write_tool(
        "create_enrollment",
        "INSERT INTO enrollments (enrollment_id, student_id, course_id, status) "
        "VALUES (:_new_id, :student_id, :course_id, 'active')",
        ((unique, "Only once per course."), (active, "Only an active student.")),
        student_id="integer",
        course_id="integer",
    )
    activate = write_tool(
        "activate_enrollment",
        "UPDATE enrollments SET status = 'active', activated_at = :_now "
        "WHERE enrollment_id = :enrollment_id",
        enrollment_id="integer",
    )
    tools, given = guarded_moves([create, activate], {"enrollments": "enrollment_id"})
    assert [(g.tool, g.check) for g in given] == [
        ("activate_enrollment", "Only an active student.")
    ]
    assert tools[1].require[-1].sql == (
        "SELECT status IN ('active') AS ok FROM students WHERE student_id = "
        "(SELECT student_id FROM enrollments WHERE enrollment_id = :enrollment_id)"
    )
    # a change of rows by another column than the key is no change of one row
    bulk = activate.model_copy(
        update={"run": ["UPDATE enrollments SET status = 'active' WHERE student_id = :student_id"]}
    )
    assert guarded_moves([create, bulk], {"enrollments": "enrollment_id"})[1] == []


def test_a_value_a_write_adds_to_keeps_to_the_bound_its_create_reads() -> None:
    """ecommerce-intent-00066 on 6c5d348: `topup_return_quantity` raised a return of 23 to
    39 on an order item of 23 bought, where `create_return` read "A return quantity cannot
    exceed the quantity bought on that order item"."""
    bound = (
        "SELECT :quantity <= 1.0 * quantity AS ok FROM order_items "
        "WHERE order_item_id = :order_item_id"
    )
    rule = "A return quantity cannot exceed the quantity bought on that order item."
    create = write_tool(
        "create_return",
        "INSERT INTO returns (return_id, order_item_id, status, quantity) "
        "VALUES (:_new_id, :order_item_id, 'open', :quantity)",
        ((bound, rule),),
        order_item_id="integer",
        quantity="integer",
    )
    topup = write_tool(
        "topup_return_quantity",
        "UPDATE returns SET quantity = quantity + :amount WHERE return_id = :return_id",
        return_id="integer",
        amount="integer",
    )
    row = "(SELECT {} FROM returns WHERE return_id = :return_id)"
    tools, given = guarded_moves([create, topup], {"returns": "return_id"})
    assert [(g.tool, g.check) for g in given] == [("topup_return_quantity", rule)]
    assert tools[1].require[-1].sql == (
        f"SELECT ({row.format('quantity')} + :amount) <= 1.0 * quantity AS ok FROM order_items "
        f"WHERE order_item_id = {row.format('order_item_id')}"
    )
    # a write that sets no value by an amount is given nothing
    close = write_tool(
        "close_return",
        "UPDATE returns SET status = 'closed' WHERE return_id = :return_id",
        return_id="integer",
    )
    assert guarded_moves([create, close], {"returns": "return_id"})[1] == []


def test_a_rule_barring_any_change_of_a_record_goes_to_every_write_that_changes_it() -> None:
    """travel-intent-00059 on 0651c04: "A flight booking with fare_class basic_economy
    cannot be changed or refunded" was mapped onto the moves and the refund, and
    `add_flight_booking_checked_bags` added bags to a basic_economy booking."""
    rule = "A flight booking with fare_class basic_economy cannot be changed or refunded."
    barred = (
        "SELECT fare_class <> 'basic_economy' AS ok FROM flights WHERE flight_id = "
        "(SELECT flight_id FROM flight_bookings WHERE flight_booking_id = :flight_booking_id)"
    )
    keys = {"flight_bookings": "flight_booking_id", "flights": "flight_id"}
    move = write_tool(
        "move_flight_booking_customer_id",
        "UPDATE flight_bookings SET customer_id = :new_customer_id "
        "WHERE flight_booking_id = :flight_booking_id",
        ((barred, rule),),
        flight_booking_id="integer",
        new_customer_id="integer",
    )
    bags = write_tool(
        "add_flight_booking_checked_bags",
        "UPDATE flight_bookings SET checked_bags = checked_bags + :bags "
        "WHERE flight_booking_id = :flight_booking_id",
        flight_booking_id="integer",
        bags="integer",
    )
    cancel = write_tool(
        "cancel_flight_booking",
        "UPDATE flight_bookings SET status = 'cancelled' "
        "WHERE flight_booking_id = :flight_booking_id",
        flight_booking_id="integer",
    )
    delay = write_tool(
        "delay_flight",
        "UPDATE flights SET departs_at = :departs_at WHERE flight_id = :flight_id",
        flight_id="integer",
        departs_at="string",
    )
    tools, given = guarded_moves([move, bags, cancel, delay], keys)
    assert [(g.tool, g.check) for g in given] == [("add_flight_booking_checked_bags", rule)]
    assert tools[1].require[-1].sql == barred
    # cancelling is an operation of its own, and a flight is another record
    assert tools[2:] == [cancel, delay]
    # a status change of many statements is one too (ecommerce's cancel_order restocks)
    seat = "UPDATE flights SET seats = seats + 1 WHERE flight_id = 1"
    restocking = cancel.model_copy(update={"run": [*cancel.run, seat]})
    assert guarded_moves([move, restocking], keys)[1] == []
    # a rule of a field ("the shipping address ... can be changed") is not the record's
    address = (barred, "The customer of a flight booking can be changed only before departure.")
    owner = move.model_copy(update={"require": [RequireStep(sql=address[0], error=address[1])]})
    assert guarded_moves([owner, bags], keys)[1] == []
    # a rule of one operation ("cannot be moved") is that operation's
    moved = write_tool(
        "move_flight_booking_customer_id",
        move.run[0],
        ((barred, "A basic_economy flight booking cannot be moved to another customer."),),
        flight_booking_id="integer",
        new_customer_id="integer",
    )
    assert guarded_moves([moved, bags], keys)[1] == []


def test_a_part_of_a_record_sent_out_or_ended_is_not_changed() -> None:
    """ecommerce on c379f84 topped up and moved quantities of items of delivered orders
    (00082, 00097, 00109, 00113, 00125). An order item is a part of its order: a write
    that changes one, by its key under any name, asks that the order be neither sent out
    nor ended."""
    from tests.generators.ecommerce import ecommerce_spec
    from toolscale.environment import Environment

    spec = ecommerce_spec()
    keys = {"order_items": "order_item_id", "orders": "order_id"}
    topup = write_tool(
        "topup_order_item_quantity",
        "UPDATE order_items SET quantity = quantity + :amount WHERE order_item_id = :order_item_id",
        order_item_id="integer",
        amount="integer",
    )
    take = write_tool(
        "take_quantity",
        "UPDATE order_items SET quantity = quantity - :amount "
        "WHERE order_item_id = :from_order_item_id",
        from_order_item_id="integer",
        amount="integer",
    )
    tools, given = guarded_moves([topup, take], keys, spec.schema_)
    why = (
        "An order item of an order that is paid, shipped, delivered or cancelled cannot be changed."
    )
    assert [(g.tool, g.check) for g in given] == [(topup.name, why), (take.name, why)]
    assert (
        tools[1]
        .require[-1]
        .sql.endswith(
            "WHERE order_id = (SELECT order_id FROM order_items "
            "WHERE order_item_id = :from_order_item_id)"
        )
    )
    with Environment(spec.model_copy(update={"tools": [*spec.tools, *tools]})) as env:
        sent = env.step(ToolCall(name=topup.name, arguments={"order_item_id": 402, "amount": 1}))
        assert sent.error == why  # item 402 is of order 301, shipped
        env.reset()
        held = env.step(ToolCall(name=topup.name, arguments={"order_item_id": 400, "amount": 1}))
        assert held.ok, held.error  # of order 300, pending
    # a part's own state may still move: an item of a delivered order cancelled, a
    # booking of a cancelled flight refunded
    cancel = write_tool(
        "cancel_order_item",
        "UPDATE order_items SET status = 'cancelled' WHERE order_item_id = :order_item_id",
        order_item_id="integer",
    )
    assert guarded_moves([cancel], keys, spec.schema_)[1] == []
    # a part moved off its parent may leave an ended one (it goes only into an open one:
    # test_a_part_moved_to_another_parent_goes_only_where_a_new_one_could)
    move = ITEM_MOVE
    assert [g.check for g in guarded_moves([move], keys, spec.schema_)[1]] == [INTO_SENT]
    # given again, the steps bring nothing new: read back as a rule barring any change of
    # an item, the first pass's step went to the move too (travel on d25e859)
    once, _ = guarded_moves([topup, take, move], keys, spec.schema_)
    assert guarded_moves(once, keys, spec.schema_)[1] == []
    # without the schema, nothing is known of parts
    assert guarded_moves([topup, take], keys)[1] == []


INTO_SENT = "No order item can be added to an order that is paid, shipped, delivered or cancelled."


def test_a_part_moved_to_another_parent_goes_only_where_a_new_one_could() -> None:
    """ecommerce's move_order_item (tools of d3bc077) moved an item of a pending order into
    a shipped one (00169), where create_order_item refused to add one there. The new parent
    is asked what a create asks of it; the old one may be over (an item leaves a shipped
    order)."""
    from tests.generators.ecommerce import ecommerce_spec

    spec = ecommerce_spec()
    keys = {"order_items": "order_item_id", "orders": "order_id"}
    move = ITEM_MOVE
    tools, given = guarded_moves([move], keys, spec.schema_)
    assert [(g.tool, g.check) for g in given] == [(move.name, INTO_SENT)]
    assert tools[0].require[-1].sql.endswith("FROM orders WHERE order_id = :new_order_id")
    with Environment(spec.model_copy(update={"tools": [*spec.tools, *tools]})) as env:
        into = env.step(
            ToolCall(name=move.name, arguments={"order_item_id": 400, "new_order_id": 301})
        )
        assert into.error == INTO_SENT  # order 301 is shipped
        env.reset()
        out = env.step(
            ToolCall(name=move.name, arguments={"order_item_id": 402, "new_order_id": 300})
        )
        assert out.ok, out.error  # off shipped order 301, into pending order 300
