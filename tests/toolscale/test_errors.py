"""One root error with `reason` and `detail`, and one way to put pydantic's errors in words."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, ValidationError

from tests.toolscale.test_reasons import FAMILIES
from toolscale.brief import BriefError
from toolscale.errors import ToolscaleError, pydantic_problems
from toolscale.llm.client import Invalid, NotJSON
from toolscale.llm.local.files import LocalLLMError
from toolscale.reasons import ErrorReason
from toolscale.sandbox.base import CallFailed, SandboxRefused, SeedError
from toolscale.sandbox.sqlcheck import SQLCheckError
from toolscale.store import StoreError


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
