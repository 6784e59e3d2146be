"""Markdown written by an organiser (a declared campaign's guidelines, a `show` field drawn `as: markdown`),
rendered safely: CommonMark with raw HTML off, so any tag in the text is shown as text, and markdown-it's
link check, which refuses javascript:, vbscript: and data: links other than images.

Registered as the Jinja filter `markdown` by `init_app`.
"""
from __future__ import annotations

from typing import Any

from flask import Flask
from markdown_it import MarkdownIt
from markupsafe import Markup

_RENDERER = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})


def render_markdown(text: Any) -> Markup:
    """HTML of the Markdown `text` (None is nothing); safe to put in a page as it is."""
    if text is None:
        return Markup("")
    return Markup(_RENDERER.render(str(text)))  # noqa: S704 - raw HTML is off: every tag of the text is escaped


def init_app(app: Flask) -> None:
    app.jinja_env.filters["markdown"] = render_markdown
