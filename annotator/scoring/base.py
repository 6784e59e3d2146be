"""What a scorer declares: its metrics, options, gold layout and how its leaderboard ranks.

Kept apart from the registry (`__init__`) so that each task's module can declare its own `SCORER`
without importing the registry that finds it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Literal, Mapping

from ..options import Option
from .report import ScoreReport

Metrics = Mapping[str, float]


def competition_ranks(values: list[float]) -> list[int]:
    """1 + the number of strictly better values ("1224" ranking: equal values share a rank)."""
    return [1 + sum(other > v for other in values) for v in values]


@dataclass(frozen=True)
class RankRule:
    """A leaderboard order other than "this metric, higher first".

    `keys` gives one sort key per entry (lower sorts first; equal keys keep the input order);
    `column`, when set, is shown on the leaderboard with `value` per entry.
    """

    note: str
    keys: Callable[[list[Metrics]], list[tuple[float, ...]]]
    column: str | None = None
    value: Callable[[list[Metrics]], list[float]] | None = None


@dataclass(frozen=True)
class Scorer:
    """What a caller needs to know about a task's official metric without importing its module.

    ``rankings`` are the leaderboard orders the task used, the first being ``rank``'s default (a task may have
    ranked two metrics in separate lists).
    A ranking is a metric name or the name of one of ``rules``. ``gold_kind`` says whether the gold is one
    file or a folder of files (kept as a zip). ``read_gold(path, **options)`` reads the gold as scoring
    would and raises a located FormatError, so an unusable gold set is refused when it is uploaded.
    """

    name: str
    title: str
    metrics: tuple[str, ...]
    gold: str
    predictions: str
    options: tuple[Option, ...]
    rankings: tuple[str, ...]
    score_files: Callable[..., ScoreReport]
    read_gold: Callable[..., Any]
    gold_kind: Literal["file", "folder"] = "file"
    rules: dict[str, RankRule] = field(default_factory=dict)

    @property
    def task(self) -> str:
        return self.name

    def option(self, name: str) -> Option:
        return next(o for o in self.options if o.name == name)

    def sort_keys(self, metrics: list[Metrics], by: str) -> list[tuple[float, ...]]:
        if by in self.rules:
            return self.rules[by].keys(metrics)
        if by in self.metrics:
            return [(-m[by],) for m in metrics]
        raise ValueError(f"{self.name}: cannot rank by {by!r}; use one of {', '.join(self.rankings)} "
                         "or a metric name")

    def read_gold_at(self, path: Path, options: Mapping[str, Any]) -> Any:
        return self.read_gold(path, **options)
