"""Plain-text guidelines (a shared task's project, not a declared campaign's Markdown) as paragraphs.

Why a filter: the organiser writes them in a textarea, where a blank line ends a paragraph and a single line
break is meant too (numbered steps, one a line). A blank line may hold spaces, and text saved before line ends
were normalised may hold CRLF (core/line_ends.py). Registered as the Jinja filter `paragraphs`; the page shows
each paragraph's own line breaks (`.guidelines p.plain`, white-space: pre-line).
"""
from __future__ import annotations

import re

from flask import Flask

from annotator.core.line_ends import normalise_line_ends

_BLANK_LINE = re.compile(r"\n[ \t]*\n")


def paragraphs(text: str | None) -> list[str]:
    """The paragraphs of `text`, each without the space around it; no empty paragraph."""
    if not text:
        return []
    return [part.strip() for part in _BLANK_LINE.split(normalise_line_ends(text)) if part.strip()]


def init_app(app: Flask) -> None:
    app.jinja_env.filters["paragraphs"] = paragraphs
