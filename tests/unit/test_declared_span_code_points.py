"""`edges: code_points` of a spans question (annotator/declared/spans.py, docs/declared-span-edges.md): a mark may
start and end at any offset of the text, white space at an edge and an edge between a letter and its combining mark
included, as an earlier tool's API took evidence (ReCAM's); every other check of a spans answer holds, the rows are
those of `edges: characters` (a row per character, a character in the mark when the mark covers any of it) and the
mark's row keeps the offsets as given. `edges: characters` still refuses both (tests/unit/test_declared_span_edges.py).
The text is a sentence of the spelling example (examples/spelling_errors_items.jsonl)."""
from __future__ import annotations

import pytest

from annotator.declared.answers import check_answer, public_questions
from annotator.declared.definition import DefinitionError
from annotator.declared.definition_reader import definition_from_text
from annotator.tasks.base import AnswerError

EVIDENCE = """name: evidence
show: [{field: sentence, label: Sentence}]
questions:
  - id: evidence
    kind: spans
    of: sentence
    labels: [evidence]
    max: 1
    edges: code_points
    required: false
"""
SENTENCE = "We recieved the parcel on Tuesday."
ACCENTED = "At the cafe\u0301 we met."          # é written as e and U+0301: one character, two code points


def define(text: str = EVIDENCE):  # type: ignore[no-untyped-def]
    return definition_from_text(text, "task.yaml")


def answer(start: int, end: int, sentence: str = SENTENCE, definition: str = EVIDENCE):  # type: ignore[no-untyped-def]
    return check_answer(define(definition), {"sentence": sentence},
                        {"evidence": [{"start": start, "end": end, "label": "evidence"}]})


def test_the_key_reads_as_any_offset_with_the_characters_as_units():
    rules = define().questions[0].spans
    assert (rules.edges, rules.characters, rules.any_offset, rules.whole_words) == ("code_points", True, True, False)
    assert not define(EVIDENCE.replace("code_points", "characters")).questions[0].spans.any_offset


def test_whole_words_beside_it_is_refused_with_its_path():
    with pytest.raises(DefinitionError) as refused:
        define(EVIDENCE.replace("edges: code_points", "edges: code_points\n    whole_words: true"))
    assert refused.value.path == "questions[0].whole_words"
    assert refused.value.message == "is a key of edges: words; with edges: code_points a mark starts and ends at any " \
                                    "character already"


def test_white_space_at_an_edge_is_taken_as_given():
    stored, _ = answer(11, 15)                        # " the"
    assert stored == {"evidence": [{"start": 11, "end": 15, "label": "evidence"}]}


def test_a_mark_with_white_space_at_an_edge_labels_the_characters_of_the_mark_without_it():
    _, loose = answer(11, 15)                          # " the"
    _, tight = answer(12, 15)                          # "the"
    rows = {row.unit: row.value for row in loose}
    assert {unit: value for unit, value in rows.items() if unit.count(":") == 1} == \
        {row.unit: row.value for row in tight if row.unit.count(":") == 1}
    assert (rows["12:13"], rows["14:15"], rows["10:11"]) == ("evidence", "evidence", "O")
    assert rows["11:15:evidence"] == "1" and "12:15:evidence" not in rows   # the mark's own offsets


def test_an_edge_between_a_letter_and_its_combining_accent_is_taken():
    accent = ACCENTED.index("\u0301")
    stored, rows = answer(7, accent, ACCENTED)       # "cafe" without its accent
    assert stored["evidence"] == [{"start": 7, "end": accent, "label": "evidence"}]
    assert {row.unit: row.value for row in rows}[f"{accent - 1}:{accent + 1}"] == "evidence"   # "é", half covered


def test_the_same_marks_are_refused_with_edges_characters():
    characters = EVIDENCE.replace("code_points", "characters")
    with pytest.raises(AnswerError, match="starts or ends with white space"):
        answer(11, 15, definition=characters)
    with pytest.raises(AnswerError, match="falls inside the character"):
        answer(7, ACCENTED.index("\u0301"), ACCENTED, characters)


@pytest.mark.parametrize("start, end, said", [
    (15, 11, "[15, 11) is not a stretch of the text"),
    (0, 99, "[0, 99) is not a stretch of the text"),
])
def test_every_other_check_of_a_spans_answer_holds(start, end, said):
    with pytest.raises(AnswerError, match=said.replace("[", r"\[").replace(")", r"\)")):
        answer(start, end)


def test_a_text_that_is_not_the_stretch_is_refused():
    with pytest.raises(AnswerError, match="but characters 11 to 15 are ' the'"):
        check_answer(define(), {"sentence": SENTENCE},
                     {"evidence": [{"start": 11, "end": 15, "label": "evidence", "text": "the"}]})


def test_the_api_question_says_its_edges():
    [question] = public_questions(define(), {"sentence": SENTENCE})
    assert (question["edges"], question["whole_words"]) == ("code_points", False)
