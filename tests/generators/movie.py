"""A movie schema for the cinema rules: a showtime added only for a movie now showing, on a
screen with no other showtime at that time; a free ticket redeemed for loyalty points;
bookings made for a showtime. Screen 1 has a showtime at 2025-01-20T18:00 (Dune, rated
PG), screen 2 one at 21:00 (Alien, rated R); Heat (R) has ended; Mia (born 1990) has 250
points, Sam (born 2010) 40. The clock is 2025-01-15T10:00:00."""

from __future__ import annotations

import copy

from tests.generators.railway import bed, col, fk
from toolscale.spec import EnvironmentSpec

SCHEMA = {
    "tables": [
        {
            "name": "movies",
            "columns": [
                col("movie_id", "integer"),
                col("title", "text"),
                col("status", "text"),
                col("age_rating", "text"),
            ],
            "primary_key": ["movie_id"],
            "checks": ["status IN ('now_showing', 'ended')", "age_rating IN ('PG', 'R')"],
        },
        {
            "name": "screens",
            "columns": [col("screen_id", "integer"), col("capacity", "integer")],
            "primary_key": ["screen_id"],
        },
        {
            "name": "showtimes",
            "columns": [
                col("showtime_id", "integer"),
                col("movie_id", "integer"),
                col("screen_id", "integer"),
                col("start_time", "datetime"),
            ],
            "primary_key": ["showtime_id"],
            "foreign_keys": [fk("movie_id", "movies"), fk("screen_id", "screens")],
        },
        {
            "name": "customers",
            "columns": [
                col("customer_id", "integer"),
                col("name", "text"),
                col("email", "text"),
                col("loyalty_points", "integer"),
                col("birth_date", "date"),
            ],
            "primary_key": ["customer_id"],
        },
        {
            "name": "bookings",
            "columns": [
                col("booking_id", "integer"),
                col("customer_id", "integer"),
                col("showtime_id", "integer"),
                col("seats", "integer"),
                col("status", "text"),
            ],
            "primary_key": ["booking_id"],
            "foreign_keys": [fk("customer_id", "customers"), fk("showtime_id", "showtimes")],
            "checks": ["status IN ('confirmed', 'cancelled')"],
        },
    ]
}

BOOKINGS = [
    {"booking_id": 70, "customer_id": 5, "showtime_id": 10, "seats": 2, "status": "confirmed"}
]
SEED = {
    "movies": [
        {"movie_id": 1, "title": "Dune", "status": "now_showing", "age_rating": "PG"},
        {"movie_id": 2, "title": "Heat", "status": "ended", "age_rating": "R"},
        {"movie_id": 3, "title": "Alien", "status": "now_showing", "age_rating": "R"},
    ],
    "screens": [{"screen_id": 1, "capacity": 80}, {"screen_id": 2, "capacity": 40}],
    "showtimes": [
        {"showtime_id": 10, "movie_id": 1, "screen_id": 1, "start_time": "2025-01-20T18:00:00"},
        {"showtime_id": 11, "movie_id": 3, "screen_id": 2, "start_time": "2025-01-20T21:00:00"},
    ],
    "customers": [
        {
            "customer_id": 5,
            "name": "Mia Chen",
            "email": "mia@example.com",
            "loyalty_points": 250,
            "birth_date": "1990-04-02",
        },
        {
            "customer_id": 6,
            "name": "Sam Ode",
            "email": "sam@example.com",
            "loyalty_points": 40,
            "birth_date": "2010-06-30",
        },
    ],
    "bookings": BOOKINGS,
}


def movie_spec() -> EnvironmentSpec:
    return bed("movie", SCHEMA, SEED)


SEATS = (
    "A booking needs a showtime in the future, and the seats already booked plus the new "
    "seats cannot exceed the screen's capacity."
)
SLOT = (
    "A showtime can only be added for a movie with status now_showing, on a screen that "
    "has no other showtime starting at the same time."
)


def booked_beside(showtime: int, seats: int, status: str) -> EnvironmentSpec:
    """The bed with one more booking (71, Sam's) of `seats` on `showtime`."""
    more = {"booking_id": 71, "customer_id": 6, "showtime_id": showtime, "seats": seats}
    seed = copy.deepcopy(SEED)
    seed["bookings"] = [*BOOKINGS, more | {"status": status}]
    return bed("movie", SCHEMA, seed)
