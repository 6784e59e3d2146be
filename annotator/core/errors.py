"""Errors that carry *where* a problem is, so every message can name file, line and field.

Importers and scorers raise these instead of ValueError so that the CLI and the web pages can
print one uniform, precise message ("arguments_dev.csv, line 14, column stance: ...") and exit
with a distinct status, and so that a whole import can be rolled back on the first one.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass
class LocatedError(Exception):
    """A problem in an input file, located as precisely as the reader knows."""

    message: str
    file: str | None = None
    line: int | None = None
    column: str | None = None

    def __str__(self) -> str:
        where = [p for p in (
            self.file,
            f"line {self.line}" if self.line is not None else None,
            f"column {self.column}" if self.column else None,
        ) if p]
        return f"{', '.join(where)}: {self.message}" if where else self.message


class FormatError(LocatedError):
    """Input data (import files, gold files) does not follow the shared task's format."""


class SubmissionError(LocatedError):
    """A system submission cannot be scored as it is (bad JSON, wrong columns, unknown ids...)."""


def refuse_nul(text: str, file: str) -> None:
    """FormatError (file and line) for a NUL character in a file's text.

    No text or JSON column keeps NUL (PostgreSQL refuses it) and the readers would pass it through; the
    item check caught it later but could only name the item ("item '17041': its text contains the NUL
    character"), not where it is. Each reader calls this once it has decoded a file.
    """
    at = text.find("\x00")
    if at >= 0:
        raise FormatError("a NUL character (\\u0000), which no text kept here may hold (is the file UTF-16? it "
                          "must be UTF-8)", file=file, line=text.count("\n", 0, at) + 1)
