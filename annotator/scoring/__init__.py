"""The shared tasks' official metrics, one module per task, behind one registry.

A CLI and a web leaderboard call every task the same way::

    report = score_files("kpa2021", gold_dir, "predictions.p", split="test", variant="plain-ap")
    report.metrics            # {"strict": ..., "relaxed": ..., "p_at_50_strict": ...}
    report.to_json(), report.to_text(), report.warnings
    order = rank("kpa2021", reports)   # indices of `reports`, best first

Each module equals its task's official scorer on the same input, bugs included (see
``shared/formats-and-scorers.md``), and reports in ``warnings`` every quirk that touched the submission.
Wrong submissions raise ``annotator.errors.SubmissionError``, unusable gold files ``FormatError``, both located.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from annotator.scoring import emphasis2020, kpa2021, recam2021, ruarg2022
from annotator.scoring.report import ScoreReport

__all__ = ["ScoreReport", "Scorer", "Option", "SCORERS", "score_files", "rank", "competition_ranks"]


@dataclass(frozen=True)
class Option:
    """One keyword option of a task: its type, default, allowed values and a line of help for UIs."""

    type: type
    default: Any
    help: str
    choices: tuple[Any, ...] | None = None


@dataclass(frozen=True)
class Scorer:
    """What a caller needs to know about a task without importing its module.

    ``rankings`` are the leaderboard orders the task used, the first being ``rank``'s default: RuArg ranked
    stance and premise in two separate lists (``en_README.md``: "two separate lists"), the others in one.
    """

    task: str
    title: str
    metrics: tuple[str, ...]
    gold: str
    predictions: str
    options: dict[str, Option]
    rankings: tuple[str, ...]
    score_files: Callable[..., ScoreReport]


SCORERS: dict[str, Scorer] = {s.task: s for s in (
    Scorer("kpa2021", "KPA-2021 Track 1: key-point matching (mAP)", ("strict", "relaxed", "p_at_50_strict"),
           "folder with arguments_<split>.csv, key_points_<split>.csv, labels_<split>.csv",
           "JSON object {arg_id: {key_point_id: score}}, or a zip holding one JSON file",
           {"split": Option(str, "dev", "which *_<split>.csv files of the gold folder to read"),
            "variant": Option(str, "official", "official = HEAD (AP x positives/N); plain-ap = before 2021-09-23",
                              kpa2021.VARIANTS),
            "strict_topics": Option(bool, False, "count best key points of another topic/stance as wrong")},
           ("mean_rank", "strict", "relaxed"), kpa2021.score_files),
    Scorer("emphasis2020", "SemEval-2020 Task 10: emphasis selection (Match_m)",
           ("match_1", "match_2", "match_3", "match_4", "score"),
           "7-field token file (train/dev layout)", "word_id<TAB>word<TAB>score lines, blank line between sentences",
           {"numeric": Option(bool, False, "compare scores as numbers instead of as strings like the official")},
           ("score",), emphasis2020.score_files),
    Scorer("ruarg2022", "RuArg-2022: stance and premise classification (macro F1)", ("f1_stance", "f1_premise"),
           "TSV with text_id and the six label columns", "TSV with text_id and the six label columns",
           {"by_position": Option(bool, False, "align rows by position like the CodaLab program, not by text_id")},
           ("f1_stance", "f1_premise"), ruarg2022.score_files),
    Scorer("recam2021", "SemEval-2021 Task 4: ReCAM (accuracy)", ("accuracy",),
           "Task_<k>_*.jsonl with a label per line", "index,label CSV, or a zip with subtask1.csv/subtask2.csv",
           {"subtask": Option(int, None, "which CSV of a zip to score (1 or 2); inferred if it holds one", (1, 2))},
           ("accuracy",), recam2021.score_files),
)}


def _scorer(task: str) -> Scorer:
    try:
        return SCORERS[task]
    except KeyError:
        raise ValueError(f"unknown task {task!r}; known: {', '.join(SCORERS)}") from None


def _coerce(task: str, name: str, option: Option, value: Any) -> Any:
    """Accept option values as text too (CLI arguments, query strings): ``"true"``, ``"2"``..."""
    if value is None or isinstance(value, option.type) and not (option.type is int and isinstance(value, bool)):
        converted = value
    elif option.type is bool and isinstance(value, str) and value.lower() in ("1", "true", "yes", "on", "0",
                                                                                "false", "no", "off"):
        converted = value.lower() in ("1", "true", "yes", "on")
    elif option.type is int and isinstance(value, str) and value.strip().lstrip("+-").isdigit():
        converted = int(value)
    else:
        raise ValueError(f"{task}: option {name} must be a {option.type.__name__}, not {value!r}")
    if option.choices is not None and converted is not None and converted not in option.choices:
        raise ValueError(f"{task}: option {name} must be one of {option.choices}, not {value!r}")
    return converted


def score_files(task: str, gold: Path | str, predictions: Path | str, **options: Any) -> ScoreReport:
    """Score a predictions file against gold with the task's official metric; see ``SCORERS[task]``."""
    scorer = _scorer(task)
    unknown = sorted(set(options) - set(scorer.options))
    if unknown:
        raise ValueError(f"{task}: unknown option(s) {', '.join(unknown)}; accepted: {', '.join(scorer.options)}")
    kwargs = {k: _coerce(task, k, scorer.options[k], v) for k, v in options.items()}
    return scorer.score_files(Path(gold), Path(predictions), **kwargs)


def competition_ranks(values: list[float]) -> list[int]:
    """1 + the number of strictly better values ("1224" ranking: equal values share a rank)."""
    return [1 + sum(other > v for other in values) for v in values]


def rank(task: str, reports: list[ScoreReport], by: str | None = None) -> list[int]:
    """Indices of ``reports`` in leaderboard order, best first; equal entries keep their input order.

    ``by`` defaults to the task's official order (``SCORERS[task].rankings[0]``):

    * KPA ``mean_rank``: mean of the rank on strict and the rank on relaxed mAP (README of the task; ranks
      shared on equal values), ties broken by the higher mean mAP ``(strict + relaxed) / 2``;
    * emphasis ``score``, ReCAM ``accuracy``: higher first;
    * RuArg ``f1_stance`` or ``f1_premise``: two separate leaderboards, as the README ranked them;
      ``by="mean"`` orders by ``(f1_stance + f1_premise) / 2``, which is not an official ranking.

    Any headline metric name is also accepted for ``by`` (higher first).
    """
    scorer = _scorer(task)
    for r in reports:
        if r.task != task:
            raise ValueError(f"cannot rank a {r.task} report on the {task} leaderboard")
    by = by or scorer.rankings[0]
    if task == "kpa2021" and by == "mean_rank":
        strict = competition_ranks([r.metrics["strict"] for r in reports])
        relaxed = competition_ranks([r.metrics["relaxed"] for r in reports])
        key: Callable[[int], tuple[float, ...]] = lambda i: (
            (strict[i] + relaxed[i]) / 2, -(reports[i].metrics["strict"] + reports[i].metrics["relaxed"]) / 2)
    elif task == "ruarg2022" and by == "mean":
        key = lambda i: (-(reports[i].metrics["f1_stance"] + reports[i].metrics["f1_premise"]) / 2,)
    elif by in scorer.metrics:
        key = lambda i: (-reports[i].metrics[by],)
    else:
        raise ValueError(f"{task}: cannot rank by {by!r}; use one of {', '.join(scorer.rankings)} or a metric name")
    return sorted(range(len(reports)), key=key)
