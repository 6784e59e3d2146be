"""Reading KPA-2021 gold folders and Track-1 prediction files for ``kpa2021``.

The official program reads ``*_dev.csv`` only (formats-and-scorers.md §1.3); here the split is a parameter.
Predictions are validated up front so that the cases the official program dies on with a traceback (§1.6:
non-numeric scores break ``max``, NaN/inf break sklearn) become a located ``SubmissionError``.
"""
from __future__ import annotations

import csv
import io
import json
import math
import re
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from annotator.core.errors import FormatError, SubmissionError

Score = int | float
Predictions = dict[str, dict[str, Score]]


@dataclass(frozen=True)
class KpaGold:
    """One split of ArgKP. ``labels`` holds only the labelled pairs: absent = undecided (§1.2)."""

    split: str
    arguments: list[tuple[str, str, int]]  # (arg_id, topic, stance) in file order
    key_points: dict[str, tuple[str, int]]  # key_point_id -> (topic, stance), in file order
    labels: dict[tuple[str, str], int]  # (arg_id, key_point_id) -> 0 | 1

    def __len__(self) -> int:
        """Arguments: a gold set without any cannot score anything (refused when uploaded)."""
        return len(self.arguments)


def _rows(path: Path, columns: tuple[str, ...]) -> list[tuple[int, dict[str, str]]]:
    if not path.is_file():
        # The name only: the folder is a server's temporary folder when the gold came from an upload.
        raise FormatError(f"gold file not found: there is no {path.name} in the gold folder", file=path.name)
    with path.open(encoding="utf-8-sig", newline="") as f:
        reader = csv.DictReader(f)
        missing = [c for c in columns if c not in (reader.fieldnames or [])]
        if missing:
            raise FormatError(f"missing column {missing[0]!r}", file=path.name, line=1, column=missing[0])
        return [(reader.line_num, row) for row in reader]


def _int(path: Path, line: int, column: str, text: str, allowed: tuple[int, ...]) -> int:
    try:
        value = int(text)
    except ValueError:
        value = None
    if value not in allowed:
        raise FormatError(f"{text!r} is not one of {allowed}", file=path.name, line=line, column=column)
    return value


def read_gold(folder: Path, split: str = "dev") -> KpaGold:
    """Read ``arguments_<split>.csv``, ``key_points_<split>.csv`` and ``labels_<split>.csv`` from ``folder``.

    Deliberately more lenient than ``annotator.shared_tasks.kpa2021.files.read_split`` (the importer's gate):
    the official scorer accepts any key point listed in the file, e.g. one whose topic has no
    argument, and so must this one to give the same numbers on the same files.
    """
    folder = Path(folder)
    arguments: list[tuple[str, str, int]] = []
    seen: set[str] = set()
    path = folder / f"arguments_{split}.csv"
    for line, row in _rows(path, ("arg_id", "topic", "stance")):
        if row["arg_id"] in seen:
            raise FormatError(f"duplicate arg_id {row['arg_id']!r}", file=path.name, line=line, column="arg_id")
        seen.add(row["arg_id"])
        arguments.append((row["arg_id"], row["topic"], _int(path, line, "stance", row["stance"], (-1, 1))))
    key_points: dict[str, tuple[str, int]] = {}
    path = folder / f"key_points_{split}.csv"
    for line, row in _rows(path, ("key_point_id", "topic", "stance")):
        if row["key_point_id"] in key_points:
            raise FormatError(f"duplicate key_point_id {row['key_point_id']!r}", file=path.name, line=line,
                              column="key_point_id")
        key_points[row["key_point_id"]] = (row["topic"], _int(path, line, "stance", row["stance"], (-1, 1)))
    labels: dict[tuple[str, str], int] = {}
    path = folder / f"labels_{split}.csv"
    for line, row in _rows(path, ("arg_id", "key_point_id", "label")):
        pair = (row["arg_id"], row["key_point_id"])
        if pair in labels:
            # The official left join would duplicate the argument's row; the data never has this.
            raise FormatError(f"duplicate pair {pair}", file=path.name, line=line)
        labels[pair] = _int(path, line, "label", row["label"], (0, 1))
    return KpaGold(split, arguments, key_points, labels)


