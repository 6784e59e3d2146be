"""The text a reader sees of a Markdown field, block by block: what a spans question over the field marks.

Why the rendered text and not the Markdown source: an annotator marks what the page shows ("Paris", not
"**Paris**"), and the offsets must count the same characters on the HIT, in the API's words and in the exports. So
a field drawn `as: markdown` is read with the renderer's own settings (`parser`, which web/markdown.py renders with)
into blocks (a paragraph, a heading, a list item's paragraph, a code block, a quoted paragraph), each the text of
its inline content: emphasis and links give their text, inline code its code, an image its alternative text, a line
break a space; raw HTML is text (the renderer shows it as text). A code block's line ends are spaces too, so that a
block never holds a line feed: the spans question joins the blocks with one (spans.TURN_BREAK), and a mark stays
within one block. A thematic break or an empty block gives no text.
"""
from __future__ import annotations

from functools import cache

from markdown_it import MarkdownIt

INLINE_TEXT = ("text", "code_inline", "image")     # the inline tokens whose content the reader sees
INLINE_SPACE = ("softbreak", "hardbreak")          # a line break inside a block: a space


@cache
def parser() -> MarkdownIt:
    """CommonMark with raw HTML off (a tag in the text is shown as text), no linkify, no typographer."""
    return MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})


def blocks(source: str) -> list[str]:
    """The text of each block of the Markdown `source` that has any, in order (see the module's docstring)."""
    found = []
    for token in parser().parse(source):
        if token.type == "inline":
            text = "".join(child.content if child.type in INLINE_TEXT else " " if child.type in INLINE_SPACE else ""
                           for child in token.children or ())
        elif token.type in ("code_block", "fence"):
            text = token.content.rstrip("\n")
        else:
            continue
        if text.strip():
            found.append(text.replace("\n", " "))   # a line feed written as a character reference (&#10;) too
    return found
