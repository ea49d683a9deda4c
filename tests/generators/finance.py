# ruff: noqa: E501  (the seed rows read best one per line)
"""A finance schema as a model plausibly writes one for domains/finance/brief.yaml, with a
small seed: the catalogue's second test bed beside the banking fixture."""

from __future__ import annotations

from pathlib import Path

from toolscale.brief import Brief, load_brief
from toolscale.schema import Schema
from toolscale.spec import EnvironmentSpec
from toolscale.tool import Tool

BRIEF = Path(__file__).parents[2] / "domains" / "finance" / "brief.yaml"


def col(name: str, type_: str, nullable: bool = False) -> dict:
    return {"name": name, "type": type_, "nullable": nullable}


SCHEMA = {
    "tables": [
        {
            "name": "clients",
            "columns": [
                col("client_id", "integer"),
                col("full_name", "text"),
                col("email", "text"),
                col("annual_income", "real"),
            ],
            "primary_key": ["client_id"],
        },
        {
            "name": "accounts",
            "columns": [
                col("account_id", "integer"),
                col("client_id", "integer"),
                col("balance", "real"),
                col("status", "text"),
                col("opened_on", "date"),
            ],
            "primary_key": ["account_id"],
            "foreign_keys": [
                {"columns": ["client_id"], "ref_table": "clients", "ref_columns": ["client_id"]}
            ],
            "checks": ["balance >= 0", "status IN ('active', 'frozen', 'closed')"],
        },
        {
            "name": "cards",
            "columns": [
                col("card_id", "integer"),
                col("account_id", "integer"),
                col("status", "text"),
                col("frozen_reason", "text", nullable=True),
                col("issued_on", "date"),
            ],
            "primary_key": ["card_id"],
            "foreign_keys": [
                {"columns": ["account_id"], "ref_table": "accounts", "ref_columns": ["account_id"]}
            ],
            "checks": ["status IN ('active', 'frozen')"],
        },
        {
            "name": "transfers",
            "columns": [
                col("transfer_id", "integer"),
                col("from_account_id", "integer"),
                col("to_account_id", "integer"),
                col("amount", "real"),
                col("created_at", "datetime"),
            ],
            "primary_key": ["transfer_id"],
            "foreign_keys": [
                {
                    "columns": ["from_account_id"],
                    "ref_table": "accounts",
                    "ref_columns": ["account_id"],
                },
                {
                    "columns": ["to_account_id"],
                    "ref_table": "accounts",
                    "ref_columns": ["account_id"],
                },
            ],
        },
        {
            "name": "loans",
            "columns": [
                col("loan_id", "integer"),
                col("client_id", "integer"),
                col("amount", "real"),
                col("outstanding", "real"),
                col("status", "text"),
                col("opened_on", "date"),
            ],
            "primary_key": ["loan_id"],
            "foreign_keys": [
                {"columns": ["client_id"], "ref_table": "clients", "ref_columns": ["client_id"]}
            ],
            "checks": ["outstanding >= 0", "status IN ('active', 'closed')"],
        },
    ]
}

SEED: dict[str, list[dict]] = {
    "clients": [
        {"client_id": 1, "full_name": "Ada Byron", "email": "ada@example.com", "annual_income": 50000.0},
        {"client_id": 2, "full_name": "Alan Turing", "email": "alan@example.com", "annual_income": 8000.0},
        {"client_id": 3, "full_name": "Grace Hopper", "email": "grace@example.com", "annual_income": 90000.0},
    ],
    "accounts": [
        {"account_id": 10, "client_id": 1, "balance": 2500.0, "status": "active", "opened_on": "2020-01-01"},
        {"account_id": 11, "client_id": 1, "balance": 300.0, "status": "active", "opened_on": "2021-05-01"},
        {"account_id": 12, "client_id": 2, "balance": 0.0, "status": "active", "opened_on": "2022-02-02"},
        {"account_id": 13, "client_id": 2, "balance": 900.0, "status": "frozen", "opened_on": "2019-03-03"},
        {"account_id": 14, "client_id": 3, "balance": 15000.0, "status": "active", "opened_on": "2018-07-07"},
    ],
    "cards": [
        {"card_id": 100, "account_id": 10, "status": "active", "frozen_reason": None, "issued_on": "2023-01-01"},
        {"card_id": 101, "account_id": 10, "status": "active", "frozen_reason": None, "issued_on": "2023-02-01"},
        {"card_id": 102, "account_id": 11, "status": "frozen", "frozen_reason": "stolen", "issued_on": "2023-03-01"},
        {"card_id": 103, "account_id": 14, "status": "frozen", "frozen_reason": "lost", "issued_on": "2023-04-01"},
    ],
    "transfers": [
        {"transfer_id": 500, "from_account_id": 10, "to_account_id": 11, "amount": 100.0, "created_at": "2024-12-01T09:00:00"},
    ],
    "loans": [
        {"loan_id": 700, "client_id": 1, "amount": 10000.0, "outstanding": 4000.0, "status": "active", "opened_on": "2022-01-01"},
        {"loan_id": 701, "client_id": 3, "amount": 5000.0, "outstanding": 0.0, "status": "closed", "opened_on": "2020-01-01"},
        {"loan_id": 702, "client_id": 2, "amount": 3000.0, "outstanding": 2500.0, "status": "active", "opened_on": "2023-06-01"},
    ],
}  # fmt: skip


def finance_brief() -> Brief:
    return load_brief(BRIEF)


def finance_schema() -> Schema:
    return Schema.model_validate(SCHEMA)


def finance_spec(tools: list[Tool]) -> EnvironmentSpec:
    return EnvironmentSpec(name="finance", schema_=finance_schema(), seed=SEED, tools=tools)
