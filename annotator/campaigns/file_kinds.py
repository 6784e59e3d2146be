"""What an uploaded file looks like (JSON Lines, CSV, TSV, a zip, an Excel workbook, ...), so that a refused import
can say "this looks like JSON Lines; this import expects ..." instead of the first parse error the wrong kind of
file happens to raise (a JSON Lines file read as a token file was refused for its line ends).

A format declares the kinds it reads (`FileFormat.kinds`); the hint is given only when the file is of none of them.
"""
from __future__ import annotations

from pathlib import Path

from annotator.core.delimiters import looks_semicolon_separated
from annotator.core.jsonsafe import JSONBodyError, JSONValueError, loads_text

SAMPLE = 1 << 16
CSV, TSV, JSON_LINES, JSON, ZIP = "CSV", "TSV", "JSON Lines", "JSON", "a zip archive"
_MAGIC = ((b"%PDF", "a PDF document"), (b"\xd0\xcf\x11\xe0", "an old Office document (.xls or .doc)"),
          (b"\x80", "a Python pickle"), (b"\x1f\x8b", "a gzip archive"))


def looks_like(path: Path) -> str:
    """The kind of file `path` looks like from its first bytes, in words ("JSON Lines", "an Excel workbook")."""
    with open(path, "rb") as stream:
        head = stream.read(SAMPLE)
    if not head.strip():
        return "an empty file"
    if head.startswith(b"PK\x03\x04"):
        return "an Excel workbook (.xlsx)" if b"xl/" in head else ZIP
    for magic, kind in _MAGIC:
        if head.startswith(magic):
            return kind
    if b"\x00" in head:
        return "a binary file (not text)"
    return _text_kind(head.decode("utf-8", errors="replace").removeprefix("\ufeff"))


def _text_kind(text: str) -> str:
    lines = [line for line in text.splitlines() if line.strip()][:20]
    if len(text) < SAMPLE and text.lstrip()[:1] in "[{" and _parses(text):
        return JSON
    if lines and all(line.lstrip().startswith("{") for line in lines[:-1] or lines) and _parses(lines[0]):
        return JSON_LINES
    if not lines:  # only characters Python counts as line ends or blanks (e.g. \x1c), which bytes.strip keeps
        return "an empty file"
    first = lines[0]
    if "\t" in first and len({line.count("\t") for line in lines[:10]}) <= 2:
        return TSV
    if "," in first or ";" in first and looks_semicolon_separated(text):
        return CSV
    return "plain text"


def _parses(text: str) -> bool:
    try:
        loads_text(text)
    except (JSONBodyError, JSONValueError):   # deep nesting too: a hint must not end in a RecursionError
        return False
    return True


def kind_hint(path: Path, expected: tuple[str, ...], expects: str, reader: str = "this import") -> str | None:
    """"dev.txt looks like JSON Lines; this import expects ..." when `path` is of none of the `expected` kinds."""
    if not expected or not path.is_file():
        return None
    kind = looks_like(path)
    if kind in expected:
        return None
    return f"{path.name} looks like {kind}; {reader} expects {expects}."
