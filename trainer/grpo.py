"""GRPO on the verified dataset: TRL's `GRPOTrainer` with our multi-turn rollouts.

Read top to bottom: the split is loaded as a consumer loads it; each task becomes a
prompt (the policy as system turn, the user's words); TRL hands the prompts of a batch,
each repeated `num_generations` times, to `rollout_func`, which plays every repeat as a
real episode in a sandbox of its own (`trainer.rollout`), scores each group
(`trainer.rewards`) and returns the tokens with `env_mask` (no loss on what the
environment said) and the scores.

Advantages are ours, not TRL's: TRL would standardise raw rewards over the whole group,
invalid rollouts included, and keep flat groups. So the one weighted reward TRL sees is
our advantage (zero for flat groups and invalid rollouts; `scale_rewards` is set to
"none", so TRL only re-centres it), and the parts of the reward are passed along with
weight 0, which TRL logs per step (`rewards/<part>/mean`) to the console and to
TensorBoard.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console

from toolscale.environment import system_prompt
from toolscale.spec import EnvironmentSpec
from toolscale.task import Task
from trainer.config import TrainConfig
from trainer.data import Split, load_split
from trainer.helpers import Helper, helper_models
from trainer.models import load_policy
from trainer.rewards import advantages, group_rewards
from trainer.rollout import GenerateBatch, Generated, Rollout, rollouts

# The parts of a rollout's score TRL logs beside the advantage it trains on.
PARTS = ("outcome", "efficiency", "preference", "reward", "cost", "turns", "invalid", "flat_group")


def opening(task: Task, spec: EnvironmentSpec) -> list[dict[str, str]]:
    """The prompt of a task: what `Environment.reset` opens an episode with."""
    user = "\n".join([task.instruction, *task.known_facts])
    return [{"role": "system", "content": system_prompt(spec)}, {"role": "user", "content": user}]


def _key(prompt: list[dict[str, Any]]) -> str:
    return json.dumps([(m["role"], m["content"]) for m in prompt])


@dataclass
class Prompts:
    """The training prompts, and the way back from a prompt to its task: TRL passes the
    rollout function only the prompts."""

    rows: list[dict[str, Any]]
    tasks: dict[str, tuple[Task, EnvironmentSpec]]

    @classmethod
    def of(cls, split: Split) -> Prompts:
        rows, tasks = [], {}
        for task in split.tasks:
            _, spec = split.environment(task)
            prompt = opening(task, spec)
            key = _key(prompt)
            if key in tasks:  # the same words for two tasks: one prompt cannot tell them apart
                continue
            tasks[key] = (task, spec)
            rows.append({"prompt": prompt, "task_id": task.id})
        return cls(rows, tasks)

    def task(self, prompt: list[dict[str, Any]]) -> tuple[Task, EnvironmentSpec]:
        return self.tasks[_key(prompt)]


def hf_generate(model: Any, tokenizer: Any, temperature: float, top_p: float) -> GenerateBatch:
    """Sampling with transformers' `generate`, left-padded, one batch per turn."""
    import torch

    eos, pad = tokenizer.eos_token_id, tokenizer.pad_token_id

    def generate(batch: list[list[int]], budgets: list[int]) -> list[Generated]:
        width = max(len(ids) for ids in batch)
        ids = torch.tensor([[pad] * (width - len(x)) + x for x in batch])
        mask = torch.tensor([[0] * (width - len(x)) + [1] * len(x) for x in batch])
        device = next(model.parameters()).device
        with torch.no_grad():
            out = model.generate(
                input_ids=ids.to(device),
                attention_mask=mask.to(device),
                max_new_tokens=max(budgets),
                do_sample=True,
                temperature=temperature,
                top_p=top_p,
                eos_token_id=eos,
                pad_token_id=pad,
            )
        turns = []
        for row, budget in zip(out[:, width:].tolist(), budgets, strict=True):
            row = row[:budget]
            turns.append(Generated(row[: row.index(eos) + 1] if eos in row else row))
        return turns

    return generate


def vllm_generate(trainer: Any) -> GenerateBatch:
    """Through TRL's vLLM backend (colocated or a server), which TRL keeps in step with the
    trained weights; the sampler's log-probabilities come back with the tokens."""
    eos = trainer.processing_class.eos_token_id

    def generate(batch: list[list[int]], budgets: list[int]) -> list[Generated]:
        _, completions, logprobs, _ = trainer.vllm_generation.generate(batch, None, 1)
        turns = []
        for ids, lps, budget in zip(completions, logprobs, budgets, strict=True):
            sampled = [float("nan") if lp[0] is None else float(lp[0]) for lp in lps]
            ids, lps = list(ids)[:budget], sampled[:budget]
            end = ids.index(eos) + 1 if eos in ids else len(ids)
            turns.append(Generated(ids[:end], lps[:end]))
        return turns

    return generate


def default_backend(trainer: Any) -> GenerateBatch:
    if trainer.args.use_vllm:
        return vllm_generate(trainer)
    model = trainer.accelerator.unwrap_model(trainer.model)
    return hf_generate(
        model, trainer.processing_class, trainer.args.temperature, trainer.args.top_p
    )


