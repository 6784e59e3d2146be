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

from flask import current_app, has_app_context

from annotator.campaigns.exports import nothing_complete
from annotator.campaigns.uploads import UploadLimits, check_zip, safe_name, unpack_zip
from annotator.core.audit import record
from annotator.core.errors import FormatError
from annotator.core.extensions import db
from annotator.core.models import GoldSet, Project, Submission
from annotator.core.options import parse_options
from annotator.lookups.formats import project_format
from annotator.lookups.scorers import ScoreReport, competition_ranks, places, rank, score_files, scorer


@dataclass(frozen=True)
class Standing:
    position: int  # the place: entries equal on the ranking's first key share one (5, 5, 7)
    submission: Submission
    ranks: dict[str, int]  # per-metric competition ranks
    columns: dict[str, float]  # the ranking rules' own columns (e.g. a mean rank)
    beside: dict[str, dict[str, float]]  # per metric, the alternative rules' values where they differ


def stored_report(gold_set: GoldSet, submission: Submission) -> ScoreReport:
    """The report kept with a submission (without ``beside`` for submissions scored before it existed)."""
    kept = submission.report or {}
    return ScoreReport(gold_set.task, dict(submission.metrics), kept.get("detail", {}), kept.get("warnings", []),
                       kept.get("beside", {}))


def task_options(task: str, given: dict[str, Any]) -> dict[str, Any]:
    """The scorer's options that are set (checked; unknown names refused), for storing with a gold set."""
    declared = scorer(task).options
    values = parse_options(declared, {k: v for k, v in given.items() if v not in (None, "")}, task)
    return {o.name: values[o.name] for o in declared if o.name in given and given[o.name] not in (None, "")}


def _limits() -> UploadLimits:
    return UploadLimits.from_config(current_app.config) if has_app_context() else UploadLimits()


def _materialise(gold_set: GoldSet, folder: Path) -> Path:
    """The gold as the scorer wants it: a file, or the folder a stored zip holds (for folder gold).

    A zip is unpacked with the checks of every upload (uploads.unpack_zip: bounded size, ratio and
    member count, no member outside the folder), here and again at each scoring.
    """
    path = folder / "stored" / safe_name(gold_set.filename)
    path.parent.mkdir()
    path.write_bytes(gold_set.content)
    if scorer(gold_set.task).gold_kind == "file":
        if zipfile.is_zipfile(path):
            raise FormatError(f"this gold is one plain file ({scorer(gold_set.task).gold}); send the file itself, "
                              "not a zip", file=gold_set.filename)
        return path
    if not zipfile.is_zipfile(path):
        raise FormatError(f"{gold_set.task} gold must be a zip of {scorer(gold_set.task).gold}",
                          file=gold_set.filename)
    if not unpack_zip(path, folder / "gold", _limits()):  # an empty zip: no folder to read (was a 500)
        raise FormatError(f"the zip holds no file; {scorer(gold_set.task).gold} is expected", file=gold_set.filename)
    path.unlink()
    return _inner_folder(folder / "gold")


def _inner_folder(root: Path) -> Path:
    """The folder with the files: a zip of one folder holds them one level down."""
    entries = [p for p in root.iterdir() if not p.name.startswith(("__MACOSX", "."))]
    return _inner_folder(entries[0]) if len(entries) == 1 and entries[0].is_dir() else root


def create_gold_set(name: str, task: str, filename: str, content: bytes, options: dict[str, Any],
                    project: Project | None = None) -> GoldSet:
    """Keep a gold set after checking that its task's reader accepts it (FormatError otherwise)."""
    gold_set = GoldSet(name=name, task=task, filename=safe_name(filename), content=content,
                       options=task_options(task, options), project_id=project.id if project else None)
    with tempfile.TemporaryDirectory() as tmp:
        gold = scorer(task).read_gold_at(_materialise(gold_set, Path(tmp)), gold_set.options)
    if not content.strip() or (hasattr(gold, "__len__") and len(gold) == 0):
        # Accepted, an empty gold set made every later submission fail to score.
        raise FormatError(f"the gold holds nothing to score against: {scorer(task).gold} is expected",
                          file=gold_set.filename)
    db.session.add(gold_set)
    db.session.flush()
    record("goldset.create", project, detail={"gold_set_id": gold_set.id, "name": gold_set.name, "task": task,
                                              "filename": gold_set.filename, "from_project": project is not None})
    db.session.commit()
    return gold_set


