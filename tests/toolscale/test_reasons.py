"""The reason codes: one documented enum per family, plain strings in every output, and the
README's table of verification stages checked against them."""

from __future__ import annotations

import json
import re

import pytest

from tests.conftest import ROOT
from toolscale.llm.ledger import Ledger
from toolscale.reasons import (
    STAGE_REASONS,
    ErrorReason,
    GeneratorReason,
    LLMFailure,
    LLMRetry,
    Reason,
    StructureReason,
    ToolErrorCode,
)
from toolscale.report import Rejection
from toolscale.tool import ToolResult
from validators import judge
from validators.pipeline import ENVIRONMENT_STAGES, TASK_STAGES

README = ROOT / "README.md"
FAMILIES: list[type[Reason]] = [
    *STAGE_REASONS.values(),
    ToolErrorCode,
    LLMFailure,
    LLMRetry,
    GeneratorReason,
    ErrorReason,
]


def readme_stage_table() -> dict[str, list[str]]:
    """stage -> the backticked codes of its row in "Verification stages and reason codes"."""
    text = README.read_text(encoding="utf-8")
    section = text.split("## Verification stages and reason codes", 1)[1].split("\n## ", 1)[0]
    rows: dict[str, list[str]] = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 2 or cells[0] in ("stage", "---"):
            continue
        rows[cells[0]] = re.findall(r"`([a-z_]+)`", cells[1])
    return rows


def test_the_readme_table_lists_exactly_the_reasons_of_each_stage() -> None:
    table = readme_stage_table()
    assert list(table) == list(STAGE_REASONS), "stages, in the order they run"
    for stage, family in STAGE_REASONS.items():
        assert table[stage] == [m.value for m in family], stage


def test_the_stages_are_the_verifiers_stages_then_the_judge_then_the_solver() -> None:
    """The judge and the solver need a model, so the scheduler runs them after the
    verifier accepts."""
    from trainer import solver

    stages = [s.STAGE for s in ENVIRONMENT_STAGES] + [s.STAGE for s in TASK_STAGES]
    stages += [judge.STAGE, solver.STAGE]
    assert list(STAGE_REASONS) == stages


def test_the_readme_tool_error_codes_are_members() -> None:
    text = README.read_text(encoding="utf-8")
    listed = re.search(r"error results with stable codes\s*\(([^)]*)\)", text)
    assert listed is not None
    codes = re.findall(r"`([a-z_]+)`", listed.group(1))
    assert codes and set(codes) <= {m.value for m in ToolErrorCode}


@pytest.mark.parametrize("family", FAMILIES, ids=lambda f: f.__name__)
def test_every_member_is_documented_and_named_by_its_code(family: type[Reason]) -> None:
    assert family.__doc__
    for member in family:
        assert member.name == member.value.upper()
        assert member.description.strip(), member
        assert isinstance(member, str) and str(member) == member.value


def test_a_reason_is_a_plain_string_in_json() -> None:
    rejection = Rejection(stage="structure", reason=StructureReason.BAD_JSON, detail="line 1")
    assert json.loads(rejection.model_dump_json())["reason"] == "bad_json"
    assert rejection.model_dump()["reason"] == "bad_json"
    assert type(rejection.model_dump()["reason"]) is str
    result = ToolResult(ok=False, error="no", code=ToolErrorCode.POLICY)
    assert result.model_dump_json() == '{"ok":false,"output":null,"error":"no","code":"policy"}'
    ledger = Ledger()
    ledger.fail("gen", LLMFailure.BAD_JSON)
    assert json.loads(ledger.model_dump_json())["stages"]["gen"]["failures"] == {"bad_json": 1}
    assert ledger.stage("gen").failures == {"bad_json": 1}
