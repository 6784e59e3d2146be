"""SemEval-2021 Task 4 (ReCAM): accuracy of ``index,label`` answers against a ReCAM jsonl gold file.

The repository has no scorer and the CodaLab program is not known (``shared/formats-and-scorers.md`` §4.3):
the metric is accuracy, correct answers / number of gold questions, one number per subtask. How the CodaLab
program treated irregular files is unknown, so the rules here are the ones §4.3 calls reasonable: a missing
answer counts as wrong (and is reported); a header row, a non-integer, an index outside the gold, a repeated
index or an option outside 0..4 is refused with its line number. Submissions are CSV files (CRLF or LF, no
header) or the CodaLab zip with ``subtask1.csv`` and/or ``subtask2.csv`` at its root (§4.2).
"""
from __future__ import annotations

import json
import re
import zipfile
from pathlib import Path
from typing import Any

from annotator.core.errors import FormatError, SubmissionError
from annotator.core.options import Option
from annotator.lookups.score_report import ScoreReport, first_few
from annotator.lookups.scorer_base import Scorer

TASK = "recam2021"
OPTIONS = range(5)
SUBTASK_FILES = {1: "subtask1.csv", 2: "subtask2.csv"}
_INTEGER = re.compile(r"\s*[+-]?\d+\s*")

__all__ = ["TASK", "read_gold", "read_answers", "score", "score_files"]


def _lines(raw: bytes, file: str, error: type[SubmissionError] | type[FormatError]) -> list[str]:
    """Text lines split on CRLF, LF or CR (files come with either), without the final empty one."""
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise error(f"not UTF-8 (byte {e.start})", file=file) from None
    lines = re.split(r"\r\n|\r|\n", text)
    return lines[:-1] if lines and lines[-1] == "" else lines


def read_gold(path: Path) -> list[int]:
    """The ``label`` of each jsonl line, in file order (question index = position, as in the answers files)."""
    path = Path(path)
    if not path.is_file():
        raise FormatError("file not found", file=str(path))
    labels = []
    for number, line in enumerate(_lines(path.read_bytes(), path.name, FormatError), start=1):
        if not line.strip():
            continue
        try:
            label = json.loads(line).get("label")
        except (json.JSONDecodeError, AttributeError):
            raise FormatError("not a JSON object", file=path.name, line=number) from None
        if type(label) is not int or label not in OPTIONS:
            raise FormatError(f"label {label!r} is not an option index 0..4 (is this a test file without labels?)",
                              file=path.name, line=number, column="label")
        labels.append(label)
    return labels


def _member(path: Path, subtask: int | None) -> tuple[str, bytes]:
    """The answers file: the CSV itself, or the chosen ``subtask<k>.csv`` at the root of a CodaLab zip."""
    if not zipfile.is_zipfile(path):
        return path.name, path.read_bytes()
    with zipfile.ZipFile(path) as z:
        names = [n for n in z.namelist() if not n.endswith("/") and not n.startswith("__MACOSX/")]
        present = {k: f for k, f in SUBTASK_FILES.items() if f in names}
        if subtask is None:
            if len(present) != 1:
                found = ", ".join(names) or "nothing"
                raise SubmissionError("choose the subtask (subtask=1 or 2): the zip must hold exactly one of "
                                      f"subtask1.csv, subtask2.csv at its root to infer it; it holds {found}",
                                      file=path.name)
            subtask = next(iter(present))
        if subtask not in SUBTASK_FILES:
            raise ValueError(f"subtask must be 1 or 2, not {subtask!r}")
        if subtask not in present:
            nested = [n for n in names if n.rsplit("/", 1)[-1] == SUBTASK_FILES[subtask]]
            hint = f" (found {nested[0]}, which is not at the root)" if nested else ""
            raise SubmissionError(f"the zip has no {SUBTASK_FILES[subtask]} at its root{hint}", file=path.name)
        return f"{path.name}:{SUBTASK_FILES[subtask]}", z.read(SUBTASK_FILES[subtask])


