"""One line end inside the app: LF.

Why: browsers send a textarea back with CRLF line ends (the HTML standard says so), and files come from
Windows (CRLF) or old Macs (CR). Code that splits text into lines or paragraphs looks for "\\n" and "\\n\\n":
one Save of a project's settings turned its guidelines into a single run-on paragraph. Text is normalised
where it comes in (every form field, web/form_text.py; a declared campaign's items, declared/items.py), so
everything after that sees LF only. Files read as text by Python (`read_text`, `open` without newline="") and
YAML already turn every line end into LF; CSV keeps a quoted cell's line breaks as they are written.
"""
from __future__ import annotations


def normalise_line_ends(text: str) -> str:
    """CRLF and a lone CR become LF; the rest of the text is left as it is."""
    if "\r" not in text:
        return text
    return text.replace("\r\n", "\n").replace("\r", "\n")
