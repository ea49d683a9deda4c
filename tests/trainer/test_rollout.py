"""Token-level rollouts on the tiny tokenizer with real sandboxes: the model's turns carry
the loss and the environment's do not, a scripted gold solves, a skipped write fails, and
the random model's own turns end cleanly within the budget."""

from __future__ import annotations

from tests.trainer.scripted import gold_turns
from toolscale.spec import EnvironmentSpec
from toolscale.task import Task
from trainer.data import Split
from trainer.grpo import corpus, hf_generate
from trainer.models import tiny_model, tiny_tokenizer
from trainer.rollout import rollouts


def writes_last(tasks: list[Task], spec: EnvironmentSpec) -> list[Task]:
    """Tasks whose last gold call is a write that succeeds: skipping it must fail them."""
    tools = spec.tool_map()
    return [
        t
        for t in tasks
        if len(t.gold_calls) > 1
        and tools[t.gold_calls[-1].name].kind == "write"
        and not t.gold_calls[-1].expect_error
    ]


def test_the_gold_solves_and_only_the_models_tokens_carry_loss(
    banking_spec: EnvironmentSpec, verified: list[Task]
) -> None:
    tasks = verified[:3]
    tokenizer = tiny_tokenizer(corpus(Split(tasks, {"bank": banking_spec})))
    jobs = [(t, banking_spec) for t in tasks]
    done = rollouts(jobs, tokenizer, gold_turns(tasks, tokenizer), 10, 20_000)
    for r, task in zip(done, tasks, strict=True):
        assert r.episode.solved and r.episode.stop == "answer", task.id
        assert len(r.completion_ids) == len(r.env_mask) == len(r.logprobs)
        own = tokenizer.decode([t for t, m in zip(r.completion_ids, r.env_mask, strict=True) if m])
        said = tokenizer.decode(
            [t for t, m in zip(r.completion_ids, r.env_mask, strict=True) if not m]
        )
        assert own.count("<tool_call>") == len(task.gold_calls) and "<tool_response>" not in own
        assert said.count("<tool_response>") == len(task.gold_calls) and "<tool_call>" not in said
        prompt = tokenizer.decode(r.prompt_ids)
        assert task.instruction in prompt and banking_spec.tools[0].name in prompt


def test_a_rollout_that_skips_its_last_write_fails(
    banking_spec: EnvironmentSpec, verified: list[Task]
) -> None:
    tasks = writes_last(verified, banking_spec)[:2]
    assert tasks, "the banking fixture has tasks that end in a write"
    tokenizer = tiny_tokenizer(corpus(Split(tasks, {"bank": banking_spec})))
    skip = gold_turns(tasks, tokenizer, skip_last_write=lambda: True)
    done = rollouts([(t, banking_spec) for t in tasks], tokenizer, skip, 10, 20_000)
    assert all(not r.episode.solved and not r.episode.evaluation.state_match for r in done)


def test_the_random_models_own_turns_end_within_the_budget(
    banking_spec: EnvironmentSpec, verified: list[Task]
) -> None:
    tasks = verified[:2]
    tokenizer = tiny_tokenizer(corpus(Split(tasks, {"bank": banking_spec})))
    model = tiny_model(tokenizer)
    generate = hf_generate(model, tokenizer, temperature=1.0, top_p=1.0)
    done = rollouts([(t, banking_spec) for t in tasks] * 2, tokenizer, generate, 3, 48)
    eos = tokenizer.eos_token_id
    for r in done:
        assert 0 < len(r.completion_ids) <= 48 and sum(r.env_mask) > 0
        assert not r.episode.solved
        last_own = [t for t, m in zip(r.completion_ids, r.env_mask, strict=True) if m][-1]
        if last_own != eos:  # its last turn ran out of budget: cut, a failure, not a format
            assert r.episode.stop == "length" and r.episode.format_error is None


def test_a_tool_output_that_does_not_fit_ends_the_episode_as_cut_not_broken(
    banking_spec: EnvironmentSpec, verified: list[Task]
) -> None:
    tasks = verified[:1]
    tokenizer = tiny_tokenizer(corpus(Split(tasks, {"bank": banking_spec})))
    gold = gold_turns(tasks, tokenizer)
    first_turn = len(gold([[*tokenizer.encode(tasks[0].instruction)]], [10_000])[0].ids)
    (r,) = rollouts([(tasks[0], banking_spec)], tokenizer, gold, 10, first_turn + 5)
    assert r.episode.stop == "length" and not r.episode.solved
    assert len(r.completion_ids) == first_turn and all(r.env_mask)


def test_a_backend_failure_reaches_every_episode_and_nothing_hangs(
    banking_spec: EnvironmentSpec, verified: list[Task]
) -> None:
    import pytest

    tasks = verified[:3]
    tokenizer = tiny_tokenizer(corpus(Split(tasks, {"bank": banking_spec})))

    def down(batch: list[list[int]], budgets: list[int]) -> list:
        raise ConnectionError("vLLM went away")

    with pytest.raises(RuntimeError, match="generation failed"):
        rollouts([(t, banking_spec) for t in tasks], tokenizer, down, 5, 1000)

    def short(batch: list[list[int]], budgets: list[int]) -> list:
        return []  # fewer turns than asked: an error, not episodes waiting forever

    with pytest.raises(RuntimeError, match="generation failed"):
        rollouts([(t, banking_spec) for t in tasks], tokenizer, short, 5, 1000)
