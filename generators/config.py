"""The numbers a generation run is tuned by, in one documented place (as TRL's `GRPOConfig`
gathers a trainer's): how hard each stage is retried, how much work a strategy may spend,
how much is in flight and how much is lost at most to a kill. Defaults are what the tests
and the README's figures were measured with."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class GenerationConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    env_attempts: int = Field(
        default=3,
        ge=1,
        description="Fresh samples per environment stage (schema, rows, policy), each with its "
        "own repair loop, before the stage fails: a sample that went wrong is often past "
        "repair, and a new one is cheaper than giving up on the domain.",
    )
    batch_size: int = Field(
        default=8,
        ge=1,
        description="Finished work items per committed batch. A batch is the unit of "
        "durability: a kill -9 loses at most this many finished items (redone from the LLM "
        "cache on resume), and fewer means more small files.",
    )
    budget_factor: int = Field(
        default=4,
        ge=1,
        description="Work items a strategy may propose per verified task it should bring, so "
        "a strategy that keeps failing stops instead of spending without end. A strategy's "
        "`budget_divisor` lowers it for expensive proposals.",
    )
    budget_slack: int = Field(
        default=4,
        ge=0,
        description="Work items added to every budget, so a target of one or two tasks still "
        "gets a few tries.",
    )
    window_per_slot: int = Field(
        default=2,
        ge=1,
        description="Work items in flight per concurrent LLM request: while one item is "
        "verified on the verifier's thread, the next already waits on the model, so the "
        "endpoint's slots stay busy.",
    )
    min_window: int = Field(
        default=2,
        ge=1,
        description="The fewest work items in flight, whatever the concurrency.",
    )
    typed_tools: int = Field(
        default=6,
        ge=0,
        description="Up to this many tools, an LLM-invented task's calls are a union of one "
        "typed shape per tool; past it, a tool name and a flat argument object (a union of "
        "typed calls slows a CPU server's grammar about 4x).",
    )

    refusal_share: float = Field(
        default=0.33,
        ge=0,
        le=1,
        description="Share of intent work items that look for an operation a rule forbids "
        "(a refusal task); one that finds none drafts a served task. At 0.25, basketball and "
        "travel kept 2 refusals of 30.",
    )
    refusal_floor: float = Field(
        default=0.12,
        ge=0,
        le=1,
        description="Where the tasks a run resumes with hold fewer refusals than this share, "
        "its intent work items look for one at `refusal_catch_up` instead: a refusal is kept "
        "less often than a served task (weather: 2 of 24 refusal proposals, 28 of 142 "
        "others), and the issue's floor is 10%. Read once per run, so the tasks a run "
        "proposes do not depend on the order its answers arrive in.",
    )
    refusal_catch_up: float = Field(
        default=0.75,
        ge=0,
        le=1,
        description="The share of intent work items that look for a refusal while the kept "
        "tasks are under `refusal_floor`.",
    )

    judge: bool = Field(
        default=True,
        description="After the verifier accepts a task, a model judges whether a careful agent "
        "would do exactly its gold (validators/judge.py): one more LLM request per verified "
        "task, and a task the judge refuses (or cannot judge) is rejected with stage `judge`. "
        "Off, verified tasks are kept unjudged (`toolscale generate --no-judge`).",
    )
    solver_k: int = Field(
        default=0,
        ge=0,
        description="When above 0, a task the judge keeps must also be solved by an agent "
        "model (the run's endpoint unless another is given) in its sandbox within this many "
        "episodes, or it is rejected with stage `solver` (`toolscale generate --solver-k K`).",
    )
    solver_max_turns: int = Field(default=20, ge=1, description="Turns per solver episode.")
    tool_choice_feedback: int = Field(
        default=0,
        ge=0,
        description="Times the problems of the model's tool choice go back to it before what "
        "fits of its answer is kept. 0: the first answer's usable part is kept; on three "
        "domains' cached answers 2 rounds gave the same tools and rules for 2 more calls "
        "(`bench/tool_choice.py --replay`).",
    )
    free_sql_tools: bool = Field(
        default=False,
        description="Also let the model write tools as free SQL (plan, then each tool's "
        "program), checked like the catalogue's: for strong models. Off by default, since a "
        "small model's SQL fails the checks and the catalogue's choices do not.",
    )
    tool_plan_samples: int = Field(
        default=2,
        ge=1,
        description="Fresh samples of the free-SQL tool plan before that stage gives up.",
    )
    tool_budget_s: float = Field(
        default=600.0,
        gt=0,
        description="Wall-clock seconds the free-SQL tool stage may spend in all; tools not "
        "done by then are dropped (budget_spent), so a looping model cannot hold a domain "
        "for half an hour.",
    )
    tool_plan_tokens: int = Field(
        default=1024,
        ge=64,
        description="Most tokens of one tool plan answer: a plan of 12 tools fits in far "
        "fewer, and a model that loops is cut early.",
    )

    def window(self, concurrency: int) -> int:
        """Work items kept in flight against an endpoint of `concurrency` slots."""
        return max(self.min_window, self.window_per_slot * concurrency)


DEFAULT_CONFIG = GenerationConfig()