def gold_set_from_project(project: Project, name: str | None = None) -> GoldSet:
    """A snapshot of the project's current gold, in its shared task's format."""
    fmt = project_format(project)
    if fmt.scoring_gold is None or fmt.scorer is None:
        raise FormatError(f"{fmt.title} projects have no official scorer to build a leaderboard on")
    if (reason := nothing_complete(project)) is not None:  # gold comes from complete items only
        raise FormatError(reason)
    with tempfile.TemporaryDirectory() as tmp:
        gold, options = fmt.scoring_gold(project, Path(tmp))
        if gold.is_dir():
            buffer = io.BytesIO()
            with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
                for path in sorted(gold.iterdir()):
                    archive.write(path, arcname=path.name)
            filename, content = f"{project.slug}-gold.zip", buffer.getvalue()
        else:
            filename, content = gold.name, gold.read_bytes()
    return create_gold_set(name or f"{project.name} (gold of {project.slug})", fmt.scorer,
                           filename, content, options, project=project)


def score_submission(gold_set: GoldSet, team: str, system: str, filename: str, content: bytes,
                     options: dict[str, Any] | None = None) -> Submission:
    """Score and keep a submission; SubmissionError (nothing kept) when it cannot be scored.

    `options`: the submission's own choices (the scorer's `submission_options`, e.g. the subtask), over the gold
    set's; kept in the report's detail.
    """
    chosen = {**gold_set.options, **{k: v for k, v in (options or {}).items() if v not in (None, "")}}
    filename = safe_name(filename)
    with tempfile.TemporaryDirectory() as tmp:
        predictions = Path(tmp) / "submission" / filename
        predictions.parent.mkdir()
        predictions.write_bytes(content)
        if zipfile.is_zipfile(predictions):  # scorers read members whole: bound what they can announce
            check_zip(predictions, _limits())
        gold = _materialise(gold_set, Path(tmp))
        report = score_files(gold_set.task, gold, predictions, **chosen)
    if options:
        report.detail["options"] = task_options(gold_set.task, chosen)
    submission = Submission(gold_set=gold_set, team=team, system=system, filename=filename,
                            content=content, metrics=report.metrics,
                            report={"detail": report.detail, "warnings": report.warnings, "beside": report.beside})
    db.session.add(submission)
    db.session.flush()
    project = db.session.get(Project, gold_set.project_id) if gold_set.project_id is not None else None
    record("leaderboard.submit", project, detail={
        "gold_set_id": gold_set.id, "submission_id": submission.id, "team": team, "system": system,
        "filename": filename})
    db.session.commit()
    return submission


def standings(gold_set: GoldSet, by: str | None = None) -> list[Standing]:
    """The gold set's submissions in the task's leaderboard order."""
    submissions = list(gold_set.submissions)
    reports = [stored_report(gold_set, s) for s in submissions]
    order = rank(gold_set.task, reports, by=by)
    place = places(gold_set.task, reports, by=by)
    declared = scorer(gold_set.task)
    ranks = {m: competition_ranks([s.metrics[m] for s in submissions]) for m in declared.metrics}
    columns = {rule.column: rule.value([s.metrics for s in submissions])
               for rule in declared.rules.values() if rule.column and rule.value}
    return [Standing(place[i], submissions[i], {m: ranks[m][i] for m in declared.metrics},
                     {c: values[i] for c, values in columns.items()},
                     {m: reports[i].differing(m) for m in declared.metrics}) for i in order]

