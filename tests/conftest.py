"""Shared fixtures: a tiny two-table environment for engine-level tests, the banking
reference environment (tests/fixtures/banking) for validator and CLI tests, its verified
tasks and a run of it exported as a dataset (for the trainer and eval, which read only the
dataset), and no proxy for tests that talk to a local fake server."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from toolscale.spec import EnvironmentSpec
from toolscale.task import ExpectedOutcome, Task
from toolscale.tool import Tool

ROOT = Path(__file__).resolve().parents[1]  # the repository: tests may sit at any depth
BANKING = ROOT / "tests" / "fixtures" / "banking"

MINI = {
    "name": "mini",
    "policy": "Only withdraw from accounts that are not frozen.",
    "clock": "2025-03-14T09:30:00",
    "schema": {
        "tables": [
            {
                "name": "clients",
                "columns": [
                    {"name": "id", "type": "integer"},
                    {"name": "name", "type": "text", "nullable": False},
                ],
                "primary_key": ["id"],
            },
            {
                "name": "accounts",
                "columns": [
                    {"name": "id", "type": "text"},
                    {"name": "client_id", "type": "integer", "nullable": False},
                    {"name": "balance", "type": "real", "nullable": False},
                    {"name": "frozen", "type": "boolean", "nullable": False},
                    {"name": "opened", "type": "date"},
                ],
                "primary_key": ["id"],
                "foreign_keys": [
                    {"columns": ["client_id"], "ref_table": "clients", "ref_columns": ["id"]}
                ],
                "checks": ["balance >= 0"],
            },
        ]
    },
    "seed": {
        "clients": [{"id": 1, "name": "Ann Lee"}, {"id": 2, "name": "Bo Park"}],
        "accounts": [
            {"id": "A1", "client_id": 1, "balance": 100.0, "frozen": 0, "opened": "2024-01-02"},
            {"id": "A2", "client_id": 2, "balance": 33, "frozen": 1, "opened": "2024-05-06"},
        ],
    },
    "tools": [
        {
            "name": "get_account",
            "description": "Look up one account by id.",
            "kind": "read",
            "price": 0.001,
            "latency_ms": 20,
            "parameters": {
                "type": "object",
                "properties": {"account_id": {"type": "string"}},
                "required": ["account_id"],
            },
            "require": [
                {
                    "sql": "SELECT EXISTS(SELECT 1 FROM accounts WHERE id = :account_id)",
                    "error": "account not found",
                }
            ],
            "returns": "SELECT id, client_id, balance, frozen FROM accounts WHERE id = :account_id",
            "single": True,
        },
        {
            "name": "withdraw",
            "description": "Take money out of an account that is not frozen.",
            "kind": "write",
            "price": 0.01,
            "latency_ms": 200,
            "parameters": {
                "type": "object",
                "properties": {
                    "account_id": {"type": "string"},
                    "amount": {"type": "number", "exclusiveMinimum": 0},
                },
                "required": ["account_id", "amount"],
            },
            "require": [
                {
                    "sql": "SELECT NOT frozen FROM accounts WHERE id = :account_id",
                    "error": "account is frozen or does not exist",
                }
            ],
            "run": ["UPDATE accounts SET balance = balance - :amount WHERE id = :account_id"],
            "returns": "SELECT id, balance FROM accounts WHERE id = :account_id",
            "single": True,
        },
        {
            "name": "open_account",
            "description": "Open an empty account for a client.",
            "kind": "write",
            "price": 0.02,
            "latency_ms": 500,
            "parameters": {
                "type": "object",
                "properties": {"client_id": {"type": "integer"}},
                "required": ["client_id"],
            },
            "run": [
                "INSERT INTO accounts (id, client_id, balance, frozen, opened) "
                "VALUES ('AC' || :_new_id, :client_id, 0, 0, substr(:_now, 1, 10))"
            ],
            "returns": "SELECT id, balance, opened FROM accounts WHERE id = 'AC' || :_new_id",
            "single": True,
        },
        {
            "name": "close_account",
            "description": "Close (delete) an account whose balance is zero.",
            "kind": "write",
            "parameters": {
                "type": "object",
                "properties": {"account_id": {"type": "string"}},
                "required": ["account_id"],
            },
            "require": [
                {
                    "sql": "SELECT balance = 0 FROM accounts WHERE id = :account_id",
                    "error": "only empty accounts can be closed",
                }
            ],
            "run": ["DELETE FROM accounts WHERE id = :account_id"],
        },
    ],
}


@pytest.fixture
def no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    """A proxy from the environment would swallow requests meant for a local fake server."""
    for var in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy"):
        monkeypatch.delenv(var, raising=False)


@pytest.fixture
def mini_dict() -> dict:
    return copy.deepcopy(MINI)


@pytest.fixture
def mini_spec() -> EnvironmentSpec:
    return EnvironmentSpec.model_validate(copy.deepcopy(MINI))


def write_tool(
    name: str, sql: str, require: tuple[tuple[str, str], ...] = (), **params: str
) -> Tool:
    """A write of one statement, its parameters (name: JSON type) all required, with
    `require` steps as (sql, error) pairs."""
    parameters = {
        "type": "object",
        "properties": {p: {"type": t} for p, t in params.items()},
        "required": list(params),
    }
    steps = [{"sql": q, "error": e} for q, e in require]
    return Tool.model_validate(
        {"name": name, "description": f"{name}, for a test.", "kind": "write",
         "parameters": parameters, "require": steps, "run": [sql]}
    )  # fmt: skip


def mini_task(**overrides: object) -> Task:
    base: dict[str, object] = {
        "id": "t1",
        "instruction": "Withdraw $30 from account A1 and tell me the new balance.",
        "gold_calls": [{"name": "withdraw", "arguments": {"account_id": "A1", "amount": 30}}],
        "communicate": [{"call": 0, "path": "balance"}],
    }
    base.update(overrides)
    return Task.model_validate(base)


def expected_of(task: Task) -> ExpectedOutcome:
    """The expected outcome a verified task carries."""
    assert task.expected is not None, f"task {task.id!r} has no expected outcome"
    return task.expected


@pytest.fixture(scope="session")
def banking_spec() -> EnvironmentSpec:
    return EnvironmentSpec.model_validate_json((BANKING / "environment.json").read_text())


@pytest.fixture(scope="session")
def banking_tasks() -> list[Task]:
    lines = (BANKING / "tasks.jsonl").read_text().splitlines()
    return [Task.model_validate_json(line) for line in lines if line.strip()]


def load_fresh(folder: str | Path, *args: object, **kwargs: object) -> Any:
    """`datasets.load_dataset` with a cache of the folder's own: the shared cache keys a
    local folder by its name and files and served another export of the same name
    (huggingface/datasets#2956)."""
    from datasets import load_dataset

    cache = Path(folder).parent / "hf-cache"
    return load_dataset(str(folder), *args, cache_dir=str(cache), **kwargs)


@pytest.fixture(scope="session")
def banking_dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The banking fixture verified and exported (`toolscale sample-dataset`)."""
    from flows.sample import sample_dataset

    return sample_dataset(tmp_path_factory.mktemp("sample"))


@pytest.fixture(scope="session")
def verified(banking_spec: EnvironmentSpec, banking_tasks: list[Task]) -> list[Task]:
    """The banking tasks that pass verification, each with its expected outcome."""
    from validators.pipeline import verify

    accepted, _, _ = verify(banking_spec, banking_tasks, cross_engine=False)
    return accepted


@pytest.fixture
def s3(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, no_proxy: None) -> Iterator[Any]:
    """moto's S3 server on a free local port (no network), an empty bucket `toolscale-test`,
    the store's local copies under tmp_path; yields an s3fs client to look with."""
    import httpx
    import s3fs
    from moto.server import ThreadedMotoServer

    from toolscale.children import free_port

    port = free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    for name, value in {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_ENDPOINT_URL": f"http://127.0.0.1:{port}",
        "TOOLSCALE_STORE_CACHE": str(tmp_path / "store-cache"),
    }.items():
        monkeypatch.setenv(name, value)
    s3fs.S3FileSystem.clear_instance_cache()
    # moto keeps its buckets per process, across servers: each test starts empty
    httpx.post(f"http://127.0.0.1:{port}/moto-api/reset").raise_for_status()
    fs = s3fs.S3FileSystem()
    fs.mkdir("toolscale-test")
    try:
        yield fs
    finally:
        s3fs.S3FileSystem.clear_instance_cache()
        server.stop()
