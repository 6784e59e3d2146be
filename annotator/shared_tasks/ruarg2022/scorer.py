"""RuArg-2022 (Dialogue Evaluation): macro F1 of stance and premise classification, as the CodaLab program.

The repository has no scorer; the competition's CodaLab program is described in
``shared/formats-and-scorers.md`` §3.3 (reference numbers §3.4) and follows the README's procedure
(``shared/data/ruarg2022/en_README.md``): per column ``sklearn.metrics.f1_score(labels=[2, 1, 0],
average="macro")`` with the default ``zero_division`` (an absent class scores F1 = 0), then the mean over the
claims masks, vaccines, quarantine in that order. Reproduced: empty submission cells become 100 (always wrong),
class -1 is not averaged but still costs false positives/negatives, and the zero-division rule.

Deliberately different: rows are matched by ``text_id``; the official program aligns them by position, so a
shuffled copy of the gold scores like a random submission there. ``by_position=True`` gives the official
alignment back. On gold and submission in the same order both give the CodaLab numbers; when the orders
differ the report says what the CodaLab program would have printed.
"""
from __future__ import annotations

import csv
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any

from annotator.core.errors import FormatError, SubmissionError
from annotator.core.options import Option
from annotator.lookups.score_report import ScoreReport, first_few
from annotator.lookups.scorer_base import RankRule, Scorer

if TYPE_CHECKING:
    import pandas as pd

TASK = "ruarg2022"
CLAIMS = ("masks", "vaccines", "quarantine")  # the order of the official sums (it matters in the last bit)
TASKS = {"stance": "f1_stance", "argument": "f1_premise"}
COLUMNS = tuple(f"{claim}_{kind}" for kind in TASKS for claim in CLAIMS)
LABELS = [2, 1, 0]
# The organisers' per-claim tables (Kotelnikov et al., Dialogue 2022, Tables 5-10): precision, recall and F1 of
# each class, irrelevant included, then their macro average over the three others (what F1_rel averages).
CLASS_ORDER = (-1, 0, 1, 2)
CLASS_NAMES = {"stance": {-1: "irrelevant", 0: "against", 1: "other", 2: "for"},
               "premise": {-1: "irrelevant", 0: "against", 1: "no argument", 2: "for"}}
VALUES = {-1, 0, 1, 2}
EMPTY = 100  # what the official program puts in empty submission cells

__all__ = ["TASK", "COLUMNS", "read_table", "score", "score_files"]


def read_table(path: Path, *, gold: bool) -> pd.DataFrame:
    """Read a TSV like the official program (``read_csv(sep="\\t")``, default CSV quoting) and check it.

    Checks: the ``text_id`` column and the six label columns exist, ids are unique integers, labels are numbers.
    Gold labels must all be -1, 0, 1 or 2 (``test-no_labels.tsv`` is not a gold file).
    """
    import numpy as np
    import pandas as pd
    error = FormatError if gold else SubmissionError
    path = Path(path)
    if not path.is_file():
        raise error("file not found", file=str(path))
    try:
        # compression=None: read the bytes as they are. pandas otherwise guesses from the name (.zip, .gz, .xz...):
        # a plain file named so failed with BadZipFile or OSError (a 500), and a zip of two files with ValueError.
        table = pd.read_csv(path, sep="\t", compression=None)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError, csv.Error) as e:
        raise error(f"not a readable TSV file: {str(e).strip()}", file=path.name) from None
    for column in ("text_id", *COLUMNS):
        if column not in table.columns:
            raise error(f"missing column {column!r} (the header must name text_id and the six label columns)",
                        file=path.name, line=1, column=column)
    ids = pd.to_numeric(table["text_id"], errors="coerce")
    bad = np.flatnonzero(ids.isna().to_numpy() | (ids.fillna(0) % 1 != 0).to_numpy())
    if len(bad):
        raise error(f"text_id {table['text_id'].iloc[bad[0]]!r} is not an integer", file=path.name,
                    line=int(bad[0]) + 2, column="text_id")
    table["text_id"] = ids.astype(np.int64)
    duplicated = table["text_id"][table["text_id"].duplicated()].tolist()
    if duplicated:
        raise error(f"duplicate text_id(s): {first_few(duplicated)}", file=path.name, column="text_id")
    for column in COLUMNS:
        values = pd.to_numeric(table[column], errors="coerce")
        bad = np.flatnonzero((values.isna() & table[column].notna()).to_numpy())
        if len(bad):
            raise error(f"label {table[column].iloc[bad[0]]!r} is not a number", file=path.name,
                        line=int(bad[0]) + 2, column=column)
        if gold:
            wrong = np.flatnonzero(~values.isin(VALUES).to_numpy())
            if len(wrong):
                raise error(f"gold label {table[column].iloc[wrong[0]]!r} is not one of -1, 0, 1, 2",
                            file=path.name, line=int(wrong[0]) + 2, column=column)
            values = values.astype(np.int64)
        table[column] = values
    return table


