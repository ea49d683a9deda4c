"""The banking reference environment's builder: the committed fixture is exactly what it
builds (so regenerating it changes nothing unnoticed), and rows grow with `scale`."""

from __future__ import annotations

import pytest

from tests.conftest import BANKING
from toolscale.spec import EnvironmentSpec
from toolscale.testing.banking import build_environment


def test_the_committed_fixture_is_what_the_builder_writes(banking_spec: EnvironmentSpec) -> None:
    built = build_environment(scale=1)
    assert built == banking_spec
    text = (BANKING / "environment.json").read_text()
    assert text == built.model_dump_json(indent=1) + "\n"  # what `main` writes, byte for byte


def test_the_same_scale_and_seed_give_the_same_environment() -> None:
    assert build_environment(scale=1, seed=3) == build_environment(scale=1, seed=3)
    assert build_environment(scale=1, seed=3).seed != build_environment(scale=1, seed=4).seed


def test_rows_grow_linearly_with_scale() -> None:
    rows = {s: sum(len(v) for v in build_environment(scale=s).seed.values()) for s in (1, 2)}
    assert rows == {1: 1220, 2: 2440}
    with pytest.raises(ValueError, match="scale must be at least 1"):
        build_environment(scale=0)
