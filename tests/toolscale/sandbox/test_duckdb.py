"""The DuckDB engine: a refused seed row named on its own, the portability check that binds
every statement without running it, and the watchdog that interrupts a runaway call."""

from __future__ import annotations

import threading
import time

import pytest

from toolscale.sandbox import open_sandbox
from toolscale.sandbox.base import SeedError, portability_errors
from toolscale.sandbox.duckdb import Watchdog
from toolscale.spec import EnvironmentSpec


def test_a_dangling_reference_names_its_row(mini_dict: dict) -> None:
    mini_dict["seed"]["accounts"][1]["client_id"] = 7
    with pytest.raises(SeedError) as caught:
        open_sandbox(EnvironmentSpec.model_validate(mini_dict), "duckdb")
    error = caught.value
    assert (error.reason, error.table, error.index) == ("seed_constraint_violation", "accounts", 1)
    assert "foreign key" in error.detail.lower()


def test_a_bad_row_past_the_first_chunk_is_named_by_its_place_in_the_seed(mini_dict: dict) -> None:
    mini_dict["seed"]["clients"] = [{"id": i, "name": f"c{i}"} for i in range(1, 451)]
    mini_dict["seed"]["clients"][420]["name"] = None  # NOT NULL
    with pytest.raises(SeedError) as caught:
        open_sandbox(EnvironmentSpec.model_validate(mini_dict), "duckdb")
    assert (caught.value.table, caught.value.index) == ("clients", 420)


def test_portability_errors_bind_every_statement(mini_dict: dict) -> None:
    assert portability_errors(EnvironmentSpec.model_validate(mini_dict)) == []
    mini_dict["tools"][0]["returns"] = (
        "SELECT id, unixepoch(:_now) AS second FROM accounts WHERE id = :account_id"
    )
    (error,) = portability_errors(EnvironmentSpec.model_validate(mini_dict))
    assert error.reason == "sql_not_portable"
    assert error.detail.startswith("get_account.returns: on DuckDB: ")


class Interrupts:
    def __init__(self) -> None:
        self.times: list[float] = []
        self.fired = threading.Event()

    def __call__(self) -> None:
        self.times.append(time.monotonic())
        self.fired.set()


def test_the_watchdog_fires_once_when_an_armed_deadline_passes() -> None:
    interrupts = Interrupts()
    watchdog = Watchdog(interrupts)
    try:
        armed = time.monotonic()
        watchdog.arm(0.05)
        assert interrupts.fired.wait(2.0)
        assert interrupts.times[0] - armed >= 0.05
        time.sleep(0.1)
        assert len(interrupts.times) == 1  # the deadline is spent, not re-fired
    finally:
        watchdog.close()


def test_a_disarmed_watchdog_stays_quiet_and_closes() -> None:
    interrupts = Interrupts()
    watchdog = Watchdog(interrupts)
    watchdog.arm(0.05)
    watchdog.arm(None)  # the call finished in time
    assert not interrupts.fired.wait(0.2)
    watchdog.close()
    assert not watchdog._thread.is_alive()