def _align(gold: pd.DataFrame, submission: pd.DataFrame, by_position: bool) -> pd.DataFrame:
    """The submission rows in gold order: by ``text_id``, or by position as the CodaLab program."""
    if by_position:
        if len(submission) != len(gold):
            raise SubmissionError(f"the submission has {len(submission)} rows, the gold {len(gold)} (rows are "
                                  "aligned by position with by_position=True)")
        return submission.reset_index(drop=True)
    missing = sorted(set(gold["text_id"]) - set(submission["text_id"]))
    extra = sorted(set(submission["text_id"]) - set(gold["text_id"]))
    if missing or extra:
        parts = ([f"{len(missing)} text_id(s) of the gold are missing: {first_few(missing)}"] if missing else []) + \
                ([f"{len(extra)} text_id(s) are not in the gold: {first_few(extra)}"] if extra else [])
        raise SubmissionError("; ".join(parts), column="text_id")
    return submission.set_index("text_id").loc[gold["text_id"]].reset_index()


def _f1(gold: pd.Series, predicted: pd.Series, average: str | None) -> Any:
    """sklearn's F1 over classes 2, 1, 0; zero_division stays at its default (0, with a warning we drop)."""
    # Imported here, not at the top: only this needs scikit-learn, and a server worker that never computes it
    # should not carry it (issue 12: every worker's memory counts; figures in
    # bench/results/2026-11-25-figures-from-docstrings.md).
    from sklearn.metrics import f1_score

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return f1_score(gold.to_numpy(), predicted.to_numpy(), labels=LABELS, average=average)


def _per_class(claim: str, task: str, gold: pd.Series, predicted: pd.Series) -> list[dict[str, Any]]:
    """The rows of the paper's table for one claim and task: each class, then the macro average of 0, 1, 2.

    sklearn's precision_recall_fscore_support with the official program's zero_division (0): a class never
    predicted has precision 0, as in Table 9 (the against class of a system that never predicts it).
    """
    from sklearn.metrics import precision_recall_fscore_support

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        precision, recall, f1, support = precision_recall_fscore_support(
            gold.to_numpy(), predicted.to_numpy(), labels=list(CLASS_ORDER), average=None, zero_division=0)
    rows: list[dict[str, Any]] = [
        {"claim": claim, "task": task, "class": CLASS_NAMES[task][label], "precision": float(p), "recall": float(r),
         "f1": float(f), "gold": int(n), "predicted": int((predicted == label).sum())}
        for label, p, r, f, n in zip(CLASS_ORDER, precision, recall, f1, support)]
    relevant = rows[1:]
    rows.append({"claim": claim, "task": task, "class": "macro average",
                 **{m: sum(r[m] for r in relevant) / len(relevant) for m in ("precision", "recall", "f1")},
                 "gold": sum(r["gold"] for r in relevant), "predicted": sum(r["predicted"] for r in relevant)})
    return rows


def _metrics(gold: pd.DataFrame, predicted: pd.DataFrame) -> dict[str, float]:
    """``f1_stance`` and ``f1_premise``: three per-claim macro F1 summed left to right, divided by 3."""
    out = {}
    for kind, name in TASKS.items():
        total = 0.0
        for claim in CLAIMS:
            total += float(_f1(gold[f"{claim}_{kind}"], predicted[f"{claim}_{kind}"], "macro"))
        out[name] = total / len(CLAIMS)
    return out


