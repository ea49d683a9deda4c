"""A railway schema whose rules read rows the operation does not name (the trip's train,
the ticket's trip), with a small seed: the rule mapping's test bed for conditions across
foreign keys. The clock is the spec's default, 2025-01-15T10:00:00."""

from __future__ import annotations

from pathlib import Path

from generators.toolkit import schema_tools
from toolscale.brief import load_brief
from toolscale.schema import Schema
from toolscale.spec import EnvironmentSpec

BRIEF = Path(__file__).parents[2] / "domains" / "railway" / "brief.yaml"


def col(name: str, type_: str) -> dict:
    return {"name": name, "type": type_, "nullable": False}


def fk(column: str, table: str) -> dict:
    return {"columns": [column], "ref_table": table, "ref_columns": [column]}


def bed(name: str, schema: dict, seed: dict) -> EnvironmentSpec:
    """A test bed's spec: its schema, its seed and the schema-derived lookups."""
    parsed = Schema.model_validate(schema)
    return EnvironmentSpec(name=name, schema_=parsed, seed=seed, tools=schema_tools(parsed))


def brief_rules(domain: str) -> list[str]:
    """The rules of a domain's brief, as the test beds read them."""
    return load_brief(Path(__file__).parents[2] / "domains" / domain / "brief.yaml").rules


SCHEMA = {
    "tables": [
        {
            "name": "trains",
            "columns": [
                col("train_id", "integer"),
                col("name", "text"),
                col("capacity", "integer"),
                col("has_first_class", "boolean"),
            ],
            "primary_key": ["train_id"],
        },
        {
            "name": "trips",
            "columns": [
                col("trip_id", "integer"),
                col("train_id", "integer"),
                col("status", "text"),
                col("seats_sold", "integer"),
                col("seats", "integer"),
                col("departure_time", "datetime"),
            ],
            "primary_key": ["trip_id"],
            "foreign_keys": [fk("train_id", "trains")],
            "checks": ["status IN ('scheduled', 'delayed', 'cancelled')"],
        },
        {
            "name": "passengers",
            "columns": [col("passenger_id", "integer"), col("name", "text"), col("email", "text")],
            "primary_key": ["passenger_id"],
        },
        {
            "name": "tickets",
            "columns": [
                col("ticket_id", "integer"),
                col("passenger_id", "integer"),
                col("trip_id", "integer"),
                col("status", "text"),
                col("price", "real"),
            ],
            "primary_key": ["ticket_id"],
            "foreign_keys": [fk("passenger_id", "passengers"), fk("trip_id", "trips")],
            "checks": ["status IN ('active', 'refunded')", "price >= 0"],
        },
    ]
}

SEED = {
    "trains": [
        {"train_id": 1, "name": "Coastal", "capacity": 2, "has_first_class": True},
        {"train_id": 2, "name": "Valley", "capacity": 300, "has_first_class": False},
    ],
    "trips": [
        {
            "trip_id": 10,
            "train_id": 1,
            "status": "scheduled",
            "seats_sold": 2,
            "seats": 2,
            "departure_time": "2025-01-20T09:15:00",
        },  # full
        {
            "trip_id": 11,
            "train_id": 2,
            "status": "delayed",
            "seats_sold": 5,
            "seats": 300,
            "departure_time": "2025-01-16T08:00:00",
        },
        {
            "trip_id": 12,
            "train_id": 2,
            "status": "cancelled",
            "seats_sold": 0,
            "seats": 300,
            "departure_time": "2025-01-18T08:00:00",
        },
        {
            "trip_id": 13,
            "train_id": 2,
            "status": "scheduled",
            "seats_sold": 7,
            "seats": 1,
            "departure_time": "2025-01-10T08:00:00",
        },  # gone
    ],
    "passengers": [
        {"passenger_id": 50, "name": "Ines Duarte", "email": "ines@example.com"},
        {"passenger_id": 51, "name": "Tom Berg", "email": "tom@example.com"},
    ],
    "tickets": [
        *(
            {
                "ticket_id": 900 + i,
                "passenger_id": 50,
                "trip_id": 11,
                "status": "active",
                "price": 40.0,
            }
            for i in range(4)
        ),
        {"ticket_id": 904, "passenger_id": 51, "trip_id": 11, "status": "active", "price": 40.0},
        {"ticket_id": 905, "passenger_id": 51, "trip_id": 13, "status": "active", "price": 25.0},
        {"ticket_id": 906, "passenger_id": 51, "trip_id": 12, "status": "active", "price": 25.0},
    ],
}


def railway_spec() -> EnvironmentSpec:
    schema = Schema.model_validate(SCHEMA)
    return EnvironmentSpec(name="railway", schema_=schema, seed=SEED, tools=schema_tools(schema))


def railway_rules() -> list[str]:
    return load_brief(BRIEF).rules


def seated(seats_per_trip: int = 5, slots: bool = False) -> EnvironmentSpec:
    """Trips 1 to 6 (with the seats sold where `slots`), each with tickets for seats 1 to
    `seats_per_trip` and one bag each: a trip's seats kept apart, bags shared."""
    trip_columns = [col("trip_id", "integer")] + ([col("seats_sold", "integer")] if slots else [])
    schema = {
        "tables": [
            {"name": "trips", "columns": trip_columns, "primary_key": ["trip_id"]},
            {
                "name": "tickets",
                "columns": [
                    col("ticket_id", "integer"),
                    col("trip_id", "integer"),
                    col("seat_number", "integer"),
                    col("bags", "integer"),
                ],
                "primary_key": ["ticket_id"],
                "foreign_keys": [fk("trip_id", "trips")],
            },
        ]
    }
    tickets = [
        {"ticket_id": 100 + 10 * t + s, "trip_id": t, "seat_number": s + 1, "bags": 1}
        for t in range(1, 7)
        for s in range(seats_per_trip)
    ]
    sold = {"seats_sold": seats_per_trip} if slots else {}
    seed = {"trips": [{"trip_id": t} | sold for t in range(1, 7)], "tickets": tickets}
    return bed("railway", schema, seed)