def score(batch: list[Rollout], prompts: list[Any], config: TrainConfig) -> dict[str, list[float]]:
    """Group the rollouts of each task (TRL repeats a prompt `num_generations` times in a
    row), reward each group, and turn rewards into advantages."""
    out: dict[str, list[float]] = {name: [] for name in (*PARTS, "advantage")}
    start = 0
    while start < len(batch):
        end = start + 1
        while end < len(batch) and _key(prompts[end]) == _key(prompts[start]):
            end += 1
        group = batch[start:end]
        episodes = [r.episode for r in group]
        task_prefs = group[0].task.preferences
        rewards = group_rewards(episodes, task_prefs, config.rewards)
        adv = advantages(rewards, config.rewards)
        for r, e, a in zip(rewards, episodes, adv or [0.0] * len(group), strict=True):
            out["outcome"].append(r.outcome)
            out["efficiency"].append(r.efficiency)
            out["preference"].append(r.preference)
            out["reward"].append(r.total)
            out["cost"].append(r.cost)
            out["turns"].append(float(e.evaluation.turns))
            out["invalid"].append(0.0 if r.valid else 1.0)
            out["flat_group"].append(1.0 if adv is None else 0.0)
            out["advantage"].append(a)
        start = end
    return out


def make_rollout_func(
    prompts: Prompts,
    config: TrainConfig,
    helpers: Mapping[str, Helper] | None = None,
    backend: Callable[[Any], GenerateBatch] = default_backend,
) -> Callable[[list[Any], Any], dict[str, Any]]:
    def rollout_func(batch_prompts: list[Any], trainer: Any) -> dict[str, Any]:
        if trainer.accelerator.num_processes > 1:  # a group could span ranks; vLLM's server
            raise RuntimeError(  # mode is a collective call each rank would make unevenly
                "the bundled trainer runs on one process: a task's rollouts must be scored "
                "together (launch without accelerate's multi-process mode)"
            )
        jobs = [prompts.task(p) for p in batch_prompts]
        done = rollouts(
            jobs,
            trainer.processing_class,
            backend(trainer),
            config.max_turns,
            trainer.args.max_completion_length,
            helpers,
        )
        scores = score(done, batch_prompts, config)
        masks = [
            r.env_mask if not inv else [0] * len(r.env_mask)  # a broken format carries no loss
            for r, inv in zip(done, scores["invalid"], strict=True)
        ]
        sampled = [r.logprobs for r in done] if trainer.args.use_vllm else None
        return {
            "prompt_ids": [r.prompt_ids for r in done],
            "completion_ids": [r.completion_ids for r in done],
            "logprobs": sampled,
            "env_mask": masks,
            **scores,
        }

    return rollout_func


def part_reward(name: str) -> Callable[..., list[float | None]]:
    """A TRL reward function that hands back one field the rollout function computed."""

    def reward(prompts: list[Any], completions: list[Any], **fields: Any) -> list[float | None]:
        return [float(v) for v in fields[name]]

    reward.__name__ = name
    return reward


def corpus(split: Split) -> list[str]:
    """The words the tiny tokenizer learns from: the split's prompts and tool schemas."""
    texts = [system_prompt(spec) for spec in split.environments.values()]
    texts += [json.dumps(spec.openai_tools()) for spec in split.environments.values()]
    texts += [t.instruction for t in split.tasks]
    texts += [json.dumps([c.model_dump() for c in t.gold_calls]) for t in split.tasks]
    return texts


def starting_policy(config: TrainConfig, split: Split, console: Console) -> Path:
    """The policy saved once under the output folder, so a resumed run and TRL's reference
    model start from the very same weights and tokenizer."""
    folder = Path(config.output_dir) / "policy-start"
    if (folder / "config.json").is_file():
        return folder
    console.print(f"train: preparing the starting policy ({config.model}) in {folder}")
    model, tokenizer = load_policy(config.model, corpus(split), config.seed)
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


@dataclass
class TrainResult:
    steps: int
    history: list[dict[str, float]]
    output_dir: str
    seconds: float


def train(
    config: TrainConfig,
    console: Console,
    backend: Callable[[Any], GenerateBatch] = default_backend,
) -> TrainResult:
    from datasets import Dataset
    from transformers import AutoTokenizer
    from trl import GRPOConfig, GRPOTrainer

    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")  # rollout_func is, and we know
    started = time.perf_counter()
    split = load_split(config.dataset, config.split, config.domains, config.limit)
    prompts = Prompts.of(split)
    console.print(f"train: {len(prompts.rows)} tasks of {config.dataset} ({config.split})")
    policy = starting_policy(config, split, console)
    tokenizer = AutoTokenizer.from_pretrained(policy)
    names = ["advantage", *PARTS]
    args = GRPOConfig(
        output_dir=config.output_dir,
        seed=config.seed,
        scale_rewards="none",
        reward_weights=[1.0] + [0.0] * len(PARTS),
        remove_unused_columns=False,
        **config.grpo,
    )
    peft_config = None
    if config.lora is not None:
        from peft import LoraConfig

        lora = config.lora
        peft_config = LoraConfig(
            r=lora.r,
            lora_alpha=lora.alpha,
            lora_dropout=lora.dropout,
            target_modules=lora.target_modules,
            task_type="CAUSAL_LM",
        )
    trainer = GRPOTrainer(
        model=str(policy),
        reward_funcs=[part_reward(n) for n in names],
        args=args,
        train_dataset=Dataset.from_list(prompts.rows),
        processing_class=tokenizer,
        peft_config=peft_config,
        rollout_func=make_rollout_func(prompts, config, helper_models(config.helpers), backend),
    )
    resume = any(Path(config.output_dir).glob("checkpoint-*"))
    if resume:
        console.print(f"train: resuming from the last checkpoint in {config.output_dir}")
    trainer.train(resume_from_checkpoint=resume or None)
    trainer.save_model(str(Path(config.output_dir) / "final"))
    history = [h for h in trainer.state.log_history if "step" in h and "loss" in h]
    return TrainResult(
        trainer.state.global_step, history, config.output_dir, time.perf_counter() - started
    )
