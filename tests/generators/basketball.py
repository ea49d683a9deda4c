"""A basketball schema for the league's rules: the Hawks (cap 100) pay 60 in active
contracts, the Owls (cap 50) none; Kai plays for the Hawks on an active contract, Lee is a
free agent. Game 20 is scheduled with 2 of 3 tickets sold; game 21 has finished."""

from __future__ import annotations

from tests.generators.railway import bed, brief_rules, col, fk
from toolscale.spec import EnvironmentSpec

SCHEMA = {
    "tables": [
        {
            "name": "teams",
            "columns": [col("team_id", "integer"), col("name", "text"), col("salary_cap", "real")],
            "primary_key": ["team_id"],
        },
        {
            "name": "players",
            "columns": [
                col("player_id", "integer"),
                col("name", "text"),
                col("team_id", "integer"),
            ],
            "primary_key": ["player_id"],
            "foreign_keys": [fk("team_id", "teams")],
        },
        {
            "name": "contracts",
            "columns": [
                col("contract_id", "integer"),
                col("player_id", "integer"),
                col("team_id", "integer"),
                col("yearly_salary", "real"),
                col("status", "text"),
            ],
            "primary_key": ["contract_id"],
            "foreign_keys": [fk("player_id", "players"), fk("team_id", "teams")],
            "checks": ["status IN ('active', 'expired')"],
        },
        {
            "name": "games",
            "columns": [
                col("game_id", "integer"),
                col("status", "text"),
                {"name": "home_score", "type": "integer", "nullable": True},
                {"name": "away_score", "type": "integer", "nullable": True},
                col("capacity", "integer"),
                col("tickets_sold", "integer"),
            ],
            "primary_key": ["game_id"],
            "checks": ["status IN ('scheduled', 'postponed', 'finished')"],
        },
        {
            "name": "tickets",
            "columns": [
                col("ticket_id", "integer"),
                col("game_id", "integer"),
                col("status", "text"),
            ],
            "primary_key": ["ticket_id"],
            "foreign_keys": [fk("game_id", "games")],
            "checks": ["status IN ('sold', 'refunded')"],
        },
    ]
}

SEED = {
    "teams": [
        {"team_id": 1, "name": "Hawks", "salary_cap": 100.0},
        {"team_id": 2, "name": "Owls", "salary_cap": 50.0},
    ],
    "players": [
        {"player_id": 10, "name": "Kai", "team_id": 1},
        {"player_id": 11, "name": "Lee", "team_id": 2},
    ],
    "contracts": [
        {
            "contract_id": 30,
            "player_id": 10,
            "team_id": 1,
            "yearly_salary": 60.0,
            "status": "active",
        }
    ],
    "games": [
        {
            "game_id": 20,
            "status": "scheduled",
            "home_score": None,
            "away_score": None,
            "capacity": 3,
            "tickets_sold": 2,
        },
        {
            "game_id": 21,
            "status": "finished",
            "home_score": 90,
            "away_score": 80,
            "capacity": 3,
            "tickets_sold": 0,
        },
    ],
    "tickets": [{"ticket_id": 50, "game_id": 20, "status": "sold"}],
}


def basketball_spec() -> EnvironmentSpec:
    return bed("basketball", SCHEMA, SEED)


def basketball_rules() -> list[str]:
    return brief_rules("basketball")
