"""SemEval-2020 Task 10 (emphasis selection): Match_1..4 and their mean, equal to the official ``evaluate.py``.

The official scorer is RiTUAL-UH/SemEval2020_Task10_Emphasis_Selection ``try_it/evaluate.py`` (final version of
2020-02-18); its algorithm and quirks are in ``shared/formats-and-scorers.md`` §2.3, its reference numbers in §2.4.
What is reproduced, and why it matters:

* values are compared **as strings** (the program never converts them), so ``1e-05`` ranks above ``0.9`` and
  ``10.0`` below ``9.0``. ``numeric=True`` compares floats instead (with stable ties); every report computes
  both, says how many sentences order differently, and carries the other comparison's figures in
  ``ScoreReport.beside`` whenever they differ, so the CLI and the leaderboard show them next to the headline;
* one rule of the task is enforced that the program does not check: scores are numbers >= 0 (task paper,
  section 5). Negative scores are refused with their line: as text, ``-0.8`` sorts above ``-0.1``, so negated
  probabilities, the worst possible ranking, would score 1.0;
* the system's top m is ``numpy.argsort(numpy.array(strings))[-m:]``: the same call is made here rather than
  re-implementing its tie rule (stable for <= 16 tokens, so later positions win; introsort order beyond);
* the gold set G_m is extended by every position tied with the m-th largest gold value;
* sentences of <= m tokens do not count for Match_m; the means are plain left-to-right float sums.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from annotator.core.errors import FormatError, SubmissionError
from annotator.core.options import Option
from annotator.lookups.score_report import ScoreReport, first_few
from annotator.lookups.scorer_base import Scorer

TASK = "emphasis2020"
MS = (1, 2, 3, 4)
GOLD_FIELD = 4  # emphasis_probability, 5th field (the 7th, a space, is stripped away with the line)
SUBMISSION_FIELD = 2  # the score, 3rd field

__all__ = ["TASK", "Sentence", "read_sentences", "score", "score_files"]


@dataclass(frozen=True)
class Sentence:
    """One sentence: the line of its first token, then per token its word_id and value text, unconverted."""

    line: int
    ids: list[str]
    values: list[str]


def read_sentences(path: Path, *, gold: bool) -> list[Sentence]:
    """Read like the official program: universal newlines, each line ``strip()``ped, blank lines end sentences.

    Values stay text, as in the official program. Every value must still be a finite number >= 0, the task's
    rule (task paper, section 5: "a real value (greater and equal to zero)"); anything else is refused with its
    line. The official program accepts anything and compares text: ``abc`` ranks as a string, and negated
    probabilities (the worst ranking) score 1.0, since ``-0.8`` sorts above ``-0.1`` as text.
    """
    path = Path(path)
    error, field = (FormatError, GOLD_FIELD) if gold else (SubmissionError, SUBMISSION_FIELD)
    if not path.is_file():
        raise error("file not found", file=str(path))
    sentences: list[Sentence] = []
    ids: list[str] = []
    values: list[str] = []
    start = 0
    try:
        with path.open(encoding="utf-8-sig", newline=None) as f:
            lines = list(f)
    except UnicodeDecodeError as e:
        raise error(f"not UTF-8 (byte {e.start})", file=path.name) from None
    for number, raw in enumerate(lines + [""], start=1):
        line = raw.strip()
        if not line:
            if values:
                sentences.append(Sentence(start, ids, values))
            ids, values = [], []
            continue
        fields = line.split("\t")
        if len(fields) <= field:
            layout = "7 tab-separated fields" if gold else "word_id<TAB>word<TAB>score"
            raise error(f"expected {layout}, found {len(fields)} field(s)", file=path.name, line=number)
        column = "emphasis_probability" if gold else "score"
        if not _is_number(fields[field]):
            raise error(f"score {fields[field]!r} is not a finite number", file=path.name, line=number,
                        column=column)
        if float(fields[field]) < 0:
            raise error(f"score {fields[field]!r} is negative; the task's scores are greater than or equal to zero",
                        file=path.name, line=number, column=column)
        start = start if values else number
        ids.append(fields[0])
        values.append(fields[field])
    return sentences


def _is_number(text: str) -> bool:
    try:
        return math.isfinite(float(text))
    except ValueError:
        return False


def _check_shape(gold: list[Sentence], submission: list[Sentence]) -> None:
    """The official program asserts equal sentence counts and lengths; here the message says where."""
    if len(gold) != len(submission):
        raise SubmissionError(f"the submission has {len(submission)} sentences, the gold has {len(gold)} "
                              "(sentences are separated by blank lines)")
    for k, (g, s) in enumerate(zip(gold, submission), start=1):
        if len(g.values) != len(s.values):
            raise SubmissionError(f"sentence {k} (gold {g.ids[0]}, gold line {g.line}) has {len(s.values)} "
                                  f"token(s) in the submission, {len(g.values)} in the gold", line=s.line)


def system_top(values: list[str], m: int, numeric: bool) -> frozenset[int]:
    """Positions of the m largest submission values: the official numpy call on the string array, or floats."""
    import numpy as np
    if numeric:
        return frozenset(np.argsort(np.array([float(v) for v in values]), kind="stable")[-m:].tolist())
    return frozenset(np.argsort(np.array(values))[-m:].tolist())


def gold_top(values: list[str], m: int, numeric: bool) -> frozenset[int]:
    """G_m: every position whose gold value is >= the m-th largest (the official ``while`` tie extension)."""
    keys = _keys(values, numeric)
    threshold = sorted(keys, reverse=True)[m - 1]
    return frozenset(i for i, v in enumerate(keys) if v >= threshold)


def _matches(gold: list[Sentence], submission: list[Sentence], numeric: bool) -> dict[str, Any]:
    """Match_m as ``sum(list) / len(list)`` with a left-to-right float sum (Python 3.11's ``sum``)."""
    out: dict[str, Any] = {"counted": {}}
    total = 0.0
    for m in MS:
        values, counted = 0.0, 0
        for g, s in zip(gold, submission):
            if len(g.values) > m:
                values += len(system_top(s.values, m, numeric) & gold_top(g.values, m, numeric)) / m
                counted += 1
        if not counted:
            raise FormatError(f"no gold sentence has more than {m} tokens, so Match_{m} is undefined (the official "
                              "program divides by zero)")
        out[f"match_{m}"] = values / counted
        out["counted"][f"match_{m}"] = counted
        total += out[f"match_{m}"]
    out["score"] = total / len(MS)
    return out


def _keys(values: list[str], numeric: bool) -> list[Any]:
    return [float(v) for v in values] if numeric else list(values)


def tie_decides(gold_values: list[str], values: list[str], m: int, numeric: bool) -> bool:
    """Whether equal submission values straddle the top-m boundary *and* the choice among them changes the
    intersection with G_m, i.e. whether the sort's tie rule decides this sentence's Match_m."""
    keys = _keys(values, numeric)
    threshold = sorted(keys, reverse=True)[m - 1]
    tied = [i for i, v in enumerate(keys) if v == threshold]
    if sum(v > threshold for v in keys) + len(tied) <= m:
        return False
    in_gold = gold_top(gold_values, m, numeric)
    return len({i in in_gold for i in tied}) > 1


def order_clash(values: list[str]) -> tuple[str, str] | None:
    """Two texts whose string order differs from their numeric order, or None when the two orders agree.

    Sorting by (number, text) and checking neighbours is enough: the orders agree exactly when, along that
    sequence, texts and numbers rise together and are equal together.
    """
    ranked = sorted(set(values), key=lambda v: (float(v), v))
    for a, b in zip(ranked, ranked[1:]):
        if float(a) == float(b) or not a < b:
            return (b, a) if float(a) == float(b) else (a, b)
    return None


def score(gold: list[Sentence], submission: list[Sentence], *, numeric: bool = False) -> ScoreReport:
    """Match_1..4 and ``score``; the other comparison mode is computed as well, to warn when they differ."""
    _check_shape(gold, submission)
    used = _matches(gold, submission, numeric)
    other = _matches(gold, submission, not numeric)
    names = [f"match_{m}" for m in MS] + ["score"]
    metrics = {k: float(used[k]) for k in names}
    clashes = [(s.line, c) for s in submission if len(s.values) > 1 and (c := order_clash(s.values))]
    gold_clashes = sum(len(g.values) > 1 and order_clash(g.values) is not None for g in gold)
    ties = {f"match_{m}": sum(len(g.values) > m and tie_decides(g.values, s.values, m, numeric)
                              for g, s in zip(gold, submission)) for m in MS}
    detail: dict[str, Any] = {
        "comparison": "numeric" if numeric else "string",
        "sentences": len(gold),
        "counted_sentences": used["counted"],
        "other_comparison": {"comparison": "string" if numeric else "numeric", **{k: other[k] for k in names}},
        "sentences_string_order_not_numeric": {"submission": len(clashes), "gold": gold_clashes},
        "sentences_decided_by_tie_rule": ties,
    }
    report = ScoreReport(TASK, metrics, detail)
    if any(other[k] != used[k] for k in names):
        label = "string comparison (official)" if numeric else "numeric comparison"
        report.beside[label] = {k: float(other[k]) for k in names}
    w = report.warnings
    if clashes or gold_clashes:
        line, (high, low) = clashes[0] if clashes else (None, ("", ""))
        example = f" (first at line {line}: '{high}' ranks above '{low}' as text)" if clashes else ""
        w.append(f"in {len(clashes)} submission sentence(s){example} and {gold_clashes} gold sentence(s) the values "
                 "rank differently as text than as numbers; the official scorer compares them as text"
                 + (", numeric=True compares numbers" if not numeric else ", this report compares numbers")
                 + f". String comparison gives score {(other if numeric else used)['score']!r}, numeric "
                 f"{(used if numeric else other)['score']!r}")
    if any(ties.values()):
        rule = ("the stable numeric sort keeps the later positions" if numeric else "numpy's sort decides, as in "
                "the official scorer: later positions win up to 16 tokens, introsort order beyond")
        w.append("equal submission values straddle the top-m boundary and the pick changes the match in "
                 + ", ".join(f"{n} sentence(s) for {k}" for k, n in ties.items()) + f"; {rule}")
    moved = [f"line {s.line + i}" for g, s in zip(gold, submission) for i, (a, b) in enumerate(zip(g.ids, s.ids))
             if a != b]
    if moved:
        w.append(f"{len(moved)} submission token(s) have a word_id different from the gold's at the same position "
                 f"({first_few(moved, 3)}); the official scorer matches by position and ignores ids")
    return report


def score_files(gold: Path, predictions: Path, *, numeric: bool = False) -> ScoreReport:
    """``gold``: a 7-field file (train/dev layout); ``predictions``: ``word_id TAB word TAB score`` lines."""
    gold_sentences = read_sentences(Path(gold), gold=True)
    submission = read_sentences(Path(predictions), gold=False)
    try:
        return score(gold_sentences, submission, numeric=numeric)
    except (SubmissionError, FormatError) as e:
        e.file = e.file or (Path(predictions) if isinstance(e, SubmissionError) else Path(gold)).name
        raise


SCORER = Scorer(
    name=TASK, title="SemEval-2020 Task 10: emphasis selection (Match_m)",
    metrics=("match_1", "match_2", "match_3", "match_4", "score"),
    gold="7-field token file (train/dev layout)",
    predictions="word_id<TAB>word<TAB>score lines, blank line between sentences", submission_kinds=("TSV",),
    options=(Option("numeric", bool, False, "compare scores as numbers instead of as strings like the official",
                    label="Compare scores as numbers"),),
    rankings=("score",), score_files=score_files, read_gold=lambda path, **_: read_sentences(path, gold=True))
