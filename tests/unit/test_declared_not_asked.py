"""Agreement that counts "not asked" as a value (`agreement: {not_asked: <value>}`) and a group question's figure per
element (`per_element: true`), annotator/declared/unasked.py: the definition's checks with their key paths, the
agreement rows each vote adds or not, the figures against hand counts, gold left as it was, and the gold units.
"""
from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from annotator.analysis.agreement import field_agreement
from annotator.declared.definition import NOT_ASKED, DefinitionError
from annotator.declared.definition_reader import definition_from_file, definition_from_text
from annotator.declared.gold import agreement_units, declared_gold, gold_units
from annotator.declared.unasked import card_words
from annotator.declared.words import value_words
from tests.support.declared_labels import labels_of

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "review_aspects.yaml"
ASPECTS = definition_from_file(EXAMPLE)   # mentioned yes / no, then sentiment when mentioned, per aspect


def define(questions: str) -> object:
    return definition_from_text(f"name: test\nshow: [text]\nquestions:\n{questions}")


def refused(questions: str) -> DefinitionError:
    with pytest.raises(DefinitionError) as caught:
        define(questions)
    return caught.value


SARCASM = ('  - {id: sarcastic, kind: choice, options: ["yes", "no"]}\n'
           '  - id: target\n'
           '    kind: choice\n'
           '    options: [speaker, listener, other]\n'
           '    required: false\n'
           '    when: {sarcastic: "yes"}\n'
           '    agreement: {level: nominal, not_asked: not sarcastic}\n')


def aspects(*answers: dict[str, str | None]) -> dict[str, dict[str, str]]:
    """An answer to the example: per aspect its sentiment, or None where the aspect is not mentioned."""
    return {"aspects": {aspect: {"mentioned": "yes", "sentiment": given} if given else {"mentioned": "no"}
                        for aspect, given in zip(("price", "delivery", "quality"), answers)}}


# --- the definition ----------------------------------------------------------------------------------------------

def test_the_example_counts_not_mentioned_and_has_a_figure_per_aspect():
    sentiment = ASPECTS.question("sentiment")
    assert sentiment.not_asked == "not_mentioned" and sentiment.per_element
    assert ASPECTS.question("mentioned").not_asked is None


def test_not_asked_on_a_question_without_when_is_refused():
    error = refused('  - {id: sarcastic, kind: choice, options: ["yes", "no"]}\n'
                    '  - {id: target, kind: choice, options: [a, b], agreement: {not_asked: not sarcastic}}\n')
    assert error.path == "questions[1].agreement.not_asked"
    assert "this question has no `when`, so everyone is asked it" in error.message


@pytest.mark.parametrize("value, message", [
    ('speaker', "'speaker' is an answer of target (speaker, listener, other); the not-asked value is a value of "
                "its own"),
    ('undecided', "'undecided' is what gold says when it is not decided"),
    ('" "', "must not be blank"),
    ('true', "must be the name of a value (text, e.g. irrelevant), not true (true/false)"),
])
def test_a_not_asked_value_that_cannot_be_told_apart_is_refused(value, message):
    error = refused(SARCASM.replace("not_asked: not sarcastic", f"not_asked: {value}"))
    assert error.path == "questions[1].agreement.not_asked" and message in error.message
    assert error.line == 10   # the agreement's line


@pytest.mark.parametrize("question, message", [
    ('{id: q, kind: multi, options: [a, b], when: {sarcastic: "yes"}, agreement: {not_asked: n}}',
     "choice and scale questions"),
    ('{id: q, kind: scale, when: {sarcastic: "yes"}, agreement: {level: interval, not_asked: n}}',
     "nominal agreement only"),
    ('{id: q, kind: choice, options: [low, high], when: {sarcastic: "yes"}, agreement: {level: ordinal, '
     'not_asked: n}}', "nominal agreement only"),
])
def test_not_asked_is_for_nominal_questions_of_one_answer(question, message):
    error = refused('  - {id: sarcastic, kind: choice, options: ["yes", "no"]}\n'
                    f'  - {question}\n')
    assert error.path == "questions[1].agreement.not_asked" and message in error.message


