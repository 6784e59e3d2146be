"""Reader and writer of the RuArg-2022 files (dialogue-evaluation/RuArg, ``data/*.tsv``).

Three layouts share one grammar: UTF-8, tab-separated, one header row, CSV-style quoting (a text with
``"`` is wrapped in quotes with inner quotes doubled), CRLF or LF line endings.

- ``labelled`` (``train.tsv``): ``text_id, text`` and six label columns, ``<claim>_stance`` and
  ``<claim>_argument`` (the premise) for masks, quarantine and vaccines, each -1, 0, 1 or 2;
- ``empty`` (``test-no_labels.tsv``): the same eight columns with the six label cells empty;
- ``text`` (``val_empty.tsv``): ``text_id, text`` only.

This module is pure (no database) so the importer, the exporter and the tests share one definition.
Reading is strict and every problem is a ``FormatError`` with file, physical line and column: a header
other than these, a non-integer or repeated text_id, an empty text, a label outside -1/0/1/2, a row
with some label cells empty, a claim irrelevant (-1) for one label but not the other, a wrong number
of fields, broken quoting. Writing with the source's line ending reproduces ``train.tsv`` and
``test-no_labels.tsv`` byte for byte (``val_empty.tsv`` quotes 8 texts that need no quotes, which a
writer cannot know).
"""
from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from annotator.core.csv_cells import official_writer
from annotator.core.errors import FormatError, refuse_nul

CLAIMS = ("masks", "quarantine", "vaccines")  # the files' column order
KINDS = ("stance", "argument")                # "argument" is the premise label
LABEL_COLUMNS = tuple(f"{claim}_{kind}" for claim in CLAIMS for kind in KINDS)
HEADER_LABELLED = ("text_id", "text", *LABEL_COLUMNS)
HEADER_TEXT = ("text_id", "text")
CODES = {"-1": -1, "0": 0, "1": 1, "2": 2}
IRRELEVANT = -1

Layout = Literal["labelled", "empty", "text"]
Labels = dict[str, tuple[int, int]]  # claim -> (stance, premise)


@dataclass(frozen=True)
class Row:
    text_id: int
    text: str
    labels: Labels | None  # None in the empty and text layouts
    line: int              # physical line the row starts on


@dataclass(frozen=True)
class RuargFile:
    layout: Layout
    newline: str  # "\r\n" or "\n"
    rows: list[Row]


