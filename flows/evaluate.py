"""`toolscale eval`: an OpenAI-compatible model as the agent over a split of the dataset.

Trials are written as they finish (`trials.jsonl` when the run ends; an interrupted run
keeps what it had as `trials.jsonl.partial`), then `report.json`. The terminal shows
progress (a bar, or a line per tenth when piped) and ends with the pass^k table, which
is also left as a Prefect artifact.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from prefect import flow, get_run_logger
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from flows.console import leave_artifact, make_console
from toolscale.jsonl import AtomicWriter, write_json
from toolscale.llm.endpoint import endpoint
from trainer.data import load_split
from trainer.evaluate import EvalReport, Scores, Trial, report, run_trials
from trainer.policies import OpenAIPolicy


def scores_table(result: EvalReport) -> Table:
    table = Table(
        title=f"{result.model}: pass^k over {result.overall.tasks} tasks", title_justify="left"
    )
    table.add_column("group")
    for j in range(1, result.k + 1):
        table.add_column(f"pass^{j}", justify="right")
    for col in ("tasks", "cost $", "latency ms", "turns", "invalid", "errors"):
        table.add_column(col, justify="right")

    def row(name: str, s: Scores) -> None:
        table.add_row(
            name,
            *(f"{s.pass_hat[j]:.3f}" for j in range(1, result.k + 1)),
            str(s.tasks),
            f"{s.mean_cost:.5f}",
            f"{s.mean_latency_ms:.0f}",
            f"{s.mean_turns:.1f}",
            str(s.invalid_calls),
            str(s.errors),
        )

    row("all", result.overall)
    for name, s in result.by_domain.items():
        row(f"domain {name}", s)
    for name, s in result.by_difficulty.items():
        row(f"difficulty {name}", s)
    table.caption = f"{result.overall.trials} trials in {result.seconds:.1f} s"
    return table


def markdown(result: EvalReport) -> str:
    ks = range(1, result.k + 1)
    lines = [
        f"# eval: {result.model}",
        "",
        "| group | "
        + " | ".join(f"pass^{j}" for j in ks)
        + " | tasks | mean cost $ | mean turns |",
        "|---|" + "---:|" * (result.k + 3),
    ]
    groups = [("all", result.overall)]
    groups += [(f"domain {n}", s) for n, s in result.by_domain.items()]
    groups += [(f"difficulty {n}", s) for n, s in result.by_difficulty.items()]
    for name, s in groups:
        hats = " | ".join(f"{s.pass_hat[j]:.3f}" for j in ks)
        lines.append(f"| {name} | {hats} | {s.tasks} | {s.mean_cost:.5f} | {s.mean_turns:.1f} |")
    return "\n".join(lines) + "\n"


@contextlib.contextmanager
def _progress(console: Console, total: int) -> Iterator[Callable[[int, int], None]]:
    """A bar on a terminal; a plain line per tenth of the trials in a log file."""
    if console.is_terminal:
        bar = Progress(
            TextColumn("eval"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=console,
        )
        task = bar.add_task("eval", total=total)
        with bar:
            yield lambda done, solved: bar.update(task, completed=done)
        return
    step = max(1, total // 10)

    def line(done: int, solved: int) -> None:
        if done % step == 0 or done == total:
            console.print(f"eval: {done}/{total} trials, {solved} solved")

    yield line


@flow(name="evaluate-agent", log_prints=True)
async def evaluate_agent(
    model: str | None,
    base_url: str | None,
    dataset: str,
    split: str = "test",
    k: int = 4,
    domains: list[str] | None = None,
    limit: int | None = None,
    max_turns: int = 30,
    workers: int = 4,
    temperature: float = 0.0,
    api_key: str | None = None,
    out: str = "out/eval",
    model_size: str = "1.5b",
    text_calls: bool = False,
) -> dict:
    """Loads the split as a consumer would, runs k trials per task, writes the results.
    With no model and endpoint given (nor TOOLSCALE_LLM_MODEL set), the agent is the
    embedded llama.cpp server of `model_size`, started for the run."""
    console = make_console()
    data = load_split(dataset, split, domains, limit)
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    trials: list[Trial] = []
    total = len(data.tasks) * k
    with endpoint(base_url, model, model_size, workers, console) as llm:
        console.print(f"eval: {llm.model} on {len(data.tasks)} tasks of {dataset} ({split}), k={k}")

        def policy() -> OpenAIPolicy:
            key = api_key or llm.api_key
            return OpenAIPolicy(
                llm.model,
                llm.base_url,
                key,
                temperature=temperature,
                timeout_s=llm.timeout_s,
                text_calls=text_calls,
            )

        with AtomicWriter(folder / "trials.jsonl") as writer, _progress(console, total) as tick:
            for trial in run_trials(data, policy, k, max_turns, workers):
                writer.write(trial)
                trials.append(trial)
                tick(len(trials), sum(t.success for t in trials))
        name = llm.model
    result = report(name, trials, k, time.perf_counter() - started)
    write_json(folder / "report.json", result)
    console.print(scores_table(result))
    await leave_artifact(console, "eval", markdown(result), f"toolscale eval {model}")
    with contextlib.suppress(Exception):
        get_run_logger().info(
            "pass^1 %.3f over %d tasks", result.overall.pass_hat[1], result.overall.tasks
        )
    return result.model_dump(mode="json")
