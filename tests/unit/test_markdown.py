"""Organisers' Markdown (annotator/web/markdown.py): formatting kept, raw HTML and script links refused."""
from __future__ import annotations

from markupsafe import Markup

from annotator.web.markdown import render_markdown


def test_markdown_is_rendered() -> None:
    html = render_markdown("# Title\n\nSome **bold** and *italic*, a [link](https://example.org).\n\n- one\n- two")
    assert isinstance(html, Markup)
    assert "<h1>Title</h1>" in html and "<strong>bold</strong>" in html and "<em>italic</em>" in html
    assert '<a href="https://example.org">link</a>' in html and "<li>one</li>" in html


def test_raw_html_is_text_and_script_links_are_not_links() -> None:
    html = render_markdown('<script>alert(1)</script> <img src=x onerror="alert(1)">\n\n[x](javascript:alert(1))')
    assert "<script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<img" not in html
    assert 'href="javascript' not in html


def test_nothing_is_nothing() -> None:
    assert render_markdown(None) == "" and render_markdown("") == ""
