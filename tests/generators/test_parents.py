"""Seed rows under a parent in the state their create asks: ecommerce's seed on 369ec82
held 151 of its 178 returns on orders never delivered, where create_return read "only a
delivered order can be returned"."""

from __future__ import annotations

import copy
from pathlib import Path

from generators.environment import EnvironmentStages, placed
from generators.parents import asked, place
from tests.conftest import write_tool
from tests.generators.ecommerce import SCHEMA, SEED
from tests.generators.railway import bed
from toolscale.environment import Environment
from toolscale.llm.ledger import Ledger
from toolscale.schema import Column
from toolscale.spec import EnvironmentSpec
from toolscale.store import DomainStore
from toolscale.tool import ToolCall

DELIVERED = "Only a delivered order can be returned."
OPEN = "Items can be added only to a pending order."


def shop() -> EnvironmentSpec:
    """Orders 300 (pending, with items), 301 (shipped), 302 (cancelled) and 303 (delivered
    on 2025-01-12), each with a return; a create of a return asks a delivered order, a
    create of an item a pending one."""
    base = {"customer_id": 1, "placed_at": "2025-01-10T09:00:00", "shipping_address": "1 Elm"}
    seed = copy.deepcopy(SEED)
    seed["orders"] = [
        base | {"order_id": key, "status": status, "delivered_at": at}
        for key, status, at in (
            (300, "pending", None),
            (301, "shipped", None),
            (302, "cancelled", None),
            (303, "delivered", "2025-01-12T15:00:00"),
        )
    ]
    seed["order_items"] += [
        {"order_item_id": 403, "order_id": 302, "product_id": 10, "quantity": 1},
        {"order_item_id": 404, "order_id": 303, "product_id": 10, "quantity": 1},
    ]
    seed["returns"] = [
        {"return_id": 500 + i, "order_id": order, "order_item_id": item, "quantity": 1}
        for i, (order, item) in enumerate(((300, 400), (301, 402), (302, 403), (303, 404)))
    ]
    ask = "SELECT status = '{}' AS ok FROM orders WHERE order_id = :order_id"
    returns = write_tool(
        "create_return",
        "INSERT INTO returns (return_id, order_id, order_item_id, quantity) "
        "VALUES (:_new_id, :order_id, :order_item_id, :quantity)",
        ((ask.format("delivered"), DELIVERED),),
        order_id="integer",
        order_item_id="integer",
        quantity="integer",
    )
    items = write_tool(
        "add_order_item",
        "INSERT INTO order_items (order_item_id, order_id, product_id, quantity) "
        "VALUES (:_new_id, :order_id, :product_id, :quantity)",
        ((ask.format("pending"), OPEN),),
        order_id="integer",
        product_id="integer",
        quantity="integer",
    )
    spec = bed("shop", SCHEMA, seed)
    schema = spec.schema_.model_copy(deep=True)
    schema.table("orders").columns.append(Column(name="delivered_at", type="datetime"))
    return spec.model_copy(update={"schema_": schema, "tools": [*spec.tools, returns, items]})


def test_a_parent_is_moved_into_the_state_its_childs_create_asks() -> None:
    spec = shop()
    assert [str(a) for a in asked(spec, spec.tools)] == [
        "create_return: orders.status in (delivered)",
        "add_order_item: orders.status in (pending)",
    ]
    found = place(spec)
    orders = {o["order_id"]: o for o in found.seed["orders"]}
    # shipped, never delivered: moved, and given the delivered moment of a delivered order
    assert orders[301]["status"] == "delivered"
    assert orders[301]["delivered_at"] == "2025-01-12T15:00:00"
    assert found.moved == {
        "create_return: orders.status in (delivered)": ["orders 301: status shipped -> delivered"]
    }
    # pending with items that ask it pending: moving it would break them, so it stays
    assert orders[300]["status"] == "pending"
    assert found.held == {"create_return: orders.status in (delivered)": 1}
    # cancelled since: history, left and counted; so are the items of orders that moved on
    # from pending (shipped, cancelled, delivered): no state comes before a pending one
    assert orders[302]["status"] == "cancelled"
    assert found.history == {
        "create_return: orders.status in (delivered)": 1,
        "add_order_item: orders.status in (pending)": 3,
    }
    # no other row changes, the input is not touched, and the same spec gives the same seed
    assert {k: v for k, v in found.seed.items() if k != "orders"} == {
        k: v for k, v in spec.seed.items() if k != "orders"
    }
    assert spec.seed["orders"][1]["status"] == "shipped" and place(spec).seed == found.seed
    with Environment(spec.model_copy(update={"seed": found.seed})) as env:
        back = ToolCall(
            name="create_return", arguments={"order_id": 301, "order_item_id": 402, "quantity": 1}
        )
        assert env.replay([back]).results[0].ok  # the rule now holds of the seed it reads


def test_a_parent_whose_state_records_a_column_no_row_gives_is_not_moved() -> None:
    spec = shop()
    seed = copy.deepcopy(spec.seed)
    seed["orders"] = [o for o in seed["orders"] if o["status"] != "delivered"]
    seed["order_items"] = [i for i in seed["order_items"] if i["order_id"] != 303]
    seed["returns"] = [r for r in seed["returns"] if r["order_id"] != 303]
    schema = spec.schema_.model_copy(deep=True)
    schema.table("orders").column("delivered_at").nullable = False
    orders = seed["orders"]
    for order in orders:
        order["delivered_at"] = "2025-01-11T10:00:00"  # a NOT NULL column, in every state
    bare = spec.model_copy(update={"seed": seed, "schema_": schema})
    assert place(bare).moved == {}  # no delivered order gives the moment it must hold


def test_the_environment_stage_counts_and_tells_what_it_moved(tmp_path: Path) -> None:
    lines: list[str] = []
    stages = EnvironmentStages(
        store=DomainStore(tmp_path, "shop"), ledger=Ledger(), tell=lines.append
    )
    spec = placed(shop(), stages)
    assert {o["order_id"]: o["status"] for o in spec.seed["orders"]}[301] == "delivered"
    row = stages.rows["parents"]
    assert (row.seen, row.passed) == (2, 1)  # the items' ask held already
    assert lines == [
        "parents: create_return: orders.status in (delivered): 1 parents moved into it: "
        "orders 301: status shipped -> delivered; 1 left in a state that is history; "
        "1 left where another create asks the state they hold",
        "parents: add_order_item: orders.status in (pending): 0 parents moved into it; "
        "3 left in a state that is history",
    ]
