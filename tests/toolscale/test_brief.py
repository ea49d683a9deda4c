"""Domain briefs: every shipped one loads, and a bad one names its file and the field."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.conftest import ROOT
from toolscale.brief import Brief, BriefError, brief_path, load_brief
from toolscale.testing.fakedomain import BRIEF

SHIPPED = sorted((ROOT / "domains").glob("*/brief.yaml"))


def write_brief(root: Path, folder: str, text: str) -> Path:
    path = root / folder / "brief.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.parent.name)
def test_every_shipped_brief_loads(path: Path) -> None:
    brief = load_brief(path)
    assert brief.name == path.parent.name
    assert len(brief.entities) >= 2 and brief.rules


def test_there_are_the_ten_documented_domains() -> None:
    assert [p.parent.name for p in SHIPPED] == [
        "basketball",
        "ecommerce",
        "finance",
        "medicine",
        "movie",
        "railway",
        "restaurant",
        "school",
        "travel",
        "weather",
    ]


def test_a_brief_fills_in_its_defaults(tmp_path: Path) -> None:
    text = "name: shop\ndescription: a shop that sells things to people\nentities: [a, b]\n"
    brief = load_brief(write_brief(tmp_path, "shop", text))
    assert (brief.rules, brief.task_ideas) == ([], [])
    assert (brief.n_tables, brief.seed_rows, brief.n_tools) == (4, 600, 10)


def test_a_bad_brief_names_the_file_and_the_field(tmp_path: Path) -> None:
    path = tmp_path / "shop" / "brief.yaml"
    path.parent.mkdir()
    path.write_text("name: shop\ndescription: a shop that sells things to people\nentities: [a]\n")
    with pytest.raises(BriefError) as caught:
        load_brief(path)
    assert caught.value.reason == "bad_brief"
    assert caught.value.detail.startswith(f"{path}: entities: List should have at least 2 items")


@pytest.mark.parametrize(
    "text, problem",
    [
        ("name: [unclosed\n", "not valid YAML"),
        ("- a list\n- not a mapping\n", "a brief is a YAML mapping, got list"),
        (BRIEF + "colour: red\n", "colour: Extra inputs are not permitted"),
        (BRIEF.replace("n_tools: 9", "n_tools: 99"), "n_tools: Input should be less"),
        (BRIEF.replace("name: library", "name: Library"), "domain 'Library' must be lower"),
    ],
    ids=["yaml", "not_a_mapping", "unknown_field", "too_many_tools", "bad_name"],
)
def test_each_problem_is_named_with_the_file(tmp_path: Path, text: str, problem: str) -> None:
    path = write_brief(tmp_path, "library", text)
    with pytest.raises(BriefError) as caught:
        load_brief(path)
    assert caught.value.detail.startswith(f"{path}: ")
    assert problem in caught.value.detail


def test_the_name_is_the_folder_name(tmp_path: Path) -> None:
    path = write_brief(tmp_path, "books", BRIEF)
    with pytest.raises(BriefError) as caught:
        load_brief(path)
    assert caught.value.detail == f"{path}: name 'library' must equal the folder name 'books'"


def test_a_missing_brief_says_it_cannot_be_read(tmp_path: Path) -> None:
    with pytest.raises(BriefError, match="cannot read the brief"):
        load_brief(tmp_path / "nowhere" / "brief.yaml")


def test_brief_path_finds_a_domain_or_lists_the_known_ones(tmp_path: Path) -> None:
    path = write_brief(tmp_path, "library", BRIEF)
    write_brief(tmp_path, "shop", BRIEF)
    assert brief_path(tmp_path, "library") == path
    with pytest.raises(BriefError) as caught:
        brief_path(tmp_path, "zoo")
    assert caught.value.detail == (
        f"no brief for domain 'zoo' at {tmp_path / 'zoo' / 'brief.yaml'}; "
        "known domains: library, shop"
    )
    with pytest.raises(BriefError, match="known domains: none"):
        brief_path(tmp_path / "empty", "zoo")


def test_the_fake_domain_brief_is_a_brief() -> None:
    """The library brief the flow tests and the bench run on."""
    brief = Brief.model_validate(yaml.safe_load(BRIEF))
    assert (brief.name, brief.n_tables, brief.seed_rows) == ("library", 3, 60)