def test_not_asked_below_a_pairwise_question_names_why():
    with pytest.raises(DefinitionError) as caught:
        definition_from_text("name: test\nshow: [text, other]\nquestions:\n"
                             "  - {id: better, kind: pairwise, a: text, b: other}\n"
                             "  - {id: why, kind: choice, options: [style, facts], when: {better: A}, "
                             "agreement: {not_asked: none}}\n")
    assert caught.value.path == "questions[1].agreement.not_asked"
    assert "depends on the pairwise question 'better'" in caught.value.message


def test_per_element_outside_a_group_is_refused():
    error = refused('  - {id: q, kind: choice, options: [a, b], agreement: {per_element: true}}\n')
    assert error.path == "questions[0].agreement.per_element"
    assert "gives one figure per element of a repeat group" in error.message


def test_per_element_must_be_true_or_false():
    text = EXAMPLE.read_text(encoding="utf-8").replace("per_element: true", "per_element: per claim")
    with pytest.raises(DefinitionError) as caught:
        definition_from_text(text)
    assert caught.value.path == "questions[0].questions[1].agreement.per_element"
    assert "must be true or false" in caught.value.message


def test_an_unknown_agreement_key_names_the_new_ones():
    error = refused(SARCASM.replace("not_asked:", "not_askd:"))
    assert error.path == "questions[1].agreement.not_askd" and "did you mean 'not_asked'?" in error.message


# --- agreement rows ----------------------------------------------------------------------------------------------

def test_a_vote_whose_answer_hid_the_question_adds_a_row_of_the_not_asked_value():
    definition = define(SARCASM)
    labels = labels_of(definition, {"i1": [{"sarcastic": "yes", "target": "speaker"}, {"sarcastic": "no"}]})
    target = agreement_units(definition, labels)["target"]
    assert list(zip(target["unit"], target["coder"], target["value"])) == [
        ("i1 / target", 1, "speaker"), ("i1 / target", 2, "not sarcastic")]


def test_a_vote_shown_the_question_that_left_it_out_adds_nothing():
    definition = define(SARCASM)
    labels = labels_of(definition, {"i1": [{"sarcastic": "yes"}, {"sarcastic": "no"}]})
    target = agreement_units(definition, labels)["target"]
    assert list(zip(target["coder"], target["value"])) == [(2, "not sarcastic")]


def test_the_added_rows_are_agreements_only_the_label_rows_and_gold_are_unchanged():
    without = define(SARCASM.replace(", not_asked: not sarcastic", ""))
    definition = define(SARCASM)
    votes = {"i1": [{"sarcastic": "no"}, {"sarcastic": "no"}, {"sarcastic": "yes", "target": "other"}],
             "i2": [{"sarcastic": "yes", "target": "speaker"}] * 2 + [{"sarcastic": "no"}]}
    labels = labels_of(definition, votes)
    assert labels.equals(labels_of(without, votes))
    assert declared_gold(definition, labels).equals(declared_gold(without, labels))
    assert set(declared_gold(definition, labels)["gold"]) == {"no", "yes", NOT_ASKED, "speaker"}


def test_each_element_of_a_group_is_asked_or_not_on_its_own():
    labels = labels_of(ASPECTS, {"r1": [aspects("positive", None, "negative"), aspects(None, None, "negative")]})
    sentiment = agreement_units(ASPECTS, labels)["sentiment"]
    assert sorted(zip(sentiment["unit"], sentiment["coder"], sentiment["value"])) == [
        ("r1 / delivery", 1, "not_mentioned"), ("r1 / delivery", 2, "not_mentioned"),
        ("r1 / price", 1, "positive"), ("r1 / price", 2, "not_mentioned"),
        ("r1 / quality", 1, "negative"), ("r1 / quality", 2, "negative")]


