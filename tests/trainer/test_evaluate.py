"""Eval over the exported banking split, read through `datasets`: the oracle reaches
pass^k = 1, an agent that answers without tools 0, and pass^k is tau2's formula."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolscale.trajectory import Message
from trainer.data import DatasetError, load_split
from trainer.episode import Turn
from trainer.evaluate import pass_hat, report, run_trials
from trainer.oracle import OraclePolicy


class Mute:
    def reply(self, messages: list[Message], tools: list[dict]) -> Turn:
        return Turn(message=Message(role="assistant", content="I cannot help with that."))


def test_pass_hat_is_taus_formula() -> None:
    assert pass_hat(4, 4, 4) == 1.0
    assert pass_hat(2, 4, 1) == 0.5
    assert pass_hat(2, 4, 2) == pytest.approx(1 / 6)  # C(2,2) / C(4,2)
    assert pass_hat(3, 4, 4) == 0.0
    with pytest.raises(ValueError):
        pass_hat(1, 2, 3)


def test_the_oracle_passes_every_trial_and_a_mute_agent_none(banking_dataset: Path) -> None:
    split = load_split(str(banking_dataset), "test", limit=6)
    assert 0 < len(split.tasks) <= 6
    trials = list(run_trials(split, lambda: OraclePolicy(split.tasks), k=2, workers=2))
    assert len(trials) == 2 * len(split.tasks) and all(t.success for t in trials)
    result = report("oracle", trials, 2, 1.0)
    assert result.overall.pass_hat == {1: 1.0, 2: 1.0}
    assert set(result.by_domain) == {"banking"} and result.overall.mean_cost > 0
    mute = report("mute", list(run_trials(split, Mute, k=2)), 2, 1.0)
    assert mute.overall.pass_hat == {1: 0.0, 2: 0.0}


def test_a_failed_trial_names_the_endpoint_error_and_the_run_goes_on(banking_dataset: Path) -> None:
    class Down:
        def reply(self, messages: list[Message], tools: list[dict]) -> Turn:
            raise ConnectionError("endpoint refused")

    split = load_split(str(banking_dataset), "test", limit=2)
    trials = list(run_trials(split, Down, k=1))
    assert trials and all(t.error == "ConnectionError: endpoint refused" for t in trials)


def test_a_missing_dataset_or_split_is_named(banking_dataset: Path, tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="environments"):
        load_split(str(tmp_path / "nothing"), "test")
    with pytest.raises(DatasetError, match="split 'validation'"):
        load_split(str(banking_dataset), "validation")
