"""Leaderboards: score teams' submissions against a gold set and rank them as each task did.

Scoring itself is annotator/scoring (pure functions over files); this module keeps gold sets and
submissions in the database and materialises them as files in a temporary folder to score.
"""
from __future__ import annotations

import io
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import FormatError
from .exchange import exchange_for
from .extensions import db
from .models import GoldSet, Project, Submission
from .scoring import SCORERS, ScoreReport, competition_ranks, rank, score_files
from .scoring import emphasis2020, kpa2021, recam2021, ruarg2022

# How each task's gold is read, to refuse an unusable gold set when it is uploaded, not later.
GOLD_READERS = {
    "kpa2021": lambda path, options: kpa2021.read_gold(path, options.get("split", "dev")),
    "emphasis2020": lambda path, options: emphasis2020.read_sentences(path, gold=True),
    "ruarg2022": lambda path, options: ruarg2022.read_table(path, gold=True),
    "recam2021": lambda path, options: recam2021.read_gold(path),
}


@dataclass(frozen=True)
class Standing:
    position: int
    submission: Submission
    ranks: dict[str, int]  # per-metric competition ranks, e.g. strict and relaxed for KPA


def task_options(task: str, given: dict[str, Any]) -> dict[str, Any]:
    """Only the options the task's scorer accepts, without unset values."""
    return {k: v for k, v in given.items() if k in SCORERS[task].options and v not in (None, "")}


def _materialise(gold_set: GoldSet, folder: Path) -> Path:
    """The gold as the scorer wants it: a file, or for kpa2021 the folder inside the stored zip."""
    if gold_set.task != "kpa2021":
        path = folder / Path(gold_set.filename).name
        path.write_bytes(gold_set.content)
        return path
    try:
        with zipfile.ZipFile(io.BytesIO(gold_set.content)) as archive:
            archive.extractall(folder / "gold")
    except zipfile.BadZipFile:
        raise FormatError("a kpa2021 gold set must be a zip of arguments_<split>.csv, key_points_<split>.csv "
                          "and labels_<split>.csv", file=gold_set.filename) from None
    split = gold_set.options.get("split", "dev")
    found = sorted((folder / "gold").rglob(f"arguments_{split}.csv"))
    if not found:
        raise FormatError(f"the zip holds no arguments_{split}.csv", file=gold_set.filename)
    return found[0].parent


def create_gold_set(name: str, task: str, filename: str, content: bytes, options: dict[str, Any],
                    project: Project | None = None) -> GoldSet:
    """Keep a gold set after checking that its task's reader accepts it (FormatError otherwise)."""
    gold_set = GoldSet(name=name, task=task, filename=Path(filename).name, content=content,
                       options=task_options(task, options), project_id=project.id if project else None)
    with tempfile.TemporaryDirectory() as tmp:
        GOLD_READERS[task](_materialise(gold_set, Path(tmp)), gold_set.options)
    db.session.add(gold_set)
    db.session.commit()
    return gold_set


def gold_set_from_project(project: Project, name: str | None = None) -> GoldSet:
    """A snapshot of the project's current gold, in its shared task's format."""
    exchange = exchange_for(project.source.get("format", ""))
    if not hasattr(exchange, "scoring_gold"):
        raise FormatError(f"{exchange.FORMAT} projects cannot be scored yet")
    with tempfile.TemporaryDirectory() as tmp:
        gold, options = exchange.scoring_gold(project, Path(tmp))
        if gold.is_dir():
            buffer = io.BytesIO()
            with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
                for path in sorted(gold.iterdir()):
                    archive.write(path, arcname=path.name)
            filename, content = f"{project.slug}-gold.zip", buffer.getvalue()
        else:
            filename, content = gold.name, gold.read_bytes()
    return create_gold_set(name or f"{project.name} (gold of {project.slug})", exchange.SCORING_TASK,
                           filename, content, options, project=project)


def score_submission(gold_set: GoldSet, team: str, system: str, filename: str, content: bytes) -> Submission:
    """Score and keep a submission; SubmissionError (nothing kept) when it cannot be scored."""
    with tempfile.TemporaryDirectory() as tmp:
        gold = _materialise(gold_set, Path(tmp))
        predictions = Path(tmp) / "submission" / (Path(filename).name or "submission")
        predictions.parent.mkdir()
        predictions.write_bytes(content)
        report = score_files(gold_set.task, gold, predictions, **gold_set.options)
    submission = Submission(gold_set=gold_set, team=team, system=system, filename=Path(filename).name,
                            content=content, metrics=report.metrics,
                            report={"detail": report.detail, "warnings": report.warnings})
    db.session.add(submission)
    db.session.commit()
    return submission


def standings(gold_set: GoldSet, by: str | None = None) -> list[Standing]:
    """The gold set's submissions in the task's leaderboard order."""
    submissions = list(gold_set.submissions)
    reports = [ScoreReport(gold_set.task, s.metrics) for s in submissions]
    order = rank(gold_set.task, reports, by=by)
    metrics = SCORERS[gold_set.task].metrics
    ranks = {m: competition_ranks([s.metrics[m] for s in submissions]) for m in metrics}
    return [Standing(n + 1, submissions[i], {m: ranks[m][i] for m in metrics}) for n, i in enumerate(order)]