def read_answers(path: Path, questions: int, subtask: int | None = None) -> dict[int, int]:
    """``{question index: option}`` from ``index,label`` lines; refuses anything irregular with its line."""
    path = Path(path)
    if not path.is_file():
        raise SubmissionError("file not found", file=str(path))
    name, raw = _member(path, subtask)
    answers: dict[int, int] = {}
    lines_of: dict[int, int] = {}
    for number, line in enumerate(_lines(raw, name, SubmissionError), start=1):
        if not line.strip():
            continue
        fields = line.split(",")
        if len(fields) != 2 or not all(_INTEGER.fullmatch(f) for f in fields):
            what = ("looks like a header row; the file has none" if number == 1 and re.search(r"[A-Za-z]", line)
                    else "expected two integers, index,label")
            raise SubmissionError(f"{line[:40]!r} {what}", file=name, line=number)
        index, option = int(fields[0]), int(fields[1])
        if not 0 <= index < questions:
            raise SubmissionError(f"index {index} is not a question of the gold (0..{questions - 1})", file=name,
                                  line=number, column="index")
        if index in answers:
            raise SubmissionError(f"index {index} was already answered on line {lines_of[index]}", file=name,
                                  line=number, column="index")
        if option not in OPTIONS:
            raise SubmissionError(f"option {option} is not 0..4", file=name, line=number, column="label")
        answers[index], lines_of[index] = option, number
    return answers


def score(gold: list[int], answers: dict[int, int]) -> ScoreReport:
    """Accuracy over all gold questions; unanswered ones count as wrong."""
    if not gold:
        raise FormatError("the gold file has no question")
    correct = sum(answers.get(i) == label for i, label in enumerate(gold))
    missing = [i for i in range(len(gold)) if i not in answers]
    per_label: list[dict[str, Any]] = []
    for option in OPTIONS:
        asked = [i for i, label in enumerate(gold) if label == option]
        per_label.append({"label": option, "questions": len(asked),
                          "correct": sum(answers.get(i) == option for i in asked),
                          "predicted": sum(v == option for v in answers.values())})
    report = ScoreReport(TASK, {"accuracy": correct / len(gold)},
                         {"questions": len(gold), "answered": len(answers), "correct": correct,
                          "missing": len(missing), "per_label": per_label})
    if missing:
        report.warnings.append(f"{len(missing)} question(s) have no answer and count as wrong: indices "
                               f"{first_few(missing)}")
    return report


def score_files(gold: Path, predictions: Path, *, subtask: int | None = None) -> ScoreReport:
    """``gold``: ``Task_<k>_*.jsonl`` with labels; ``predictions``: a CSV or a zip (then ``subtask`` picks the
    member, inferred when the zip holds only one of ``subtask1.csv``/``subtask2.csv``)."""
    labels = read_gold(Path(gold))
    return score(labels, read_answers(Path(predictions), len(labels), subtask))


def subtask_of(gold_name: str) -> dict[str, Any]:
    """The subtask a gold file is of, from its official name (Task_1_dev.jsonl: subtask 1), when it says."""
    found = re.match(r"Task_([12])_", Path(gold_name).name)
    return {"subtask": int(found.group(1))} if found else {}


SCORER = Scorer(
    name=TASK, title="SemEval-2021 Task 4: ReCAM (accuracy)", metrics=("accuracy",),
    gold="Task_<k>_*.jsonl with a label per line",
    predictions="index,label CSV, or a zip with subtask1.csv/subtask2.csv", submission_kinds=("CSV", "a zip archive"),
    options=(Option("subtask", int, None, "which CSV of a zip to score (1 or 2); inferred if it holds one",
                    label="Subtask (1: imperceptibility, 2: non-specificity): which CSV of a zip to score",
                    choices=(1, 2)),),
    submission_options=("subtask",), guess_options=subtask_of,
    rankings=("accuracy",), score_files=score_files, read_gold=lambda path, **_: read_gold(path),
    zip_members=("subtask1.csv", "subtask2.csv"))
