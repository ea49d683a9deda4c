"""A travel schema for rules between a call's own parameters ("a hotel booking's check_out
date must be after its check_in date") and on the date a new row is for ("only for future
dates"), with a small seed: the Harbor Inn has rooms, the Dune Lodge none; Leo Hart has
missed three bookings. The clock is 2025-01-15T10:00:00."""

from __future__ import annotations

from tests.generators.railway import bed, col, fk
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
            "name": "hotels",
            "columns": [
                col("hotel_id", "integer"),
                col("name", "text"),
                col("rooms_available", "integer"),
            ],
            "primary_key": ["hotel_id"],
        },
        {
            "name": "hotel_bookings",
            "columns": [
                col("booking_id", "integer"),
                col("customer_id", "integer"),
                col("hotel_id", "integer"),
                col("check_in_date", "date"),
                col("check_out_date", "date"),
                col("status", "text"),
            ],
            "primary_key": ["booking_id"],
            "foreign_keys": [fk("customer_id", "customers"), fk("hotel_id", "hotels")],
            "checks": ["status IN ('booked', 'cancelled')"],
        },
    ]
}

SEED = {
    "customers": [
        {"customer_id": 1, "name": "Ava Stone", "email": "ava@example.com", "no_shows": 0},
        {"customer_id": 2, "name": "Leo Hart", "email": "leo@example.com", "no_shows": 3},
    ],
    "hotels": [
        {"hotel_id": 20, "name": "Harbor Inn", "rooms_available": 4},
        {"hotel_id": 21, "name": "Dune Lodge", "rooms_available": 0},
    ],
    "hotel_bookings": [
        {
            "booking_id": 500,
            "customer_id": 1,
            "hotel_id": 20,
            "check_in_date": "2025-02-01",
            "check_out_date": "2025-02-03",
            "status": "booked",
        }
    ],
}


def travel_spec() -> EnvironmentSpec:
    return bed("travel", SCHEMA, SEED)
