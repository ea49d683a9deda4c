"""A domain brief: the few hand-written lines a whole environment is generated from.

Adding a domain is adding `domains/<name>/brief.yaml`; this model is its only format.
"""

from __future__ import annotations

from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from toolscale.errors import ToolscaleError, pydantic_problems
from toolscale.names import check_identifier
from toolscale.reasons import ErrorReason


class Brief(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(description="the domain's folder name; also the environment's name")
    description: str = Field(min_length=20, description="one paragraph: who uses it and why")
    entities: list[str] = Field(min_length=2, description="the nouns that become tables")
    rules: list[str] = Field(
        default_factory=list, description="policy hints the write tools should enforce"
    )
    task_ideas: list[str] = Field(
        default_factory=list, description="what users typically ask for, as examples"
    )
    n_tables: int = Field(default=4, ge=2, le=10)
    seed_rows: int = Field(
        default=600,
        ge=10,
        le=100_000,
        description="seed rows of the domain, written by a program from the model's data plan",
    )
    n_tools: int = Field(default=10, ge=3, le=40)

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        return check_identifier(v, "domain", in_sql=False)


class BriefError(ToolscaleError):
    """A brief that cannot be read; `detail` names the file and the field."""

    reason = ErrorReason.BAD_BRIEF


def load_brief(path: str | Path) -> Brief:
    path = Path(path)
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise BriefError(f"{path}: cannot read the brief ({e.strerror})") from e
    except yaml.YAMLError as e:
        raise BriefError(f"{path}: not valid YAML: {e}") from e
    if not isinstance(raw, dict):
        raise BriefError(f"{path}: a brief is a YAML mapping, got {type(raw).__name__}")
    try:
        brief = Brief.model_validate(raw)
    except ValidationError as e:
        raise BriefError(f"{path}: {'; '.join(pydantic_problems(e))}") from e
    if brief.name != path.parent.name:
        raise BriefError(
            f"{path}: name {brief.name!r} must equal the folder name {path.parent.name!r}"
        )
    return brief


def brief_path(domains_dir: str | Path, domain: str) -> Path:
    """Where the brief of `domain` lives; a missing one lists the domains there are."""
    root = Path(domains_dir)
    path = root / domain / "brief.yaml"
    if not path.is_file():
        known = sorted(p.parent.name for p in root.glob("*/brief.yaml"))
        raise BriefError(
            f"no brief for domain {domain!r} at {path}; known domains: {', '.join(known) or 'none'}"
        )
    return path
