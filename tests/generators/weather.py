"""A weather schema for subscriptions counted by their email, whoever holds them: ana@ has
two active subscriptions (north, south) and a cancelled one (east)."""

from __future__ import annotations

from tests.generators.railway import bed, brief_rules, col, fk
from toolscale.spec import EnvironmentSpec

SCHEMA = {
    "tables": [
        {
            "name": "regions",
            "columns": [col("region_id", "integer"), col("name", "text")],
            "primary_key": ["region_id"],
        },
        {
            "name": "subscriptions",
            "columns": [
                col("subscription_id", "integer"),
                col("region_id", "integer"),
                col("email", "text"),
                col("status", "text"),
            ],
            "primary_key": ["subscription_id"],
            "foreign_keys": [fk("region_id", "regions")],
            "checks": ["status IN ('active', 'cancelled')"],
        },
    ]
}


def _sub(key: int, region: int, status: str) -> dict:
    return {"subscription_id": key, "region_id": region, "email": "ana@x.org", "status": status}


SEED = {
    "regions": [
        {"region_id": 1, "name": "north"},
        {"region_id": 2, "name": "south"},
        {"region_id": 3, "name": "east"},
        {"region_id": 4, "name": "west"},
    ],
    "subscriptions": [_sub(10, 1, "active"), _sub(11, 2, "active"), _sub(12, 3, "cancelled")],
}


def weather_spec() -> EnvironmentSpec:
    return bed("weather", SCHEMA, SEED)


def weather_rules() -> list[str]:
    return brief_rules("weather")
