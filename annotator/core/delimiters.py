"""Which character separates the columns of a CSV file: a comma, a semicolon or a tab.

Why: a spreadsheet saved as CSV where the decimal mark is a comma (most of Europe) separates columns with
semicolons, and some tools write tabs into a .csv; read with commas, such a file is one column whose name
is the whole header, and the refusal ("unknown column 'id;text;other'") hides the cause. csv.Sniffer guesses
over a sample; its guess is kept when the header splits on it (a cell may well hold the other characters:
"kp_1; kp_2" in a comma-separated file), and, when the header splits on two candidates, when it alone gives
every line as many cells as the header. Else a header that splits on one candidate decides, and one that
splits on several is refused, saying which characters it has, rather than read wrongly.
"""
from __future__ import annotations

import csv

from annotator.core.errors import FormatError

CANDIDATES = ",;\t"
NAMES = {",": "commas", ";": "semicolons", "\t": "tabs"}
SAMPLE = 1 << 16


def table_delimiter(text: str, file: str) -> str:
    """The delimiter of the CSV `text` (its header first): one of CANDIDATES; FormatError when it is ambiguous."""
    header = next((line for line in text.splitlines() if line.strip()), "")
    splits = [d for d in CANDIDATES if len(next(csv.reader([header], delimiter=d), [])) > 1]
    if not splits:
        return ","   # one column: every delimiter reads it the same
    sniffed = _sniffed(text)
    if sniffed in splits and (len(splits) == 1 or [d for d in splits if _same_width(text, d)] == [sniffed]):
        return sniffed
    if len(splits) == 1:   # the sniffer could not read the sample, or guessed a character only the cells hold
        return splits[0]
    found = " and ".join(NAMES[d] for d in splits)
    raise FormatError(f"cannot tell which character separates the columns: the first line has {found}; save the "
                      "file with one of them between columns (commas for CSV, tabs for TSV) and put the cells that "
                      'hold the others in double quotes ("...")', file=file, line=1)


def _same_width(text: str, delimiter: str) -> bool:
    """Whether every line of the sample has as many cells as the header when split on `delimiter`."""
    rows = [row for row in csv.reader(_sample(text).splitlines(), delimiter=delimiter) if any(c.strip() for c in row)]
    return len({len(row) for row in rows}) == 1


def _sample(text: str) -> str:
    """The first lines of `text`, up to SAMPLE characters, whole lines."""
    sample = text[:SAMPLE]
    if len(text) > SAMPLE and "\n" in sample:
        sample = sample[:sample.rindex("\n")]
    return sample


def _sniffed(text: str) -> str | None:
    """csv.Sniffer's guess over the sample, or None."""
    try:
        return csv.Sniffer().sniff(_sample(text), delimiters=CANDIDATES).delimiter
    except csv.Error:
        return None


def looks_semicolon_separated(text: str) -> bool:
    """Whether `text` reads as a semicolon-separated table, for telling what an upload looks like: stricter
    than table_delimiter (the sniffer must find semicolons in the lines, not only the header split on them),
    since a line of prose may hold a semicolon."""
    header = next((line for line in text.splitlines() if line.strip()), "")
    return ";" in header and _sniffed(text) == ";"
