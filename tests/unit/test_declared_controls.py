"""Control items of declared campaigns: the known answer is an answer object, scored question by question."""
from __future__ import annotations

import pytest

from annotator.declared.answers import SWAPPED
from annotator.declared.definition_reader import definition_from_text
from annotator.declared.gold import control_reference, control_score, declared_gold, show_reference
from tests.support.declared_labels import labels_of

DEFINITION = definition_from_text("""
name: controls
show: [{field: text, label: Quote}, {field: other, label: Another quote}]
questions:
  - {id: s, kind: choice, options: [{value: pos, label: Positive}, {value: neg, label: Negative}]}
  - {id: t, kind: multi, options: [{value: life, label: Life}, {value: love, label: Love}, work], none: Nothing}
  - {id: x, kind: scale, min: 1, max: 5}
  - {id: w, kind: span, of: text}
  - {id: p, kind: pairwise, a: text, b: other}
  - {id: note, kind: text, required: false}
""")
PAYLOAD = {"text": "one two three", "other": "four five"}
ANSWER = {"s": "pos", "t": ["life", "love"], "x": 4, "w": [0, 1], "p": "A"}


def score(reference, answer=ANSWER, presentation=None):  # type: ignore[no-untyped-def]
    return control_score(DEFINITION, PAYLOAD, answer, reference, presentation)


def test_a_choice_scores_one_when_equal_and_zero_otherwise():
    assert (score({"s": "pos"}), score({"s": "neg"})) == (1.0, 0.0)


def test_a_scale_scores_equal_numbers():
    assert (score({"x": 4}), score({"x": 4.0}), score({"x": 3})) == (1.0, 1.0, 0.0)


def test_a_multi_question_scores_the_jaccard_overlap():
    assert score({"t": ["life", "work"]}) == pytest.approx(1 / 3)


def test_a_multi_question_with_nothing_chosen_on_both_sides_scores_one():
    assert score({"t": []}, {**ANSWER, "t": []}) == 1.0


def test_a_span_scores_the_jaccard_overlap_of_the_words():
    assert score({"w": [1, 2]}) == pytest.approx(1 / 3)


def test_a_pairwise_answer_is_read_in_the_sides_the_annotator_was_shown():
    swapped = {SWAPPED: ["p"]}
    assert (score({"p": "A"}), score({"p": "B"}, presentation=swapped), score({"p": "A"}, presentation=swapped)) \
        == (1.0, 1.0, 0.0)


def test_the_score_is_the_mean_over_the_known_questions():
    assert score({"s": "pos", "x": 3, "t": ["life", "love"], "w": [0]}) == pytest.approx((1 + 0 + 1 + 0.5) / 4)


def test_a_known_question_left_unanswered_scores_zero():
    assert score({"s": "pos", "x": 4}, {"s": "pos"}) == 0.5


def test_nothing_scorable_gives_none():
    assert (score({"note": "fine"}), score({}), score(None)) == (None, None, None)


def test_the_reference_is_the_items_decided_gold_as_an_answer():
    labels = labels_of(DEFINITION, {"i1": [ANSWER, ANSWER, {**ANSWER, "s": "neg", "x": 2, "p": "equal"}]},
                       {"i1": PAYLOAD})
    gold = declared_gold(DEFINITION, labels)
    # the span by probability: every word's share of the three annotators (two of three selected words 0 and 1)
    assert control_reference(DEFINITION, "i1", gold) == {"s": "pos", "t": ["life", "love"], "x": 4,
                                                         "w": {"0": 1.0, "1": 1.0, "2": 0.0}, "p": "A"}


def test_the_reference_leaves_out_undecided_questions_and_a_median_between_two_points():
    labels = labels_of(DEFINITION, {"i1": [ANSWER, {"s": "neg", "t": ["work"], "x": 1, "w": [2], "p": "B"}]},
                       {"i1": PAYLOAD})
    gold = declared_gold(DEFINITION, labels)
    # each word selected by one of the two annotators: every word's probability is kept, 0.5
    assert control_reference(DEFINITION, "i1", gold) == {"w": {"0": 0.5, "1": 0.5, "2": 0.5}}


def test_a_span_known_as_every_words_probability_scores_against_the_words_most_annotators_selected():
    # most selected: words 1 and 2 (p > 0.5; word 0 at exactly 0.5 is not); the answer selects 0 and 1: 1 of 3
    known = {"w": {"0": 0.5, "1": 2 / 3, "2": 1.0}}
    assert score(known) == pytest.approx(1 / 3)
    assert score({"w": {"0": 0.0, "1": 0.4, "2": 0.2}}, {**ANSWER, "w": []}) == 1.0   # nothing on both sides


def test_a_span_known_as_every_words_probability_is_said_as_the_words_most_annotators_selected():
    assert show_reference(DEFINITION, PAYLOAD, {"w": {"0": 0.9, "1": 0.5, "2": 0.75}}) == \
        "w one three (selected by most annotators)"
    assert show_reference(DEFINITION, PAYLOAD, {"w": {"0": 0.1}}) == "w no word (selected by most annotators)"


def test_the_reference_is_none_when_nothing_is_decided():
    definition = definition_from_text("name: n\nshow: [text]\nquestions: [{id: s, kind: choice, options: [a, b]}]")
    gold = declared_gold(definition, labels_of(definition, {"i1": [{"s": "a"}, {"s": "b"}]}))
    assert control_reference(definition, "i1", gold) is None and control_reference(definition, "i9", gold) is None


def test_a_reference_scores_one_against_the_answers_that_made_it():
    labels = labels_of(DEFINITION, {"i1": [ANSWER] * 3}, {"i1": PAYLOAD})
    assert score(control_reference(DEFINITION, "i1", declared_gold(DEFINITION, labels))) == 1.0


def test_the_reference_in_words_uses_option_labels_the_words_and_the_fields_label():
    text = show_reference(DEFINITION, PAYLOAD, {"s": "neg", "t": ["love", "work"], "x": 3, "w": [2], "p": "B"})
    assert text == "s Negative; t Love, work; x 3; w three; p Another quote"


def test_the_reference_in_words_names_none_of_a_multi_question_with_its_label():
    assert show_reference(DEFINITION, PAYLOAD, {"t": []}) == "t Nothing"
