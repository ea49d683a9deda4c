"""A training run's settings, one YAML file under trainer/configs/ (`toolscale train
--config NAME`). Pydantic checks our fields; `grpo` goes to TRL's `GRPOConfig` as it is,
so every GRPO setting TRL has can be set and TRL itself names a bad one."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from toolscale.errors import pydantic_problems
from trainer.helpers import HelperConfig
from trainer.rewards import RewardConfig

CONFIGS = Path(__file__).parent / "configs"


class LoraConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    r: int = Field(default=16, gt=0)
    alpha: int = Field(default=32, gt=0)
    dropout: float = Field(default=0.05, ge=0, lt=1)
    target_modules: str | list[str] = "all-linear"


class TrainConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    dataset: str = Field(description="a folder from `toolscale export`, or a Hub repo id")
    domains: list[str] | None = None
    split: str = "train"
    limit: int | None = Field(default=None, gt=0, description="the first N tasks of each domain")
    model: str = Field(description="tiny, gguf:0.5b, gguf:1.5b, or a local model folder")
    seed: int = 0
    output_dir: str
    max_turns: int = Field(default=30, gt=0)
    rewards: RewardConfig = Field(default_factory=RewardConfig)
    helpers: list[HelperConfig] = Field(default_factory=list)
    lora: LoraConfig | None = None
    grpo: dict[str, Any] = Field(default_factory=dict, description="TRL GRPOConfig fields")


class ConfigError(ValueError):
    """A config that cannot be read: names the file and the problem."""


# GRPOConfig fields the trainer sets itself: its advantages are the one reward TRL sees,
# taken as they are, and the run's folder and seed are ours.
RESERVED = {
    "output_dir": "is the config's own output_dir",
    "seed": "is the config's own seed",
    "scale_rewards": "must stay 'none': the trainer's advantages are already standardised",
    "reward_weights": "are set by the trainer (its advantage 1, the logged parts 0)",
    "multi_objective_aggregation": "would re-normalise the trainer's advantages",
    "remove_unused_columns": "must stay off: the rollout function needs every column",
}


def config_path(name: str) -> Path:
    """A path, or the name of a file in trainer/configs/ (with or without .yaml)."""
    path = Path(name)
    if path.suffix in (".yaml", ".yml") and path.is_file():
        return path
    bundled = CONFIGS / f"{path.name.removesuffix('.yaml')}.yaml"
    if bundled.is_file():
        return bundled
    known = ", ".join(sorted(p.stem for p in CONFIGS.glob("*.yaml")))
    raise ConfigError(f"no config {name!r}: give a YAML file or one of {known}")


def load_config(name: str) -> TrainConfig:
    path = config_path(name)
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as e:
        raise ConfigError(f"{path}: not YAML: {e}") from e
    if not isinstance(raw, dict):
        raise ConfigError(f"{path}: a config is a mapping of settings")
    try:
        config = TrainConfig.model_validate(raw)
    except ValidationError as e:
        raise ConfigError(f"{path}: " + "; ".join(pydantic_problems(e, limit=5))) from e
    taken = [f"grpo.{k} {why}" for k, why in RESERVED.items() if k in config.grpo]
    if taken:
        raise ConfigError(f"{path}: " + "; ".join(taken))
    return config
