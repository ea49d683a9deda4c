"""A restaurant schema for the brief's reservation rules: table 3 seats four and has a
booked reservation on 2025-01-20 at 19:00; Rosa has no no-shows. The clock is
2025-01-15T10:00:00."""

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
                col("no_shows", "integer"),
            ],
            "primary_key": ["customer_id"],
        },
        {
            "name": "dining_tables",
            "columns": [col("table_id", "integer"), col("seats", "integer")],
            "primary_key": ["table_id"],
        },
        {
            "name": "reservations",
            "columns": [
                col("reservation_id", "integer"),
                col("customer_id", "integer"),
                col("table_id", "integer"),
                col("party_size", "integer"),
                col("date", "date"),
                col("time_slot", "text"),
                col("status", "text"),
            ],
            "primary_key": ["reservation_id"],
            "foreign_keys": [fk("customer_id", "customers"), fk("table_id", "dining_tables")],
            "checks": ["status IN ('booked', 'seated', 'cancelled')"],
        },
    ]
}

SEED = {
    "customers": [
        {"customer_id": 1, "name": "Rosa Diaz", "email": "rosa@example.com", "no_shows": 0}
    ],
    "dining_tables": [{"table_id": 3, "seats": 4}],
    "reservations": [
        {
            "reservation_id": 90,
            "customer_id": 1,
            "table_id": 3,
            "party_size": 2,
            "date": "2025-01-20",
            "time_slot": "19:00",
            "status": "booked",
        },
        {
            "reservation_id": 91,
            "customer_id": 1,
            "table_id": 3,
            "party_size": 2,
            "date": "2025-01-14",
            "time_slot": "13:00",
            "status": "seated",
        },
    ],
}


def restaurant_spec() -> EnvironmentSpec:
    return bed("restaurant", SCHEMA, SEED)


def restaurant_rules() -> list[str]:
    return brief_rules("restaurant")
