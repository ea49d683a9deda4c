"""One root error with `reason` and `detail`, and one way to put pydantic's errors in words."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import BaseModel, ValidationError

from tests.toolscale.test_reasons import FAMILIES
from toolscale.brief import BriefError, load_brief
from toolscale.errors import ToolscaleError, pydantic_problems
from toolscale.llm.client import Invalid, NotJSON
from toolscale.llm.local.files import LocalLLMError
from toolscale.reasons import ErrorReason
from toolscale.sandbox import open_sandbox
from toolscale.sandbox.base import CallFailed, SandboxRefused, SeedError
from toolscale.sandbox.sqlcheck import SQLCheckError
from toolscale.spec import EnvironmentSpec
from toolscale.store import DomainStore, StoreError


class Point(BaseModel):
    x: int
    y: int


def problems_of(data: object) -> ValidationError:
    with pytest.raises(ValidationError) as caught:
        Point.model_validate(data)
    return caught.value


def test_the_root_error_has_a_default_reason_and_a_detail() -> None:
    error = ToolscaleError("data/x.json: broken")
    assert (error.reason, error.detail, str(error)) == ("error", error.detail, error.detail)
    assert error.detail == "data/x.json: broken"
    assert error.reason is ErrorReason.ERROR
    assert ToolscaleError("x", reason="bad_brief").reason == "bad_brief"


def test_pydantic_problems_name_the_field() -> None:
    assert pydantic_problems(problems_of({"x": "a"})) == [
        "x: Input should be a valid integer, unable to parse string as an integer",
        "y: Field required",
    ]


def test_pydantic_problems_cut_at_the_limit_and_say_how_many_more() -> None:
    assert pydantic_problems(problems_of({}), limit=1) == [
        "x: Field required",
        "… and 1 more problems",
    ]


def test_pydantic_problems_name_the_document_itself() -> None:
    error = problems_of([1, 2])
    assert pydantic_problems(error)[0].startswith("(top level): Input should be")
    assert pydantic_problems(error, top="task")[0].startswith("task: Input should be")


@pytest.mark.parametrize(
    "kind",
    [
        SQLCheckError,
        SeedError,
        SandboxRefused,
        CallFailed,
        Invalid,
        NotJSON,
        LocalLLMError,
        BriefError,
        StoreError,
    ],
    ids=lambda k: k.__name__,
)
def test_every_error_class_has_the_one_root(kind: type[Exception]) -> None:
    assert issubclass(kind, ToolscaleError)
    assert not issubclass(kind, ValueError | RuntimeError)
    assert kind.reason in {m.value for family in FAMILIES for m in family}


def test_a_bad_brief_names_the_file_and_the_field(tmp_path: Path) -> None:
    path = tmp_path / "shop" / "brief.yaml"
    path.parent.mkdir()
    path.write_text("name: shop\ndescription: a shop that sells things to people\nentities: [a]\n")
    with pytest.raises(BriefError) as caught:
        load_brief(path)
    assert caught.value.reason == "bad_brief"
    assert caught.value.detail.startswith(f"{path}: entities: List should have at least 2 items")


def test_a_broken_batch_names_the_file_and_the_field(tmp_path: Path) -> None:
    store = DomainStore(tmp_path, "shop")
    store.batches_dir.mkdir(parents=True)
    broken = store.batches_dir / "sampled-000000.json"
    broken.write_text('{"strategy": "sampled", "indices": ["one"]}')
    with pytest.raises(StoreError) as caught:
        list(store.batches())
    assert caught.value.reason == "bad_stored_file"
    assert caught.value.detail == f"{broken}: not a valid batch: indices.0: " + (
        "Input should be a valid integer, unable to parse string as an integer"
    )


def test_a_seed_error_says_where_for_people_and_programs(mini_dict: dict) -> None:
    mini_dict["seed"]["clients"][0]["colour"] = "red"
    with pytest.raises(SeedError) as caught:
        open_sandbox(EnvironmentSpec.model_validate(mini_dict)).close()
    error = caught.value
    assert (error.reason, error.table, error.index) == ("seed_unknown_column", "clients", 0)
    assert error.detail == str(error) == "seed clients[0]: unknown column 'colour'"
