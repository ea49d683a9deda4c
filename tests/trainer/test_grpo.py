"""GRPO end to end on CPU: a tiny random Qwen2 trains 2 steps on the exported banking
split through TRL, every rollout a real episode, then resumes from its checkpoint."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from tests.trainer.scripted import coin, gold_turns
from toolscale.task import Task
from trainer.config import CONFIGS, ConfigError, TrainConfig, load_config
from trainer.data import load_split
from trainer.grpo import train
from trainer.rollout import GenerateBatch


def tiny_config(dataset: Path, out: Path, steps: int) -> TrainConfig:
    base = load_config("cpu-tiny")  # the bundled config, pointed at this test's folders
    grpo = base.grpo | {"max_steps": steps, "num_generations": 4, "report_to": "none"}
    grpo |= {"max_completion_length": 4096}
    return base.model_copy(update={"dataset": str(dataset), "output_dir": str(out), "grpo": grpo})


def test_two_steps_with_real_episodes_then_a_resume(banking_dataset: Path, tmp_path: Path) -> None:
    tasks = load_split(str(banking_dataset), "train").tasks

    def scripted(trainer: Any) -> GenerateBatch:  # half the rollouts skip their last call
        return gold_turns(tasks, trainer.processing_class, skip_last_write=coin(0))

    out = tmp_path / "run"
    result = train(tiny_config(banking_dataset, out, 2), Console(stderr=True), backend=scripted)
    assert result.steps == 2 and len(result.history) == 2
    solved = [h["rewards/outcome/mean"] for h in result.history]
    assert all(0.0 < s < 1.0 for s in solved), "scripted groups mix solved and failed rollouts"
    assert all(h["rewards/invalid/mean"] == 0.0 for h in result.history)
    assert any(h["rewards/flat_group/mean"] < 1.0 and h["grad_norm"] > 0 for h in result.history)
    assert (out / "checkpoint-2").is_dir() and (out / "final" / "config.json").is_file()
    again = train(tiny_config(banking_dataset, out, 3), Console(stderr=True), backend=scripted)
    assert again.steps == 3 and [h["step"] for h in again.history] == [1, 2, 3]
    assert again.history[:2] == result.history, "steps 1-2 come back from the checkpoint, not rerun"


def test_configs_name_their_problem(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"no config 'nope'.*cpu-tiny"):
        load_config("nope")
    bad = tmp_path / "bad.yaml"
    bad.write_text("dataset: d\nmodel: tiny\noutput_dir: o\nmax_turn: 3\n")
    with pytest.raises(ConfigError, match=r"bad.yaml: .*max_turn"):
        load_config(str(bad))
    bad.write_text("- a list\n")
    with pytest.raises(ConfigError, match="a mapping"):
        load_config(str(bad))


def test_every_bundled_config_loads_and_names_only_grpo_settings_trl_has() -> None:
    import dataclasses

    from trl import GRPOConfig

    known = {f.name for f in dataclasses.fields(GRPOConfig)}
    names = sorted(p.stem for p in CONFIGS.glob("*.yaml"))
    assert {"cpu-tiny", "cpu-0.5b", "gpu-1x80gb"} <= set(names)
    for name in names:
        config = load_config(name)
        assert set(config.grpo) <= known, (name, set(config.grpo) - known)


def test_make_train_runs_the_bundled_cpu_tiny_config_as_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`make train` from a fresh clone: the sample dataset, then cpu-tiny with its own
    random policy generating through transformers (no script): 2 steps, checkpoints, the
    final model and TensorBoard's event file."""
    from flows.cli import main

    monkeypatch.chdir(tmp_path)
    assert main(["sample-dataset", "--out", "out/sample"]) == 0
    assert main(["train", "--config", "cpu-tiny"]) == 0
    out = tmp_path / "out" / "train" / "cpu-tiny"
    assert (out / "checkpoint-2").is_dir() and (out / "final" / "config.json").is_file()
    assert list((out / "runs").rglob("events.out.tfevents.*")), "per-step logs for TensorBoard"


def test_the_trainers_own_grpo_settings_cannot_be_overridden(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("dataset: d\nmodel: tiny\noutput_dir: o\ngrpo:\n  scale_rewards: group\n")
    with pytest.raises(ConfigError, match=r"grpo\.scale_rewards must stay 'none'"):
        load_config(str(bad))


def test_each_group_of_a_batch_is_scored_on_its_own() -> None:
    """Two tasks' groups in one rollout_func call: advantages are relative to the group,
    so each group's valid advantages sum to 0 and a flat group gets 0."""
    from toolscale.environment import Evaluation
    from trainer.episode import Episode
    from trainer.grpo import score
    from trainer.rollout import Rollout

    def rollout(task: Task, solved: bool) -> Rollout:
        ev = Evaluation(success=solved, state_match=solved, communicated=1.0)
        episode = Episode(task_id=task.id, domain="bank", messages=[], evaluation=ev, stop="answer")
        return Rollout([1], [2], [1], [0.0], episode, task)

    a, b = (
        Task.model_validate(
            {"id": i, "domain": "bank", "instruction": i, "gold_calls": [{"name": "f"}]}
        )
        for i in "ab"
    )
    batch = [rollout(a, s) for s in (True, False, True, False)]
    batch += [rollout(b, False) for _ in range(4)]
    prompts = [[{"role": "user", "content": t.instruction}] for t in (a,) * 4 + (b,) * 4]
    config = load_config("cpu-tiny")
    scores = score(batch, prompts, config)
    assert scores["outcome"] == [1.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0]
    assert scores["advantage"][:4] == pytest.approx([1.0, -1.0, 1.0, -1.0], rel=1e-5)
    assert scores["advantage"][4:] == [0.0] * 4 and scores["flat_group"][4:] == [1.0] * 4