def _decode(data: bytes, name: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[:error.start].count(b"\n") + 1
        raise FormatError(f"not UTF-8 (byte {data[error.start]:#04x})", file=name, line=line) from None


def _newline(text: str, name: str) -> str:
    first = text.find("\n")
    newline = "\r\n" if first > 0 and text[first - 1] == "\r" else "\n"
    for number, line in enumerate(text.split("\n")[:-1], 1):
        if line.endswith("\r") != (newline == "\r\n"):
            raise FormatError("line endings are mixed: this line ends differently from line 1", file=name,
                              line=number)
    return newline


def _records(text: str, name: str) -> Iterable[tuple[int, list[str]]]:
    """(physical line a record starts on, its fields); broken quoting is located where the record starts."""
    reader = csv.reader(io.StringIO(text, newline=""), delimiter="\t", quotechar='"', strict=True)
    start = 1
    while True:
        try:
            fields = next(reader)
        except StopIteration:
            return
        except csv.Error as error:
            problem = ("a quoted text is never closed" if "end of data" in str(error)
                       else f"broken quoting ({error}): a quote inside a text must be doubled and the text quoted")
            raise FormatError(problem, file=name, line=start) from None
        yield start, fields
        start = reader.line_num + 1


def _layout(header: list[str], name: str) -> tuple[str, ...]:
    for expected in (HEADER_LABELLED, HEADER_TEXT):
        if tuple(header) == expected:
            return expected
    expected = HEADER_LABELLED if len(header) > 2 else HEADER_TEXT
    column = next((e for h, e in zip(header, expected) if h != e), expected[min(len(header), len(expected) - 1)])
    raise FormatError(f"the header must be the 8 columns {', '.join(HEADER_LABELLED)} or the 2 columns "
                      f"{', '.join(HEADER_TEXT)}; found {', '.join(header)[:300]}", file=name, line=1, column=column)


def _labels(fields: list[str], name: str, line: int) -> Labels | None:
    cells = fields[2:]
    if not any(cells):
        return None
    labels: Labels = {}
    for claim in CLAIMS:
        codes = []
        for kind in KINDS:
            column = f"{claim}_{kind}"
            value = cells[LABEL_COLUMNS.index(column)]
            if value not in CODES:
                what = "an empty cell among filled ones" if value == "" else f"label {value!r}"
                raise FormatError(f"{what}: a label is -1, 0, 1 or 2", file=name, line=line, column=column)
            codes.append(CODES[value])
        if (codes[0] == IRRELEVANT) != (codes[1] == IRRELEVANT):
            raise FormatError(f"claim {claim} is irrelevant (-1) for one label but not the other "
                              f"(stance {codes[0]}, premise {codes[1]})", file=name, line=line,
                              column=f"{claim}_{KINDS[codes[0] == IRRELEVANT]}")
        labels[claim] = (codes[0], codes[1])
    return labels


def parse(data: bytes, name: str = "<input>") -> RuargFile:
    text = _decode(data, name)
    refuse_nul(text, name)
    if not text.strip():
        raise FormatError("the file is empty", file=name)
    newline = _newline(text, name)
    records = iter(_records(text, name))
    _, header = next(records)
    columns = _layout(header, name)
    rows: list[Row] = []
    seen: dict[int, int] = {}
    layouts: set[Layout] = set()
    for line, fields in records:
        if len(fields) != len(columns):
            raise FormatError(f"{len(fields)} fields where the header has {len(columns)} (a tab inside a text must "
                              "be quoted)", file=name, line=line)
        if not re.fullmatch(r"\d{1,18}", fields[0]):
            raise FormatError(f"text_id {fields[0]!r} is not an integer", file=name, line=line, column="text_id")
        text_id = int(fields[0])
        if text_id in seen:
            raise FormatError(f"text_id {text_id} is also on line {seen[text_id]}", file=name, line=line,
                              column="text_id")
        seen[text_id] = line
        if not fields[1].strip():
            raise FormatError("the text is empty", file=name, line=line, column="text")
        labels = _labels(fields, name, line) if columns == HEADER_LABELLED else None
        layouts.add("text" if columns == HEADER_TEXT else "labelled" if labels else "empty")
        if len(layouts) > 1:
            raise FormatError("this row has labels and an earlier one has none (or the reverse): a file is "
                              "labelled throughout or not at all", file=name, line=line, column=LABEL_COLUMNS[0])
        rows.append(Row(text_id, fields[1], labels, line))
    if not rows:
        raise FormatError("the file has a header but no sentence", file=name, line=2)
    layout = layouts.pop()
    return RuargFile(layout, newline, rows)


def read_file(path: Path | str) -> RuargFile:
    path = Path(path)
    return parse(path.read_bytes(), path.name)


def file_text(rows: Iterable[tuple[int, str, Labels | None]], layout: Layout, newline: str,
              claims: tuple[str, ...] = CLAIMS) -> str:
    """The file of (text_id, text, labels) rows; `claims` names the label columns (the data set's by default)."""
    out = io.StringIO()
    writer = official_writer(out, delimiter="\t", quotechar='"', lineterminator=newline)
    labelled = layout != "text"
    writer.writerow(("text_id", "text", *(f"{c}_{k}" for c in claims for k in KINDS)) if labelled else HEADER_TEXT)
    for text_id, text, labels in rows:
        if not labelled:
            writer.writerow((text_id, text))
        elif labels is None:
            writer.writerow((text_id, text, *([""] * (2 * len(claims)))))
        else:
            writer.writerow((text_id, text, *(code for claim in claims for code in labels[claim])))
    return out.getvalue()


def write_file(path: Path | str, rows: Iterable[tuple[int, str, Labels | None]], layout: Layout, newline: str,
               claims: tuple[str, ...] = CLAIMS) -> Path:
    path = Path(path)
    path.write_bytes(file_text(rows, layout, newline, claims).encode("utf-8"))
    return path
