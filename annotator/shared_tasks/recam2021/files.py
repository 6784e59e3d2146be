"""Reader of the ReCAM question files (SemEval-2021 Task 4, ``data/*/Task_*.jsonl``).

JSON Lines, UTF-8 with non-ASCII written raw; dev and test end lines with CRLF, the trial files with LF
(``shared/formats-and-scorers.md`` §4.2). Each line is one question: ``article``, ``question`` with
exactly one ``@placeholder``, ``option_0`` .. ``option_4`` and, in dev and trial, the right option's index
``label``; test lines carry an ``id`` (the 0-based line number) and no label.

Every line is kept as it was read, ending included, because the export of validated questions must give
the source's lines back byte for byte (the articles carry the source's mojibake, e.g. ``Â£22,000``, which
is data, not an error). Lines are split on CRLF, LF and CR only: a raw U+2028 inside a JSON string is
text, where ``str.splitlines`` would cut it.

Reading is strict; each problem is a FormatError with file, line and field: not UTF-8, not a JSON object,
a missing or non-text field, no or two ``@placeholder``, not exactly five options, a label that is not an
index 0..4, an id that is not an integer or repeats, an empty line between questions.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from annotator.core.errors import FormatError, refuse_nul

PLACEHOLDER = "@placeholder"
OPTION_KEYS = tuple(f"option_{i}" for i in range(5))
_OPTION_KEY = re.compile(r"option_\d+")
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\n|\r|$)")


@dataclass(frozen=True)
class Question:
    id: str                 # the line's ``id`` when it has one, else its 0-based line number
    article: str
    question: str
    options: tuple[str, ...]
    label: int | None       # the right option, when the file gives it
    line: int               # 1-based physical line
    raw: str                # the line exactly as read, its ending included


@dataclass(frozen=True)
class RecamFile:
    questions: list[Question]
    newline: str            # the first line's ending ("\r\n", "\n", "\r", or "" for one unterminated line)
    labelled: bool          # every question has a label (dev, trial); else none has (test)


def _lines(text: str) -> list[str]:
    lines = _LINE.findall(text)
    return lines[:-1] if lines and lines[-1] == "" else lines


def _text(obj: dict[str, Any], key: str, name: str, line: int) -> str:
    if key not in obj:
        raise FormatError(f'"{key}" is missing', file=name, line=line, column=key)
    value = obj[key]
    if not isinstance(value, str):
        raise FormatError(f'"{key}" must be a string, not {json.dumps(value, ensure_ascii=False)[:40]}',
                          file=name, line=line, column=key)
    return value


def _question(obj: Any, body: str, raw: str, name: str, line: int, index: int) -> Question:
    if not isinstance(obj, dict):
        raise FormatError("not a JSON object", file=name, line=line)
    article = _text(obj, "article", name, line)
    question = _text(obj, "question", name, line)
    found = question.count(PLACEHOLDER)
    if found != 1:
        raise FormatError(f"the question must hold @placeholder exactly once; it holds it {found} times",
                          file=name, line=line, column="question")
    keys = sorted((k for k in obj if _OPTION_KEY.fullmatch(k)), key=lambda k: int(k[7:]))
    if tuple(keys) != OPTION_KEYS:
        raise FormatError(f"a question has five options, option_0 .. option_4; this line has "
                          f"{', '.join(keys) or 'none'}", file=name, line=line, column="options")
    options = tuple(_text(obj, k, name, line) for k in OPTION_KEYS)
    for key, option in zip(OPTION_KEYS, options):
        if not option.strip():
            raise FormatError("the option is empty", file=name, line=line, column=key)
    label = obj.get("label")
    if "label" in obj and (type(label) is not int or not 0 <= label <= 4):
        raise FormatError(f"label {json.dumps(label, ensure_ascii=False)[:20]} is not an option index 0..4",
                          file=name, line=line, column="label")
    unknown = sorted(set(obj) - {"id", "article", "question", "label", *OPTION_KEYS})
    if unknown:
        raise FormatError(f"unknown field(s) {', '.join(unknown)}", file=name, line=line, column=unknown[0])
    if "id" in obj and type(obj["id"]) is not int:
        raise FormatError(f"id {json.dumps(obj['id'])[:20]} is not an integer", file=name, line=line, column="id")
    qid = str(obj["id"]) if "id" in obj else str(index)
    return Question(qid, article, question, options, label, line, raw)


def parse(data: bytes, name: str) -> RecamFile:
    """The questions of one ReCAM file's bytes; FormatError names the first problem."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[:error.start].count(b"\n") + 1
        raise FormatError(f"not UTF-8 (byte {error.start})", file=name, line=line) from None
    refuse_nul(text, name)
    if text.startswith("\ufeff"):
        raise FormatError("the file starts with a byte-order mark, which the task's files never have",
                          file=name, line=1)
    lines = _lines(text)
    if not lines:
        raise FormatError("the file is empty: no question", file=name)
    questions: list[Question] = []
    seen: dict[str, int] = {}
    for index, raw in enumerate(lines):
        number = index + 1
        body = raw.rstrip("\r\n")
        if not body.strip():
            raise FormatError("empty line: every line must be one question", file=name, line=number)
        try:
            obj = json.loads(body)
        except json.JSONDecodeError as error:
            raise FormatError(f"not JSON: {error.msg} at character {error.colno}", file=name, line=number) from None
        question = _question(obj, body, raw, name, number, index)
        if question.id in seen:
            raise FormatError(f"id {question.id} is also on line {seen[question.id]}", file=name, line=number,
                              column="id")
        seen[question.id] = number
        questions.append(question)
    with_label = sum(q.label is not None for q in questions)
    if 0 < with_label < len(questions):
        first = next(q for q in questions if q.label is None)
        raise FormatError(f"{with_label} of {len(questions)} questions have a label and this one has none; a file "
                          "has labels on every line (dev, trial) or on none (test)", file=name, line=first.line,
                          column="label")
    newline = lines[0][len(lines[0].rstrip("\r\n")):]
    return RecamFile(questions, newline, labelled=with_label == len(questions))


def read_file(path: Path) -> RecamFile:
    path = Path(path)
    if not path.is_file():
        raise FormatError("file not found", file=path.name)
    return parse(path.read_bytes(), path.name)
