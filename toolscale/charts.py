"""The dataset card's plots, for what a person would rather look at than read: the yield
of each domain's run stage by stage, tasks per domain and difficulty, calls per task, and
how often each tool is called. PNGs with no timestamp in them, so an unchanged export is
byte-identical."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only, never a window

import matplotlib.pyplot as plt
from matplotlib.figure import Figure

LEVELS = ("easy", "medium", "hard")
TOP_TOOLS = 20


def _save(fig: Figure, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    fig.savefig(path, dpi=100, metadata={"Software": None})
    plt.close(fig)


def yield_funnel(funnels: Mapping[str, Mapping[str, int]], path: Path) -> None:
    """Per domain, how many task proposals reached each step: proposed, verified, judged,
    exported."""
    fig, ax = plt.subplots(figsize=(8, 1.6 + 0.7 * len(funnels)))
    steps = list(next(iter(funnels.values())).keys()) if funnels else []
    domains = list(funnels)
    height = 0.8 / max(1, len(steps))
    for i, step in enumerate(steps):
        ax.barh(
            [d + i * height for d in range(len(domains))],
            [funnels[d][step] for d in domains],
            height=height,
            label=step,
        )
    ax.set_yticks([d + height * (len(steps) - 1) / 2 for d in range(len(domains))], domains)
    ax.invert_yaxis()
    ax.set_xlabel("tasks")
    ax.set_title("Yield: task proposals kept at each step")
    ax.legend(loc="center left", bbox_to_anchor=(1.0, 0.5), fontsize="small")
    _save(fig, path)


def by_difficulty(levels: Mapping[str, Mapping[str, int]], path: Path) -> None:
    """Tasks per domain, stacked by difficulty."""
    fig, ax = plt.subplots(figsize=(8, 3.5))
    domains = list(levels)
    bottom = [0] * len(domains)
    for level in LEVELS:
        counts = [levels[d].get(level, 0) for d in domains]
        ax.bar(domains, counts, bottom=bottom, label=level)
        bottom = [b + c for b, c in zip(bottom, counts, strict=True)]
    ax.set_ylabel("tasks")
    ax.set_title("Tasks per domain and difficulty")
    ax.legend(fontsize="small")
    ax.tick_params(axis="x", labelrotation=30)
    _save(fig, path)


def calls_per_task(calls: Mapping[int, int], path: Path) -> None:
    """How many gold calls the tasks take."""
    fig, ax = plt.subplots(figsize=(6, 3))
    ns = sorted(calls)
    ax.bar([str(n) for n in ns], [calls[n] for n in ns])
    ax.set_xlabel("gold calls per task")
    ax.set_ylabel("tasks")
    ax.set_title("Calls per task")
    _save(fig, path)


def tool_usage(uses: Mapping[str, int], path: Path) -> None:
    """The tools gold sequences call most, and how often."""
    top = sorted(uses.items(), key=lambda kv: (-kv[1], kv[0]))[:TOP_TOOLS]
    fig, ax = plt.subplots(figsize=(7, 1 + 0.3 * len(top)))
    ax.barh([name for name, _ in top], [n for _, n in top])
    ax.invert_yaxis()
    ax.set_xlabel("calls in gold sequences")
    ax.set_title(f"Tool usage (top {len(top)})")
    _save(fig, path)
