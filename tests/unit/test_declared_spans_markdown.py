"""Spans over a Markdown field (docs/declared-spans.md, "Spans over Markdown"): the offsets count the text a reader
sees, block by block joined by a line feed, a mark stays within one block, and the HIT draws the blocks' words. Data:
the example examples/markdown_spans.yaml and its items (model answers written in Markdown)."""
from __future__ import annotations

import json

import pytest

from annotator.declared.answers import check_answer, public_questions
from annotator.declared.definition_reader import definition_from_file
from annotator.declared.markdown_text import blocks
from annotator.declared.spans import text_of, view
from annotator.tasks.base import AnswerError
from tests.conftest import DATA

ROOT = DATA.parents[1]
EXAMPLE = ROOT / "examples" / "markdown_spans.yaml"
ITEMS = [json.loads(line) for line in (ROOT / "examples" / "markdown_spans_items.jsonl").read_text().splitlines()]
FIRST = ITEMS[0]
# what a reader of the first answer sees, block by block, written out by hand from its Markdown
SEEN = ["Short answer", "The tower opened on 31 March 1889 for the World's Fair.", "It is 330 metres tall today.",
        "It was the tallest structure in the world until 1930.", "See eiffel-tower.paris for tickets."]


def definition():  # type: ignore[no-untyped-def]
    return definition_from_file(EXAMPLE)


def mark(block: int, stretch: str, label: str) -> dict:
    before = sum(len(b) + 1 for b in SEEN[:block])
    start = before + SEEN[block].index(stretch)
    return {"start": start, "end": start + len(stretch), "label": label}


def test_the_text_is_what_a_reader_sees_block_by_block_without_the_markup():
    assert text_of(definition().questions[0], FIRST) == "\n".join(SEEN)


@pytest.mark.parametrize(("source", "seen"), [
    ("# A *title*\n\nA [link](https://example.org) and `code`.", ["A title", "A link and code."]),
    ("one\ntwo  \nthree", ["one two three"]),                        # a soft and a hard line break: spaces
    ("![a cat](cat.png) sleeps", ["a cat sleeps"]),                  # an image: its alternative text
    ("<b>raw</b> &amp; &#10;done", ["<b>raw</b> &  done"]),         # raw HTML is text; entities decoded
    ("```\nline 1\nline 2\n```\n\n---\n\n> quoted", ["line 1 line 2", "quoted"]),   # a rule gives nothing
])
def test_each_kind_of_block_gives_the_text_the_page_shows(source, seen):
    assert blocks(source) == seen


def test_marks_are_stored_with_offsets_into_the_seen_text():
    answer, rows = check_answer(definition(), FIRST, {"claims": [mark(2, "330 metres", "wrong"),
                                                                 mark(1, "31 March 1889", "unsupported")]})
    assert answer == {"claims": [mark(1, "31 March 1889", "unsupported"), mark(2, "330 metres", "wrong")]}
    assert mark(1, "31 March 1889", "unsupported")["start"] == 13 + 20   # "Short answer\n" and "The tower opened on "
    text = text_of(definition().questions[0], FIRST)
    assert {row.unit for row in rows if row.unit.count(":") == 2} == {
        f"{m['start']}:{m['end']}:{m['label']}" for m in answer["claims"]}
    assert [text[m["start"]:m["end"]] for m in answer["claims"]] == ["31 March 1889", "330 metres"]


def test_a_mark_running_from_one_block_into_the_next_is_refused_naming_both():
    crossing = {"start": mark(1, "Fair", "wrong")["start"], "end": mark(2, "It is", "wrong")["end"], "label": "wrong"}
    with pytest.raises(AnswerError, match=r"claims: span 1: runs from block 2 into block 3 of answer; a mark stays "
                                          r"within one block"):
        check_answer(definition(), FIRST, {"claims": [crossing]})


def test_the_api_gives_the_words_of_the_seen_text():
    [question] = public_questions(definition(), FIRST)
    words = [w["text"] for w in question["words"]]
    assert words[:4] == ["Short", "answer", "The", "tower"] and "**" not in words and "#" not in words


def test_the_hit_draws_the_blocks_in_order_with_their_words():
    drawn = view(definition().questions[0], FIRST)
    assert drawn.turns is not None and drawn.rules.parts == "block"
    assert ["".join(piece.text for piece in block.pieces) for block in drawn.turns] == SEEN
