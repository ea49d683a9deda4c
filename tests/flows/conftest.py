"""The flow tests' shared pieces: one temporary Prefect harness for the session, and a
domains folder with the library brief the fake model answers."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from toolscale.testing.fakedomain import BRIEF


@pytest.fixture(scope="session")
def prefect_harness(tmp_path_factory: pytest.TempPathFactory):
    home = tmp_path_factory.mktemp("prefect-home")
    os.environ["PREFECT_HOME"] = str(home)
    os.environ["PREFECT_SERVER_ANALYTICS_ENABLED"] = "false"
    os.environ["PREFECT_LOGGING_TO_API_ENABLED"] = "false"
    os.environ["PREFECT_LOGGING_LEVEL"] = "WARNING"
    from prefect.testing.utilities import prefect_test_harness

    with prefect_test_harness():
        yield


@pytest.fixture
def domains(tmp_path: Path) -> Path:
    root = tmp_path / "domains"
    (root / "library").mkdir(parents=True)
    (root / "library" / "brief.yaml").write_text(BRIEF)
    return root
