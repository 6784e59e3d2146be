"""What an export says about cells of the shared tasks' own files that a spreadsheet would run as a formula.

Why: those files are written byte for byte in the task's layout (reading them back, or scoring with the
official program, needs exactly those bytes), so an imported argument, word or sentence that starts with
``=``, ``+``, ``-`` or ``@`` stays so (core/csv_cells.py quotes them in every other file). The organiser
must then hear which cells they are before opening the files in a spreadsheet: the command prints them,
the export holds a FORMULA-CELLS.txt that lists every one, and the project page shows them after the
download (admin.export's cookie, static/js/export.js).
"""
from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Iterable
from pathlib import Path
from urllib.parse import quote

from annotator.core.csv_cells import FormulaCell, formula_cells

LISTING = "FORMULA-CELLS.txt"
SHOWN = 20  # cells named in the command's note; the listing names all
COOKIE = "export-formula-cells"  # what the project page's script shows after the download
COOKIE_BYTES = 3000  # a cookie holds about 4 kB: the first cells' places, as many as fit
HEAD = ("{cells} of the shared task's own files {start} with a character a spreadsheet runs as a formula (=, +, -, "
        "@, a tab or a carriage return, also after leading blanks or quotes or after a ; , tab or line break "
        "inside the cell). These files are written byte for byte in the task's layout, so {kept} left as {kept}; "
        "open them in a spreadsheet with their columns imported as text.")


def head(count: int) -> str:
    one = count == 1
    return HEAD.format(cells=f"{count} cell{'' if one else 's'}", start="starts" if one else "start",
                       kept="it is" if one else "they are")


def export_formula_cells(paths: Iterable[Path]) -> list[FormulaCell]:
    """The cells a spreadsheet would run in these files: the shared task's own files of an export
    (Exported.verbatim; every other CSV or TSV file quotes them, and JSON Lines of our own keep the text)."""
    return [cell for path in paths for cell in formula_cells(Path(path))]


def listing_text(cells: list[FormulaCell]) -> str:
    """The whole listing, one cell a line: file, line, column, and the cell's start."""
    return head(len(cells)) + "\n\n" + "".join(f"{cell}\n" for cell in cells)


def write_listing(out_dir: Path, cells: list[FormulaCell]) -> Path:
    path = Path(out_dir) / LISTING
    path.write_text(listing_text(cells), encoding="utf-8")
    return path


def formula_note(cells: list[FormulaCell]) -> str:
    """The export's note: the head, the first SHOWN cells, and where the others are listed."""
    lines = [head(len(cells)) + f" {'It is' if len(cells) == 1 else 'They are'} listed in {LISTING}:"]
    lines += [f"  {cell}" for cell in cells[:SHOWN]]
    if len(cells) > SHOWN:
        lines.append(f"  ... and {len(cells) - SHOWN} more in {LISTING}")
    return "\n".join(lines)


def listed_in_zip(buffer: io.BytesIO) -> list[str]:
    """The cells a zipped export lists in its FORMULA-CELLS.txt (none without one), one line each."""
    position = buffer.tell()
    try:
        with zipfile.ZipFile(buffer) as archive:
            names = [n for n in archive.namelist() if n.rsplit("/", 1)[-1] == LISTING]
            if not names:
                return []
            text = archive.read(names[0]).decode("utf-8")
    finally:
        buffer.seek(position)
    return [line for line in text.split("\n\n", 1)[-1].split("\n") if line]  # not splitlines: a cell's U+2028


def page_message(listed: list[str]) -> str | None:
    """The cookie's value for the project page: {"count": cells, "cells": the first ones' file, line and
    column}, JSON quoted for a cookie; None without a cell. The cells' text stays in the listing (a cookie is
    small, and quoting non-Latin text takes six bytes a letter)."""
    if not listed:
        return None
    places = [line.split(': "', 1)[0] for line in listed]
    for shown in range(len(places), -1, -1):
        value = quote(json.dumps({"count": len(places), "cells": places[:shown], "listing": LISTING}))
        if len(value) <= COOKIE_BYTES:
            return value
    raise AssertionError("unreachable: the message without a cell is short")
