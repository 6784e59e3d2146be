"""`control_score:` of a definition (declared/control_scoring.py): which questions a control item scores, and a
question hidden by its `when` counted as its agreement's not-asked value, in the answer and in the known answer.

On the review-aspects example (examples/review_aspects.yaml: per aspect, mentioned yes / no, then the sentiment
when mentioned, `not_asked: not_mentioned`); expected scores worked out by hand in each test.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from annotator.declared.controls import control_score
from annotator.declared.definition import DefinitionError
from annotator.declared.definition_reader import definition_from_text

TEXT = (Path(__file__).resolve().parents[2] / "examples" / "review_aspects.yaml").read_text(encoding="utf-8")
ITEM = {"id": "r1", "text": "Cheap, but it came broken."}


def define(control: str = "") -> object:
    return definition_from_text(TEXT + (f"\ncontrol_score: {control}\n" if control else ""))


def answer(price: str | None, delivery: str | None, quality: str | None) -> dict[str, dict[str, dict[str, str]]]:
    """Per aspect its sentiment, or None where the aspect is not mentioned."""
    return {"aspects": {aspect: {"mentioned": "yes", "sentiment": said} if said else {"mentioned": "no"}
                        for aspect, said in (("price", price), ("delivery", delivery), ("quality", quality))}}


KNOWN = answer("positive", None, "negative")
GIVEN = answer("positive", "positive", None)


def test_by_default_every_known_question_scores_and_a_hidden_one_is_left_out_of_the_known_answer():
    # known: three "mentioned" and two sentiments (price, quality). price mentioned and positive: 2 right;
    # delivery said mentioned: wrong; quality said not mentioned: wrong, and its known sentiment unanswered: 0
    assert control_score(define(), ITEM, GIVEN, KNOWN) == pytest.approx(2 / 5)


def test_the_sentiments_alone_with_not_mentioned_a_value_score_as_labels():
    # price positive = positive; delivery positive against not_mentioned; quality not_mentioned against negative
    scoring = define("{questions: [sentiment], not_asked: true}")
    assert control_score(scoring, ITEM, GIVEN, KNOWN) == pytest.approx(1 / 3)
    # an aspect both leave unmentioned counts as a right label (not_mentioned twice): price, delivery right
    assert control_score(scoring, ITEM, answer("positive", None, "mixed"), KNOWN) == pytest.approx(2 / 3)


def test_listed_questions_without_not_asked_leave_a_hidden_one_out():
    # only the sentiments known (price, quality): price right, quality unanswered (hidden) 0
    assert control_score(define("{questions: [sentiment]}"), ITEM, GIVEN, KNOWN) == pytest.approx(1 / 2)


@pytest.mark.parametrize(("control", "path", "said"), [
    ("[sentiment]", "control_score", "must be a mapping {questions: [ids], not_asked: true}"),
    ("{questions: [sentiment], weight: 2}", "control_score.weight", "unknown key; known here: questions, not_asked"),
    ("{questions: [feeling]}", "control_score.questions[0]",
     "'feeling' is not a question of the definition (questions: mentioned, sentiment)"),
    ("{questions: []}", "control_score.questions", "must list question ids"),
    ("{not_asked: yes please}", "control_score.not_asked", "must be true or false"),
])
def test_a_wrong_control_score_is_refused_at_its_key(control, path, said):
    with pytest.raises(DefinitionError) as caught:
        define(control)
    assert (caught.value.path, caught.value.message) == (path, said)


def test_not_asked_needs_the_hidden_questions_agreement_value():
    text = TEXT.replace("agreement: {level: nominal, not_asked: not_mentioned, per_element: true}",
                        "agreement: nominal")
    with pytest.raises(DefinitionError) as caught:
        definition_from_text(text + "\ncontrol_score: {not_asked: true}\n")
    assert caught.value.path == "control_score.not_asked"
    assert caught.value.message == ("'sentiment' has a `when` but no agreement.not_asked value to count where it is "
                                    "hidden")
