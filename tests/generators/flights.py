"""A travel schema (flights) as the 1.5B model's proposal came out after completion: the fare class
is the flight's, and a flight booking points to its flight and its customer. Flight 20 is
scheduled (basic economy), 21 cancelled (business class); booking 30 is of flight 20, 31
of flight 21, both booked long before the clock (2025-01-15T10:00:00); booking 32 is of
flight 20, booked 3 hours before it."""

from __future__ import annotations

from tests.generators.railway import bed, brief_rules, col, fk
from toolscale.spec import EnvironmentSpec

SCHEMA = {
    "tables": [
        {
            "name": "customers",
            "columns": [col("customer_id", "integer"), col("name", "text"), col("email", "text")],
            "primary_key": ["customer_id"],
        },
        {
            "name": "flights",
            "columns": [
                col("flight_id", "integer"),
                col("status", "text"),
                col("seats_available", "integer"),
                col("fare_class", "text"),
            ],
            "primary_key": ["flight_id"],
            "checks": [
                "status IN ('scheduled', 'cancelled')",
                "fare_class IN ('basic_economy', 'business_class')",
            ],
        },
        {
            "name": "flight_bookings",
            "columns": [
                col("flight_booking_id", "integer"),
                col("customer_id", "integer"),
                col("flight_id", "integer"),
                col("status", "text"),
                col("booked_at", "datetime"),
            ],
            "primary_key": ["flight_booking_id"],
            "foreign_keys": [fk("customer_id", "customers"), fk("flight_id", "flights")],
            "checks": ["status IN ('active', 'cancelled')"],
        },
    ]
}

SEED = {
    "customers": [{"customer_id": 1, "name": "Ann Lee", "email": "ann@example.com"}],
    "flights": [
        {
            "flight_id": 20,
            "status": "scheduled",
            "seats_available": 5,
            "fare_class": "basic_economy",
        },
        {
            "flight_id": 21,
            "status": "cancelled",
            "seats_available": 9,
            "fare_class": "business_class",
        },
    ],
    "flight_bookings": [
        {
            "flight_booking_id": 30,
            "customer_id": 1,
            "flight_id": 20,
            "status": "active",
            "booked_at": "2024-12-01T09:00:00",
        },
        {
            "flight_booking_id": 31,
            "customer_id": 1,
            "flight_id": 21,
            "status": "active",
            "booked_at": "2024-12-01T09:00:00",
        },
        {
            "flight_booking_id": 32,
            "customer_id": 1,
            "flight_id": 20,
            "status": "active",
            "booked_at": "2025-01-15T07:00:00",
        },
    ],
}


def flights_spec() -> EnvironmentSpec:
    return bed("travel", SCHEMA, SEED)


def flights_rules() -> list[str]:
    return brief_rules("travel")
