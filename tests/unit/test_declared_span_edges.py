"""`edges: characters` of a spans question (annotator/declared/spans.py, docs/declared-span-edges.md): a mark may
start and end at any character of the text, not splitting a letter from its combining mark nor an emoji sequence;
an answer gives a label row per character (what agreement is measured on) and one per mark (what gold decides on);
and the definition refuses a misuse of the key with its path. The text is a sentence of the spelling example
(examples/spelling_errors_items.jsonl)."""
from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from annotator.declared.answers import check_answer, public_questions
from annotator.declared.definition import DefinitionError
from annotator.declared.definition_reader import definition_from_text
from annotator.declared.items import load_definition, read_items
from annotator.declared.spans import character_bounds, question_gold
from annotator.tasks.base import AnswerError

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
ERRORS = """name: spelling
show: [{field: sentence, label: Sentence}]
questions:
  - id: errors
    kind: spans
    of: sentence
    labels: [spelling, ending]
    edges: characters
    required: false
"""
SENTENCE = "We recieved the parcel on Tuesday."
PAYLOAD = {"sentence": SENTENCE}


def define(text: str = ERRORS):  # type: ignore[no-untyped-def]
    return definition_from_text(text, "task.yaml")


def refused(text: str) -> DefinitionError:
    with pytest.raises(DefinitionError) as caught:
        define(text)
    return caught.value


def answer(spans, payload=PAYLOAD):  # type: ignore[no-untyped-def]
    return check_answer(define(), payload, {"errors": spans})


def problem(spans, payload=PAYLOAD) -> str:  # type: ignore[no-untyped-def]
    with pytest.raises(AnswerError) as caught:
        answer(spans, payload)
    return str(caught.value)


# --- the definition -------------------------------------------------------------------------------------------

def test_a_spans_question_marks_whole_words_unless_it_says_characters():
    words = define(ERRORS.replace("    edges: characters\n", "")).questions[0].spans
    characters = define().questions[0].spans
    assert (words.edges, words.whole_words, words.characters) == ("words", True, False)
    assert (characters.edges, characters.whole_words, characters.characters) == ("characters", False, True)


def test_an_edges_value_other_than_words_or_characters_is_refused_with_its_path():
    error = refused(ERRORS.replace("edges: characters", "edges: letters"))
    assert (error.path, error.line) == ("questions[0].edges", 8)
    assert error.message == "'letters' is not what a mark's edges fall on: words (the default), characters or " \
                            "code_points"


def test_whole_words_beside_edges_characters_is_refused_as_a_contradiction():
    error = refused(ERRORS.replace("edges: characters", "edges: characters\n    whole_words: true"))
    assert error.path == "questions[0].whole_words"
    assert error.message == "is a key of edges: words; with edges: characters a mark starts and ends at any " \
                            "character already"


def test_the_spelling_example_validates_and_reads_its_items():
    definition = load_definition(EXAMPLES / "spelling_errors.yaml")
    assert definition.questions[0].spans.characters
    assert [item.external_id for item in read_items(EXAMPLES / "spelling_errors_items.jsonl", definition)] == \
        ["e1", "e2", "e3", "e4"]


# --- answers ------------------------------------------------------------------------------------------------

def test_a_mark_inside_a_word_is_taken_with_its_character_offsets():
    stored, _ = answer([{"start": 6, "end": 8, "label": "spelling", "text": "ie"}])
    assert stored == {"errors": [{"start": 6, "end": 8, "label": "spelling"}]}


def test_a_mark_across_words_may_start_and_end_inside_them():
    stored, _ = answer([{"start": 9, "end": 14, "label": "spelling", "text": "ed th"}])
    assert stored["errors"] == [{"start": 9, "end": 14, "label": "spelling"}]


def test_white_space_at_an_edge_is_still_refused():
    assert problem([{"start": 11, "end": 15, "label": "spelling"}]) == \
        "errors: span 1: ' the' starts or ends with white space; mark the text only"


def test_an_edge_between_a_letter_and_its_combining_accent_is_refused():
    text = "At the cafe\u0301 we met."          # é written as e and U+0301: one character, two code points
    accent = text.index("\u0301")
    assert problem([{"start": 7, "end": accent, "label": "spelling"}], {"sentence": text}) == \
        f"errors: span 1: end {accent} falls inside the character 'e\u0301' (characters {accent - 1} to " \
        f"{accent + 1}: a letter with the marks that combine with it, or one emoji); the end may be {accent - 1} or " \
        f"{accent + 1}"
    assert answer([{"start": 7, "end": accent + 1, "label": "spelling"}], {"sentence": text})[0]["errors"] == \
        [{"start": 7, "end": accent + 1, "label": "spelling"}]


def test_an_edge_inside_an_emoji_sequence_is_refused():
    text = "Our 👩‍🔬 team wins."                  # woman, zero-width joiner, microscope: one character
    assert character_bounds(text)[3] == (4, 7)
    said = problem([{"start": 5, "end": 7, "label": "spelling"}], {"sentence": text})
    assert "start 5 falls inside the character '👩\\u200d🔬' (characters 4 to 7" in said


def test_the_api_question_says_its_edges():
    [question] = public_questions(define(), PAYLOAD)
    assert (question["edges"], question["whole_words"]) == ("characters", False)


# --- label rows, gold ---------------------------------------------------------------------------------------

def test_an_answer_gives_a_row_per_character_and_one_for_the_mark():
    _, rows = answer([{"start": 6, "end": 8, "label": "spelling"}])   # "ie" of "recieved"
    units = {row.unit: row.value for row in rows}
    assert len(rows) == len(SENTENCE.replace(" ", "")) + 1    # every character but the spaces, and the mark
    assert (units["5:6"], units["6:7"], units["7:8"], units["8:9"]) == ("O", "spelling", "spelling", "O")
    assert units["6:8:spelling"] == "1" and "2:3" not in units   # the space after "We" is no unit


def test_gold_takes_the_mark_two_annotators_made_exactly_and_labels_its_characters():
    rows = []
    for user, marks in (("ann", [(6, 8)]), ("bob", [(6, 8)]), ("cy", [(3, 11)])):   # "ie", "ie", "recieved"
        _, labels = answer([{"start": s, "end": e, "label": "spelling"} for s, e in marks])
        rows += [{"item": "e1", "unit": r.unit, "field": r.field, "value": r.value, "user_id": user} for r in labels]
    question = define(ERRORS.replace("required: false", "required: false\n    gold: {rule: agree, m: 2}")).questions[0]
    gold = {row[2]: row[3] for row in question_gold(question, pd.DataFrame(rows), lambda item: True)}
    assert (gold["6:8:spelling"], gold["3:11:spelling"]) == ("1", "0")
    assert (gold["5:6"], gold["6:7"], gold["7:8"], gold["8:9"]) == ("O", "spelling", "spelling", "O")
