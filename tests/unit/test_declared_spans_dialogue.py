"""Spans over a dialogue field (docs/declared-spans.md, "Spans over a dialogue"): the offsets count the turns' texts
joined by a line feed, a mark stays within one turn, and the HIT draws the turns as the display does. Data: the
example examples/dialogue_spans.yaml and its items."""
from __future__ import annotations

import json

import pytest

from annotator.declared.answers import check_answer, public_questions
from annotator.declared.definition import DefinitionError
from annotator.declared.definition_reader import definition_from_file, definition_from_text
from annotator.declared.spans import text_of, view
from annotator.tasks.base import AnswerError
from tests.conftest import DATA

ROOT = DATA.parents[1]

EXAMPLE = ROOT / "examples" / "dialogue_spans.yaml"
ITEMS = [json.loads(line) for line in (ROOT / "examples" / "dialogue_spans_items.jsonl").read_text().splitlines()]
FIRST = ITEMS[0]   # turns: "Hi, I am Maria Keller and my order 88213 never arrived." (55 characters), ...
TURNS = ["Hi, I am Maria Keller and my order 88213 never arrived.",
         "Sorry, Maria. Can you confirm the address: 14 Elm Street, Leeds?",
         "Yes. You can also call me on 0113 496 0321."]


def definition():  # type: ignore[no-untyped-def]
    return definition_from_file(EXAMPLE)


def mark(turn: int, stretch: str, label: str) -> dict:
    """The mark of `stretch` in turn `turn` (0-based), its offsets counted by hand: the earlier turns and one line
    feed after each."""
    before = sum(len(t) + 1 for t in TURNS[:turn])
    return {"start": before + TURNS[turn].index(stretch), "end": before + TURNS[turn].index(stretch) + len(stretch),
            "label": label}


def test_the_text_is_the_turns_joined_by_a_line_feed_without_the_speakers():
    question = definition().questions[0]
    assert [turn["text"] for turn in FIRST["dialogue"]] == TURNS
    assert text_of(question, FIRST) == TURNS[0] + "\n" + TURNS[1] + "\n" + TURNS[2]


def test_a_bare_text_turn_counts_like_an_object_turn():
    assert text_of(definition().questions[0], ITEMS[2]).endswith("then Cancel.\nThanks, that worked.")


def test_marks_in_two_turns_are_stored_with_offsets_into_the_joined_text():
    answer, rows = check_answer(definition(), FIRST, {"personal": [mark(1, "14 Elm Street, Leeds", "ADDRESS"),
                                                                   mark(0, "Maria Keller", "NAME")]})
    assert answer == {"personal": [{"start": 9, "end": 21, "label": "NAME"},
                                   {"start": 99, "end": 119, "label": "ADDRESS"}]}
    text = text_of(definition().questions[0], FIRST)
    assert (text[9:21], text[99:119]) == ("Maria Keller", "14 Elm Street, Leeds")
    assert {row.unit for row in rows if row.unit.count(":") == 2} == {"9:21:NAME", "99:119:ADDRESS"}


def test_a_mark_running_from_one_turn_into_the_next_is_refused_naming_both():
    crossing = {"start": mark(0, "arrived", "NAME")["start"], "end": mark(1, "Sorry", "NAME")["end"], "label": "NAME"}
    with pytest.raises(AnswerError, match=r"personal: span 1: runs from turn 1 into turn 2 of dialogue; a mark "
                                          r"stays within one turn"):
        check_answer(definition(), FIRST, {"personal": [crossing]})


def test_the_api_gives_the_words_with_offsets_into_the_joined_text():
    [question] = public_questions(definition(), FIRST)
    words = {(w["start"], w["end"]): w["text"] for w in question["words"]}
    assert words[(9, 14)] == "Maria" and words[(56, 61)] == "Sorry"   # 56: the first word of turn 2
    assert all("\n" not in text for text in words.values())


def test_the_hit_draws_each_turn_with_its_speaker_and_side_and_its_own_words():
    drawn = view(definition().questions[0], FIRST)
    assert drawn.turns is not None
    assert [(turn.speaker, turn.side) for turn in drawn.turns] == [("User", 0), ("Assistant", 1), ("User", 0)]
    for turn, expected in zip(drawn.turns, TURNS, strict=True):
        assert "".join(piece.text for piece in turn.pieces) == expected
    # words counted by hand, a punctuation mark being a word: 13 in turn 1, 16 in turn 2, 12 in turn 3
    assert [p.index for t in drawn.turns for p in t.pieces if p.index is not None] == list(range(41))


def test_a_spans_question_of_a_list_field_is_refused_naming_what_it_may_mark():
    with pytest.raises(DefinitionError, match=r"'steps' must be a shown field drawn as text, title, markdown or "
                                              r"dialogue"):
        definition_from_text("""name: x
show: [{field: steps, as: list}]
questions:
  - {id: s, kind: spans, of: steps, labels: [A]}
""", "task.yaml")