def score(gold: pd.DataFrame, submission: pd.DataFrame, *, by_position: bool = False) -> ScoreReport:
    """Score tables as returned by ``read_table``."""
    import numpy as np
    aligned = _align(gold, submission, by_position)
    empty = int(aligned[list(COLUMNS)].isna().to_numpy().sum())
    predicted = aligned[list(COLUMNS)].fillna(EMPTY)
    report = ScoreReport(TASK, _metrics(gold, predicted))
    table = []
    classes: list[dict[str, Any]] = []
    absent = []
    for claim in CLAIMS:
        for kind in TASKS:
            column = f"{claim}_{kind}"
            classes += _per_class(claim, "premise" if kind == "argument" else kind, gold[column], predicted[column])
            per_class = _f1(gold[column], predicted[column], None)
            row: dict[str, Any] = {"claim": claim, "task": "premise" if kind == "argument" else kind,
                                   "column": column,
                                   "f1_macro": float(_f1(gold[column], predicted[column], "macro"))}
            for label, value in zip(LABELS, per_class):
                row[f"f1_{label}"] = float(value)
                row[f"gold_{label}"] = int((gold[column] == label).sum())
                row[f"predicted_{label}"] = int((predicted[column] == label).sum())
                if row[f"gold_{label}"] == 0 and row[f"predicted_{label}"] == 0:
                    absent.append(f"{label} in {column}")
            table.append(row)
    report.detail = {"alignment": "position" if by_position else "text_id", "rows": len(gold),
                     "empty_cells": empty, "columns": table, "classes": classes}
    w = report.warnings
    if empty:
        w.append(f"{empty} empty label cell(s) in the submission were set to {EMPTY} and count as wrong, as the "
                 "official scorer does")
    odd = int((~predicted.isin(VALUES | {EMPTY})).to_numpy().sum())
    if odd:
        w.append(f"{odd} submission label(s) are not -1, 0, 1 or 2; they count as wrong")
    if absent:
        w.append(f"class(es) absent from both gold and submission: {first_few(absent, 6)}; sklearn's default "
                 "zero_division gives them F1 = 0, so even a perfect submission scores below 1 here")
    if not by_position and len(submission) == len(gold) and \
            not np.array_equal(submission["text_id"].to_numpy(), gold["text_id"].to_numpy()):
        official = _metrics(gold, submission[list(COLUMNS)].reset_index(drop=True).fillna(EMPTY))
        w.append("the submission rows are not in the gold's order; they were matched by text_id, but the CodaLab "
                 "program aligns rows by position and would report "
                 + ", ".join(f"{k} {v!r}" for k, v in official.items()) + " (by_position=True reproduces it)")
    return report


def score_files(gold: Path, predictions: Path, *, by_position: bool = False) -> ScoreReport:
    """``gold`` and ``predictions`` are TSV files with ``text_id`` and the six label columns."""
    try:
        return score(read_table(Path(gold), gold=True), read_table(Path(predictions), gold=False),
                     by_position=by_position)
    except SubmissionError as e:
        e.file = e.file or Path(predictions).name
        raise


SCORER = Scorer(
    name=TASK, title="RuArg-2022: stance and premise classification (macro F1)", metrics=("f1_stance", "f1_premise"),
    gold="TSV with text_id and the six label columns", predictions="TSV with text_id and the six label columns",
    submission_kinds=("TSV",),
    options=(Option("by_position", bool, False, "align rows by position like the CodaLab program, not by text_id",
                    label="Align rows by position like CodaLab"),),
    rankings=("f1_stance", "f1_premise"), score_files=score_files,
    read_gold=lambda path, **_: read_table(path, gold=True),
    rules={"mean": RankRule("the mean of the two F1 (not an official ranking)",
                            lambda metrics: [(-(m["f1_stance"] + m["f1_premise"]) / 2,) for m in metrics])})
