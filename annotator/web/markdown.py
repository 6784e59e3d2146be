"""Markdown written by an organiser (a declared campaign's guidelines, a `show` field drawn `as: markdown`),
rendered safely: CommonMark with raw HTML off, so any tag in the text is shown as text, and markdown-it's
link check, which refuses javascript:, vbscript: and data: links other than images. The settings are those a spans
question over a Markdown field reads the field's text with (declared/markdown_text.py), so both read it alike.

Registered as the Jinja filter `markdown` by `init_app`.
"""
from __future__ import annotations

from typing import Any

from flask import Flask
from markupsafe import Markup

from annotator.declared.markdown_text import parser


def render_markdown(text: Any) -> Markup:
    """HTML of the Markdown `text` (None is nothing); safe to put in a page as it is."""
    if text is None:
        return Markup("")
    return Markup(parser().render(str(text)))  # noqa: S704 - raw HTML is off: every tag of the text is escaped


def init_app(app: Flask) -> None:
    app.jinja_env.filters["markdown"] = render_markdown
