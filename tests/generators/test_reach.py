"""Rows a write on one row can act on: finance's `close_account` ("only when its balance
is exactly 0") was refused on all 57 seed accounts, none of which held 0."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from generators.catalogue import fallback_choice, realise
from generators.environment import EnvironmentStages, reached
from generators.patterns import catalogue
from generators.reach import FEWEST, SHARE, reach
from tests.generators.finance import finance_brief
from tests.generators.school import school_rules, school_spec
from tests.generators.test_patterns import banking
from toolscale.environment import Environment
from toolscale.llm.ledger import Ledger
from toolscale.spec import EnvironmentSpec
from toolscale.store import DomainStore
from toolscale.tool import ToolCall


def banked() -> EnvironmentSpec:
    """The banking bed with every balance above 0, as finance's run had it."""
    spec, rules = banking(), finance_brief().rules
    accounts = [
        a if a["status"] == "closed" else a | {"balance": max(float(a["balance"] or 0), 10.0)}
        for a in spec.seed["accounts"]
    ]
    spec = spec.model_copy(update={"seed": spec.seed | {"accounts": accounts}})
    cands = catalogue(spec.schema_, spec.seed)
    out = realise(fallback_choice(cands, rules, spec.schema_, spec.seed), cands, rules, spec)
    return spec.model_copy(update={"tools": [*spec.tools, *out.tools], "rules": out.rules})


def closes(spec: EnvironmentSpec) -> list[str]:
    """The seed accounts `close_account` succeeds on."""
    out = []
    with Environment(spec) as env:
        for account in spec.seed["accounts"]:
            key = str(account["account_id"])
            call = ToolCall(name="close_account", arguments={"account_id": key})
            if env.replay([call]).results[0].ok:
                out.append(key)
    return out


