"""The shared tasks' official metrics, one module per task, behind one registry.

A CLI and a web leaderboard call every task the same way::

    report = score_files(TASK, gold_path, predictions_path, **options)   # options as SCORERS[TASK].options
    report.metrics            # {metric: value} in the order of SCORERS[TASK].metrics
    report.to_json(), report.to_text(), report.warnings
    order = rank(TASK, reports)   # indices of `reports`, best first
    place = places(TASK, reports) # each report's place; equal on the ranking's first key: the same place

Each shared task names its scorer (`SharedTask(scorer="scorer:SCORER")`, scorer_base.py), found by looking
(registry.py).
Each equals its task's official scorer on the same input, bugs included (see
``shared/formats-and-scorers.md``), and reports in ``warnings`` every quirk that touched the submission.
Wrong submissions raise ``annotator.core.errors.SubmissionError``, unusable gold files ``FormatError``, both located.
"""
from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any

from annotator.core.options import Option, parse_options
from annotator.estimation.ranks import competition_ranks
from annotator.lookups.score_report import ScoreReport
from annotator.lookups.scorer_base import RankRule, Scorer, shared_places
from annotator.plugins.registry import SHARED_TASKS, declared

__all__ = ["ScoreReport", "Scorer", "Option", "RankRule", "SCORERS", "score_files", "rank", "places",
           "competition_ranks", "scorer"]

SCORERS: dict[str, Scorer] = declared("scorer", [(task, found) for task in SHARED_TASKS.values() if task.scorer
                                                  for found in task.load((task.scorer,), Scorer, "scorer")])


def scorer(task: str) -> Scorer:
    try:
        return SCORERS[task]
    except KeyError:
        raise ValueError(f"unknown task {task!r}; known: {', '.join(SCORERS)}") from None


def score_files(task: str, gold: Path | str, predictions: Path | str, **options: Any) -> ScoreReport:
    """Score a predictions file against gold with the task's official metric; see ``SCORERS[task]``.

    Options may be given as text too (CLI arguments, form fields): ``"true"``, ``"2"``...
    """
    declared = scorer(task)
    kwargs = parse_options(declared.options, options, task)
    if Path(predictions).is_file() and zipfile.is_zipfile(predictions):
        declared.check_zip_members(Path(predictions))
    return declared.score_files(Path(gold), Path(predictions), **kwargs)


def rank(task: str, reports: list[ScoreReport], by: str | None = None) -> list[int]:
    """Indices of ``reports`` in leaderboard order, best first; equal entries keep their input order.

    ``by`` defaults to the task's official order (``SCORERS[task].rankings[0]``), a metric or one of the
    scorer's ranking rules; any headline metric name is also accepted (higher first).
    """
    keys = _keys(task, reports, by)
    return sorted(range(len(reports)), key=lambda i: keys[i])


def places(task: str, reports: list[ScoreReport], by: str | None = None) -> list[int]:
    """Each report's leaderboard place in the order of ``rank``: reports equal on the order's first key share
    a place and the next is skipped, e.g. KPA-2021's equal mean ranks (the overview paper's Table 2: 5, 5, 7)."""
    return shared_places(_keys(task, reports, by))


def _keys(task: str, reports: list[ScoreReport], by: str | None) -> list[tuple[float, ...]]:
    declared = scorer(task)
    for r in reports:
        if r.task != task:
            raise ValueError(f"cannot rank a {r.task} report on the {task} leaderboard")
    return declared.sort_keys([r.metrics for r in reports], by or declared.rankings[0])
