"""An e-commerce schema for rules that move stock and read an order's items: the lamp has
3 in stock; order 300 (pending) holds 2 lamps and 1 mug, order 301 has shipped and
holds item 402 of 2 mugs."""

from __future__ import annotations

from tests.generators.railway import bed, brief_rules, col, fk
from toolscale.spec import EnvironmentSpec

SCHEMA = {
    "tables": [
        {
            "name": "customers",
            "columns": [
                col("customer_id", "integer"),
                col("name", "text"),
                col("email", "text"),
                col("status", "text"),
            ],
            "primary_key": ["customer_id"],
            "checks": ["status IN ('active', 'suspended')"],
        },
        {
            "name": "products",
            "columns": [col("product_id", "integer"), col("name", "text"), col("stock", "integer")],
            "primary_key": ["product_id"],
        },
        {
            "name": "orders",
            "columns": [
                col("order_id", "integer"),
                col("customer_id", "integer"),
                col("status", "text"),
                col("placed_at", "datetime"),
                col("shipping_address", "text"),
            ],
            "primary_key": ["order_id"],
            "foreign_keys": [fk("customer_id", "customers")],
            "checks": ["status IN ('pending', 'paid', 'shipped', 'delivered', 'cancelled')"],
        },
        {
            "name": "order_items",
            "columns": [
                col("order_item_id", "integer"),
                col("order_id", "integer"),
                col("product_id", "integer"),
                col("quantity", "integer"),
            ],
            "primary_key": ["order_item_id"],
            "foreign_keys": [fk("order_id", "orders"), fk("product_id", "products")],
        },
        {
            "name": "returns",
            "columns": [
                col("return_id", "integer"),
                col("order_id", "integer"),
                col("order_item_id", "integer"),
                col("quantity", "integer"),
            ],
            "primary_key": ["return_id"],
            "foreign_keys": [fk("order_id", "orders"), fk("order_item_id", "order_items")],
        },
    ]
}


def _order(key: int, status: str) -> dict:
    return {
        "order_id": key,
        "customer_id": 1,
        "status": status,
        "placed_at": "2025-01-10T09:00:00",
        "shipping_address": "1 Elm St",
    }


def _item(key: int, order: int, product: int, quantity: int) -> dict:
    return {"order_item_id": key, "order_id": order, "product_id": product, "quantity": quantity}


SEED = {
    "customers": [
        {"customer_id": 1, "name": "Ivy Park", "email": "ivy@example.com", "status": "active"}
    ],
    "products": [
        {"product_id": 10, "name": "Lamp", "stock": 3},
        {"product_id": 11, "name": "Mug", "stock": 20},
    ],
    "orders": [_order(300, "pending"), _order(301, "shipped")],
    "order_items": [_item(400, 300, 10, 2), _item(401, 300, 11, 1), _item(402, 301, 11, 2)],
    "returns": [],
}


def ecommerce_spec() -> EnvironmentSpec:
    return bed("ecommerce", SCHEMA, SEED)


def ecommerce_rules() -> list[str]:
    return brief_rules("ecommerce")