def test_a_write_no_seed_row_lets_succeed_gets_rows_it_acts_on() -> None:
    spec = banked()
    assert closes(spec) == []
    found = reach(spec)
    given = spec.model_copy(update={"seed": found.seed})
    closed = closes(given)
    accounts = given.seed["accounts"]
    assert len(closed) == max(FEWEST, len(accounts) // SHARE)
    assert all(a["balance"] == 0 for a in accounts if a["account_id"] in closed)
    # only rows the other rules let close: open ones, never a closed account
    before = {a["account_id"]: a for a in spec.seed["accounts"]}
    assert all(before[k]["status"] in ("active", "frozen") for k in closed)
    # settle_loan asks for an outstanding of 0 (a debt is settled by a word only when it owes
    # nothing), which the bed's CHECK "(status = 'paid_off') = (outstanding = 0)" lets no
    # active loan hold: only a repayment settles one, and reach says so
    assert list(found.given) == ["close_account"] and found.unreached == ["settle_loan"]
    # the rest of the seed is as it was, and the run is repeatable
    changed = [a for a in accounts if a != before[a["account_id"]]]
    assert sorted(str(a["account_id"]) for a in changed) == sorted(closed)
    assert reach(spec).seed == found.seed
    assert reach(given).given == {}  # nothing more to do once it acts on some row


def test_a_write_no_value_can_let_succeed_is_named_unreached() -> None:
    """Weather's reactivation, allowed only from decommissioned and barred from it: no value
    of a column fixes a contradiction, so it is named, not mended."""
    spec = banked()
    account = next(t for t in spec.tools if t.name == "activate_account")
    stuck = account.model_copy(
        update={
            "require": [
                *account.require,
                account.require[1].model_copy(
                    update={"sql": account.require[1].sql.replace(" IN (", " NOT IN (")}
                ),
            ]
        }
    )
    tools = [stuck if t.name == "activate_account" else t for t in spec.tools]
    found = reach(spec.model_copy(update={"tools": tools}))
    assert "activate_account" in found.unreached and "activate_account" not in found.given


def test_a_write_that_needs_a_row_with_no_child_gets_rows_without_one() -> None:
    """School on a280d7e: "a student can drop a course only while the enrollment status is
    active and no grade has been recorded for it", and every one of the 193 enrollments had
    a grade: `drop_enrollment` succeeded on none. Active rows lose their grade; a dropped
    enrollment is not made active for it."""
    spec = school_spec()
    rule = school_rules()[5]
    cands = catalogue(spec.schema_, spec.seed)
    out = realise(fallback_choice(cands, [rule], spec.schema_, spec.seed), cands, [rule], spec)
    graded = [
        {"grade_id": 400 + i, "enrollment_id": e["enrollment_id"], "score": 80}
        for i, e in enumerate(spec.seed["enrollments"])
    ]
    spec = spec.model_copy(
        update={"tools": [*spec.tools, *out.tools], "seed": spec.seed | {"grades": graded}}
    )
    drop = ToolCall(name="drop_enrollment", arguments={"enrollment_id": 301})
    with Environment(spec) as env:
        assert env.replay([drop]).results[0].error == rule
    found = reach(spec)
    assert [g.split(":")[1] for g in found.given["drop_enrollment"]] == [" no grades"] * 2
    kept = {g["enrollment_id"] for g in found.seed["grades"]}
    freed = [e["enrollment_id"] for e in spec.seed["enrollments"] if e["enrollment_id"] not in kept]
    assert freed == [300, 301]  # the first two active ones; 302 is dropped already
    assert found.seed["enrollments"] == spec.seed["enrollments"]
    with Environment(spec.model_copy(update={"seed": found.seed})) as env:
        assert env.replay([drop]).results[0].ok


def test_the_environment_stage_counts_and_tells_what_it_gave(tmp_path: Path) -> None:
    lines: list[str] = []
    warned: list[tuple[str, str]] = []
    stages = EnvironmentStages(
        store=DomainStore(tmp_path, "finance"), ledger=Ledger(), tell=lines.append
    )
    spec = reached(banked(), stages, lambda head, detail: warned.append((head, detail)))
    # settle_loan, which no active loan can reach (the test above), is warned about
    assert closes(spec) and warned == [("reach: a write no seed row lets succeed", "settle_loan")]
    row = stages.rows["reach"]
    assert (row.seen, row.passed) == (2, 1)
    assert lines[0].startswith("reach: close_account acted on no seed row; ")
    assert lines[0].endswith(" more") and len(lines[0]) < 300  # a few rows named, not all


def test_a_date_asked_to_lie_within_days_of_now_is_given_to_a_few_rows() -> None:
    """Ecommerce's runs/ seed (tools of c1da9aa): "a return can be opened only ... within 30
    days of its delivered_date", and every delivered order lay 110 days or more behind the
    clock, so every return asked for was refused. A few rows are moved in time, every date
    of the row by the same days."""
    from tests.conftest import write_tool
    from tests.generators.railway import bed, col

    schema = {
        "tables": [
            {
                "name": "orders",
                "columns": [
                    col("order_id", "integer"),
                    col("placed_at", "datetime"),
                    {**col("delivered_date", "date"), "nullable": True},
                ],
                "primary_key": ["order_id"],
            }
        ]
    }
    rows = [
        {"order_id": k, "placed_at": f"2023-0{1 + k % 9}-10T08:30:00", "delivered_date": None}
        for k in range(1, 41)
    ]
    for row in rows[::2]:  # every other one delivered, four days after it was placed
        row["delivered_date"] = str(row["placed_at"])[:8] + "14"
    spec = bed("shop", schema, {"orders": rows})
    window = (
        "SELECT julianday(:_now) - julianday(delivered_date) <= 30 AS ok FROM orders "
        "WHERE order_id = :order_id",
        "A return can be opened only within 30 days of its delivered_date.",
    )
    opened = write_tool(
        "open_return",
        "UPDATE orders SET placed_at = placed_at WHERE order_id = :order_id",
        (window,),
        order_id="integer",
    )
    spec = spec.model_copy(update={"tools": [*spec.tools, opened], "clock": "2025-01-15T10:00:00"})
    found = reach(spec)
    moved = found.given["open_return"]
    assert len(moved) == FEWEST  # 20 delivered: one in SHARE, at least FEWEST
    assert moved[0] == "orders 1: delivered_date 2023-02-14 -> 2025-01-14"
    first = found.seed["orders"][0]
    assert first == {
        "order_id": 1,
        "placed_at": "2025-01-10T08:30:00",
        "delivered_date": "2025-01-14",
    }
    given = spec.model_copy(update={"seed": found.seed})
    with Environment(given) as env:
        ok = [
            r["order_id"]
            for r in rows
            if env.replay([ToolCall(name="open_return", arguments={"order_id": r["order_id"]})])
            .results[0]
            .ok
        ]
    assert len(ok) == FEWEST
    # no date moved past now: the second row, placed 2023-01-10T08:30, delivered on the 14th
    assert found.seed["orders"][20]["delivered_date"] == "2025-01-13"
    assert found.seed["orders"][20]["placed_at"] == "2025-01-09T08:30:00"
    # a date moved past now stops at now (ecommerce's order 35852 was updated at 20:00 on
    # the clock's day, whose time is 10:00), in the value's own form
    from generators.reach import _moved

    now, day = "2025-01-15T10:00:00", dt.date(2025, 1, 15)
    assert _moved("2023-11-17T20:00:00", day, now) == "2025-01-15T10:00:00"
    assert _moved("2023-11-17 20:00:00", day, now) == "2025-01-15 10:00:00"
    assert _moved("2023-11-17 08:00:00", day, now) == "2025-01-15 08:00:00"
    assert _moved("2023-11-18", day + dt.timedelta(days=1), now) == "2025-01-15"
    # a seed with a row within the window already is left as drawn
    assert "open_return" not in reach(given).given
