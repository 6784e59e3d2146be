"""KPA-2021 Track 2 (key-point generation) system outputs, read and checked against a split's arguments.

A system hands in two files in its own folder (the task README's "Track 2"): ``key_points.csv`` in the
Track-1 layout (its own generated key points) and ``predictions.p``, the Track-1 JSON of match scores
``{arg_id: {key_point_id: score}}``. Checked here, with file and line: every key point well formed (the
Track-1 reader), every argument of the predictions in the split, every key point known to the system and
of the argument's topic and stance, every score a finite number; and the README's "at least 5 key points
and at most 10" for each topic and stance of the split (`check_counts`; other campaigns turn it off).

What the organisers did with them, on the Track-1 scorer's own code path (scorer.py): pair each
argument with its first maximal key point, keep the top half per topic+stance (`evaluated_pairs`), have
those pairs judged, and compute mAP on the judgments (`mean_average_precision`, and one mAP over the
judged pairs of a sample in track2_map.py). The set comparison shows each system's key points with their
prevalence (`summaries`).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from annotator.core.errors import FormatError, LocatedError
from annotator.lookups.score_report import ScoreReport
from annotator.shared_tasks.kpa2021.files import Argument, KeyPoint, read_key_points
from annotator.shared_tasks.kpa2021.scorer import KpaGold, kept_pairs, score
from annotator.shared_tasks.kpa2021.scorer_io import line_of, read_predictions

KEY_POINTS, PREDICTIONS = "key_points.csv", "predictions.p"
SYSTEM_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,59}$")
HIDDEN_SHARE = 0.01  # key points of at most 1% of their topic+stance's matched arguments are not shown
FEWEST, MOST = 5, 10  # key points per topic and stance (the task README, Track 2 output)


@dataclass(frozen=True)
class SystemRun:
    name: str
    key_points: dict[str, KeyPoint]                    # in file order
    predictions: dict[str, dict[str, Any]]             # as the file has them (key order decides ties)

    def to_json(self) -> dict[str, Any]:
        """Predictions as [arg_id, [[key_point_id, score], ...]] lists: their order decides ties, and PostgreSQL's
        JSONB would re-order an object's keys (shorter first)."""
        return {"key_points": [[k.key_point_id, k.key_point, k.topic, k.stance] for k in self.key_points.values()],
                "predictions": [[arg_id, [[kp, score] for kp, score in scores.items()]]
                                for arg_id, scores in self.predictions.items()]}

    @classmethod
    def from_json(cls, name: str, data: dict[str, Any]) -> SystemRun:
        stored = data["predictions"]  # an object in projects imported before the lists
        predictions = {arg_id: dict(scores) for arg_id, scores in stored} if isinstance(stored, list) else stored
        return cls(name, {row[0]: KeyPoint(*row) for row in data["key_points"]}, predictions)


def system_option(text: str) -> tuple[str, Path]:
    """A --system value, NAME=FOLDER."""
    name, sep, folder = text.partition("=")
    if not sep or not SYSTEM_NAME.match(name) or not folder:
        raise ValueError(f"{text!r} is not NAME=FOLDER (a name of letters, digits, '.', '_' or '-', then the folder)")
    return name, Path(folder)


def discover_systems(folder: Path) -> list[tuple[str, Path]]:
    """The systems of an upload: one folder each under ``systems/``, named as the system."""
    root = Path(folder) / "systems"
    found = sorted((p.name, p) for p in root.iterdir() if p.is_dir()) if root.is_dir() else []
    if not found:
        raise FormatError("no system given: name them with --system NAME=FOLDER, or put each system's "
                          f"{KEY_POINTS} and {PREDICTIONS} in a folder systems/NAME/ next to the arguments file")
    for name, _ in found:
        if not SYSTEM_NAME.match(name):
            raise FormatError(f"{name!r} cannot name a system: letters, digits, '.', '_' or '-' only",
                              file=f"systems/{name}")
    return found


def _located(error: LocatedError, system: str) -> FormatError:
    return FormatError(error.message, file=f"{system}/{error.file}" if error.file else system, line=error.line,
                       column=error.column)


def read_system(folder: Path, name: str, arguments: list[Argument], *, any_count: bool = False) -> SystemRun:
    """One system's key points and predictions, checked against the split's arguments (and, unless
    `any_count`, the Track-2 rule of 5 to 10 key points per topic and stance)."""
    folder = Path(folder)
    for needed in (KEY_POINTS, PREDICTIONS):
        if not (folder / needed).is_file():
            raise FormatError(f"{needed} is missing (a system hands in {KEY_POINTS} and {PREDICTIONS})",
                              file=f"{name}/{needed}")
    try:
        lines = read_key_points(folder / KEY_POINTS)
        predictions = read_predictions(folder / PREDICTIONS)
    except LocatedError as error:
        raise _located(error, name) from None
    if not any_count:
        check_counts(name, lines, arguments)
    key_points = {kp.key_point_id: kp for _, kp in lines}
    _check_predictions(folder / PREDICTIONS, name, predictions, key_points, {a.arg_id: a for a in arguments})
    return SystemRun(name, key_points, predictions)