def _payload(path: Path) -> tuple[str, bytes]:
    """The JSON bytes of a plain file, or of the single file in a CodaLab zip (``predictions.p``)."""
    path = Path(path)
    if not path.is_file():
        raise SubmissionError("predictions file not found", file=str(path))
    if not zipfile.is_zipfile(path):
        return path.name, path.read_bytes()
    with zipfile.ZipFile(path) as z:
        members = [i for i in z.infolist() if not i.is_dir() and not i.filename.startswith("__MACOSX/")]
        if len(members) != 1:
            names = ", ".join(i.filename for i in members) or "nothing"
            raise SubmissionError(f"the zip must hold exactly one JSON file; it holds {names}", file=path.name)
        return f"{path.name}:{members[0].filename}", z.read(members[0])


def line_of(text: str, key: str, start: int = 0) -> tuple[int | None, int]:
    """The line of the first ``"key":`` at or after `start` in a JSON text, and where it was found."""
    found = re.compile(re.escape(json.dumps(key)) + r"\s*:").search(text, start)
    if found is None and not key.isascii():  # written with ensure_ascii
        found = re.compile(re.escape(json.dumps(key, ensure_ascii=False)) + r"\s*:").search(text, start)
    return (text.count("\n", 0, found.start()) + 1, found.end()) if found else (None, start)


def check_predictions(data: Any, file: str | None = None, text: str | None = None) -> Predictions:
    """Refuse anything that is not ``{arg_id: {key_point_id: finite real}}``; given the file's `text`, the
    refusal names the line of the argument (or key point) at fault.

    Stricter than the official program on purpose: it would score a NaN or a string as long as it never
    reached ``max``/sklearn, but the format says scores are reals, and refusing them all keeps the rule simple.
    JSON ``true``/``false`` are refused too although Python would compare them as 1/0.
    """
    if not isinstance(data, dict):
        raise SubmissionError(f"expected a JSON object {{arg_id: {{key_point_id: score}}}}, got a "
                              f"{type(data).__name__}", file=file, line=1 if text is not None else None)
    for arg_id, kps in data.items():
        line, after = line_of(text, arg_id) if text is not None else (None, 0)
        if not isinstance(kps, dict):
            raise SubmissionError(f"argument {arg_id!r}: expected an object {{key_point_id: score}}, got "
                                  f"{json.dumps(kps)[:40]}", file=file, line=line)
        for kp_id, score in kps.items():
            if isinstance(score, bool) or not isinstance(score, (int, float)):
                raise SubmissionError(f"argument {arg_id!r}, key point {kp_id!r}: score "
                                      f"{json.dumps(score)[:40]} is not a number", file=file,
                                      line=_kp_line(text, kp_id, after, line))
            if isinstance(score, float) and not math.isfinite(score):
                raise SubmissionError(f"argument {arg_id!r}, key point {kp_id!r}: score {score} is not a "
                                      f"finite number (the official program fails on it)", file=file,
                                      line=_kp_line(text, kp_id, after, line))
    return data


def _kp_line(text: str | None, kp_id: str, after: int, line: int | None) -> int | None:
    return (line_of(text, kp_id, after)[0] or line) if text is not None else None


def read_predictions(path: Path) -> Predictions:
    """Parse a Track-1 submission. Key order is kept: it decides ties between key points (§1.6 (a))."""
    name, raw = _payload(path)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise SubmissionError(f"not UTF-8 (byte {e.start})", file=name,
                              line=raw.count(b"\n", 0, e.start) + 1) from None
    try:
        data = json.load(io.StringIO(text))
    except json.JSONDecodeError as e:
        raise SubmissionError(f"not valid JSON: {e.msg}", file=name, line=e.lineno, column=str(e.colno)) from None
    except RecursionError:
        raise SubmissionError("not valid JSON: nested too deeply", file=name) from None
    return check_predictions(data, name, text)