def test_an_added_row_keeps_the_index_of_a_label_row_of_its_own_vote():
    """The per-item agreement reads each frame row's item through the label rows' index."""
    labels = labels_of(ASPECTS, {"r1": [aspects(None, None, None)], "r2": [aspects(None, "mixed", None)]})
    sentiment = agreement_units(ASPECTS, labels)["sentiment"]
    assert sentiment.index.is_unique
    assert list(labels.loc[sentiment.index, "item"]) == ["r1", "r1", "r1", "r2", "r2", "r2"]


def test_a_question_below_a_multi_question_is_not_asked_where_the_option_was_not_ticked():
    definition = define('  - {id: topics, kind: multi, options: [sport, politics], required: false}\n'
                        '  - {id: tone, kind: choice, options: [calm, angry], when: {topics: politics}, '
                        'agreement: {not_asked: no politics}}\n')
    labels = labels_of(definition, {"i1": [{"topics": ["politics"], "tone": "calm"}, {"topics": ["sport"]},
                                           {"topics": []}]})
    tone = agreement_units(definition, labels)["tone"]
    assert list(zip(tone["coder"], tone["value"])) == [(1, "calm"), (2, "no politics"), (3, "no politics")]


def test_a_question_below_one_that_was_not_asked_is_not_asked_either():
    definition = define(SARCASM + '  - {id: how, kind: choice, options: [mild, biting], when: {target: speaker}, '
                                  'agreement: {not_asked: not asked}}\n')
    labels = labels_of(definition, {"i1": [{"sarcastic": "no"}, {"sarcastic": "yes", "target": "other"},
                                           {"sarcastic": "yes", "target": "speaker", "how": "mild"}]})
    how = agreement_units(definition, labels)["how"]
    assert list(zip(how["coder"], how["value"])) == [(1, "not asked"), (2, "not asked"), (3, "mild")]


# --- figures -----------------------------------------------------------------------------------------------------

VOTES = {"r1": [aspects("positive", None, "negative"), aspects("positive", None, "mixed"),
                aspects(None, None, "negative")],
         "r2": [aspects(None, "negative", "positive"), aspects(None, "negative", "positive"),
                aspects(None, None, "positive")]}


def test_each_element_has_a_figure_named_question_slash_element_after_the_questions_own():
    fields = agreement_units(ASPECTS, labels_of(ASPECTS, VOTES))
    assert list(fields) == ["mentioned", "sentiment", "sentiment / price", "sentiment / delivery",
                            "sentiment / quality"]
    assert set(fields["sentiment / price"]["unit"]) == {"r1 / price", "r2 / price"}


def test_an_elements_figure_is_the_agreement_of_its_answers_not_mentioned_included():
    found = field_agreement("price", agreement_units(ASPECTS, labels_of(ASPECTS, VOTES))["sentiment / price"])
    hand = pd.DataFrame({"unit": ["r1"] * 3 + ["r2"] * 3, "coder": [1, 2, 3] * 2,
                         "value": ["positive", "positive", "not_mentioned"] + ["not_mentioned"] * 3})
    expected = field_agreement("hand", hand)
    assert found.units == expected.units == 2
    assert found.krippendorff_alpha.value == pytest.approx(expected.krippendorff_alpha.value)
    assert found.fleiss_kappa.value == pytest.approx(expected.fleiss_kappa.value)


def test_the_gold_units_read_n_a_as_the_not_asked_value():
    gold = declared_gold(ASPECTS, labels_of(ASPECTS, VOTES))
    units = gold_units(ASPECTS, gold)
    assert dict(units["sentiment / price"]) == {"r1 / price": "positive", "r2 / price": "not_mentioned"}
    assert dict(units["sentiment / delivery"]) == {"r1 / delivery": "not_mentioned", "r2 / delivery": "negative"}
    assert units["sentiment"]["r1 / delivery"] == "not_mentioned"


def test_the_data_card_and_the_admins_words_say_it():
    assert card_words(ASPECTS.question("sentiment")) == (
        "an annotator not asked it (its `when` not met) counts as answering 'not_mentioned'; one figure per "
        "element as well (sentiment / <element id>)")
    assert value_words(ASPECTS, "sentiment / price", "not_mentioned") == "not_mentioned"
    assert value_words(ASPECTS, "sentiment / price", NOT_ASKED) == "Not asked"