def check_counts(name: str, lines: list[tuple[int, KeyPoint]], arguments: list[Argument]) -> None:
    """FormatError unless every topic+stance of the split has 5 to 10 of the system's key points.

    Why: the README's Track-2 output is "at least 5 key points and at most 10 per topic"; with fewer, a set
    of one vague key point per stance would match every argument and look best in mAP (the overview's
    §3.3.2 warns of exactly that). The error points at the line that breaks the rule: the 11th key point of
    a group, or the last one of a group with too few.
    """
    where = f"{name}/{KEY_POINTS}"
    for topic, stance in dict.fromkeys((a.topic, a.stance) for a in arguments):
        group = [line for line, kp in lines if (kp.topic, kp.stance) == (topic, stance)]
        what = f"topic {topic!r}, stance {'pro' if stance == 1 else 'con'} ({stance})"
        rule = (f"a Track-2 system gives at least {FEWEST} and at most {MOST} key points per topic and stance "
                "(allow any number for a campaign with other rules)")
        if len(group) > MOST:
            raise FormatError(f"{len(group)} key points for {what}: {rule}", file=where, line=group[MOST],
                              column="key_point_id")
        if len(group) < FEWEST:
            raise FormatError(f"{len(group) or 'no'} key point{'' if len(group) == 1 else 's'} for {what}: {rule}",
                              file=where, line=group[-1] if group else None,
                              column="key_point_id" if group else None)


def _check_predictions(path: Path, name: str, predictions: dict[str, dict[str, Any]],
                       key_points: dict[str, KeyPoint], arguments: dict[str, Argument]) -> None:
    text = path.read_bytes().decode("utf-8-sig", errors="replace")
    where = f"{name}/{PREDICTIONS}"
    for arg_id, scores in predictions.items():
        line, after = line_of(text, arg_id)
        argument = arguments.get(arg_id)
        if argument is None:
            raise FormatError(f"unknown argument {arg_id!r}: it is not in the split's arguments file", file=where,
                              line=line)
        for kp_id in scores:
            kp = key_points.get(kp_id)
            kp_line = line_of(text, kp_id, after)[0] or line
            if kp is None:
                raise FormatError(f"argument {arg_id}: unknown key point {kp_id!r}, not in the system's {KEY_POINTS}",
                                  file=where, line=kp_line)
            if (kp.topic, kp.stance) != (argument.topic, argument.stance):
                raise FormatError(f"argument {arg_id} ({argument.topic!r}, stance {argument.stance}) is scored "
                                  f"against key point {kp_id} of another topic or stance ({kp.topic!r}, stance "
                                  f"{kp.stance})", file=where, line=kp_line)


def _gold(split: str, arguments: list[Argument], run: SystemRun, labels: dict[tuple[str, str], int]) -> KpaGold:
    return KpaGold(split, [(a.arg_id, a.topic, a.stance) for a in arguments],
                   {k: (kp.topic, kp.stance) for k, kp in run.key_points.items()}, labels)


def evaluated_pairs(split: str, arguments: list[Argument], run: SystemRun) -> list[tuple[str, str, Any]]:
    """(arg_id, key_point_id, score): each argument's best key point, the top half per topic+stance."""
    return kept_pairs(_gold(split, arguments, run, {}), run.predictions)


def mean_average_precision(split: str, arguments: list[Argument], run: SystemRun,
                           labels: dict[tuple[str, str], int]) -> ScoreReport:
    """The Track-1 metrics (strict, relaxed mAP, per topic+stance) on judged labels of the system's pairs."""
    return score(_gold(split, arguments, run, labels), run.predictions)


def best_key_point(scores: dict[str, Any]) -> str | None:
    """The first maximal key point of one argument's scores (Python max keeps the first), as Track 1 pairs."""
    return max(scores, key=lambda k: scores[k]) if scores else None


def summaries(split: str, arguments: list[Argument],
              run: SystemRun) -> dict[tuple[str, int], list[tuple[str, float]]]:
    """Per topic+stance: (key point text, prevalence) by prevalence, highest first, those of 1% or less left out.

    Prevalence is what the system's own matching reports, read as the overview does (Tables 5 and 8: "out
    of all arguments with a matched KP"): the share of the topic+stance's matched arguments, i.e. its pairs
    in the top half that Track 1 evaluates, whose best key point it is. Judges are to take it as correct.
    """
    pairs = evaluated_pairs(split, arguments, run)
    topic_stance = {a.arg_id: (a.topic, a.stance) for a in arguments}
    sizes: dict[tuple[str, int], int] = {group: 0 for group in topic_stance.values()}
    counts: dict[str, int] = {k: 0 for k in run.key_points}
    for arg_id, kp_id, _ in pairs:
        sizes[topic_stance[arg_id]] += 1
        counts[kp_id] += 1
    out: dict[tuple[str, int], list[tuple[str, float]]] = {group: [] for group in sizes}
    for kp_id, kp in run.key_points.items():
        group = (kp.topic, kp.stance)
        share = counts[kp_id] / sizes[group] if sizes.get(group) else 0.0
        if share > HIDDEN_SHARE:
            out[group].append((kp.key_point, share))
    return {group: sorted(points, key=lambda p: -p[1]) for group, points in out.items()}
