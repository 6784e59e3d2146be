"""An extractive question (SQuAD 2.0 style): the definition's keys, the answer's checks and label rows, gold by the
most chosen answer with its ties, agreement by exact match and token F1 against a hand computation, control items
and `when`, on the example's passages (examples/extractive_qa.yaml)."""
from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from annotator.analysis.agreement import field_agreement
from annotator.core.answer_text import exact_match, normalise, token_f1
from annotator.core.hit_values import AnswerError
from annotator.declared.adjudication import adjudicated, undecided
from annotator.declared.answers import check_answer, public_questions
from annotator.declared.definition import NOT_ASKED, UNDECIDED, DefinitionError
from annotator.declared.definition_reader import definition_from_file, definition_from_text
from annotator.declared.gold import (
    agreement_units,
    control_reference,
    control_score,
    declared_gold,
    gold_counts,
    show_reference,
)
from tests.support.declared_labels import labels_of

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
DEFINITION = definition_from_file(EXAMPLES / "extractive_qa.yaml")
PAYLOADS = {json.loads(line)["id"]: json.loads(line)
            for line in (EXAMPLES / "extractive_qa_items.jsonl").read_text(encoding="utf-8").splitlines()}
ADA = PAYLOADS["q1"]      # "In 1843 Ada Lovelace published her notes on the Analytical Engine, a general-purpose ..."
HUBBLE = PAYLOADS["q2"]   # "... by the Space Shuttle Discovery in 1990 and is still working today."


def at(payload: dict, words: str) -> dict[str, int]:
    """The answer marking `words` in the passage (its first occurrence)."""
    start = payload["passage"].index(words)
    return {"start": start, "end": start + len(words)}


def answer(value: dict) -> dict:
    return {"sensible": "yes", "answer_span": value}


UNANSWERABLE = {"unanswerable": True}


# --- the definition ---------------------------------------------------------------------------------------------

def test_the_example_declares_a_passage_an_unanswerable_box_and_majority_gold():
    question = DEFINITION.question("answer_span")
    assert (question.kind, question.of, question.none, question.gold.rule, question.agreement) == \
        ("extractive", "passage", "The passage does not answer the question", "majority", "nominal")
    assert question.when == (("sensible", ("yes",)),)


def test_unanswerable_false_allows_no_unanswerable_answer():
    definition = definition_from_text("name: x\nshow: [passage]\nquestions:\n"
                                      "  - {id: a, kind: extractive, of: passage, unanswerable: false}\n")
    with pytest.raises(AnswerError) as error:
        check_answer(definition, {"passage": "Paris is in France."}, {"a": UNANSWERABLE})
    assert str(error.value) == ("a: this question has no unanswerable answer (its definition says unanswerable: "
                                "false); mark the answer in passage")


@pytest.mark.parametrize("question, path, said", [
    ("{id: a, kind: extractive}", "questions[0].of", "is required"),
    ("{id: a, kind: extractive, of: nowhere}", "questions[0].of", "'nowhere' must be a shown field drawn as text"),
    ("{id: a, kind: extractive, of: passage, unanswerable: 3}", "questions[0].unanswerable",
     "must be true (the default"),
    ("{id: a, kind: extractive, of: passage, unanswerable: '  '}", "questions[0].unanswerable", "must be true"),
    ("{id: a, kind: extractive, of: passage, labels: [PER]}", "questions[0].labels",
     "is a key of scale, spans and relations questions, not of a extractive one"),
    ("{id: a, kind: extractive, of: passage, gold: share}", "questions[0].gold.rule",
     "'share' does not apply to a extractive question; use one of majority"),
    ("{id: a, kind: extractive, of: passage, gold: {rule: majority, ties: unanswerable}}", "questions[0].gold.ties",
     "the majority rule of an extractive question has no 'ties'"),
    ("{id: a, kind: extractive, of: passage, agreement: ordinal}", "questions[0].agreement",
     "ordinal needs ordered answers; a extractive question's are not"),
])
def test_a_bad_extractive_question_is_refused_at_its_key(question, path, said):
    with pytest.raises(DefinitionError) as error:
        definition_from_text(f"name: x\nshow: [passage, {{field: links, as: list}}]\nquestions:\n  - {question}\n")
    assert error.value.path == path
    assert said in error.value.message


def test_an_extractive_question_cannot_decide_whether_another_is_shown():
    with pytest.raises(DefinitionError) as error:
        definition_from_text("name: x\nshow: [passage]\nquestions:\n  - {id: a, kind: extractive, of: passage}\n"
                             "  - {id: why, kind: text, when: {a: unanswerable}}\n")
    assert error.value.path == "questions[1].when.a"


# --- answers ----------------------------------------------------------------------------------------------------

def test_a_stretch_is_stored_with_its_text_and_gives_an_offsets_row_and_a_text_row():
    stored, rows = check_answer(DEFINITION, ADA, answer(at(ADA, "Analytical Engine")))
    assert stored["answer_span"] == {"start": 48, "end": 65, "text": "Analytical Engine"}
    assert [(r.unit, r.field, r.value) for r in rows if r.field != "sensible"] == \
        [("answer_span", "answer_span", "48:65"), ("answer_span", "answer_span.text", "Analytical Engine")]


def test_unanswerable_is_stored_as_such_and_gives_one_row():
    stored, rows = check_answer(DEFINITION, ADA, answer(UNANSWERABLE))
    assert stored["answer_span"] == {"unanswerable": True}
    assert [(r.unit, r.field, r.value) for r in rows if r.field != "sensible"] == \
        [("answer_span", "answer_span", "unanswerable")]


def test_a_client_may_send_the_text_to_check_its_offsets():
    stored, _ = check_answer(DEFINITION, ADA, answer({**at(ADA, "1843"), "text": "1843"}))
    assert stored["answer_span"] == {"start": 3, "end": 7, "text": "1843"}


@pytest.mark.parametrize("sent, said", [
    ({"start": 48, "end": 400}, "answer_span: [48, 400) is out of range: passage has 147 characters (it needs "
                                "0 <= start < end <= 147)"),
    ({"start": -1, "end": 2}, "answer_span: [-1, 2) is out of range"),
    ({"start": 48, "end": 48}, 'answer_span: is empty (start and end are both 48); an answer covers at least one '
                               'character, or is {"unanswerable": true}'),
    ({"start": 65, "end": 48}, "answer_span: start 65 is after end 48"),
    ({"start": 48, "end": 65, "unanswerable": True}, "answer_span: has both a span (start, end) and unanswerable: "
                                                     "true; an answer is one stretch of the passage or unanswerable, "
                                                     "not both"),
    ({"text": "Analytical Engine", "unanswerable": True}, "answer_span: has both a span (text) and unanswerable: true"),
    ({"start": 48}, "answer_span: missing end; the answer is an object"),
    ({}, "answer_span: missing start and end"),
    ({"unanswerable": "yes"}, "answer_span: unanswerable must be true or false, not 'yes'"),
    ({"start": 48.0, "end": 65}, "answer_span: start must be a whole number (a character offset), not '48.0'"),
    ({"start": 49, "end": 65}, "answer_span: start 49 is not at the start of a word of passage (answers cover whole "
                               "words: the nearest word starts are 44, 48)"),
    ({"start": 47, "end": 65}, "answer_span: ' Analytical Engine' starts or ends with white space"),
    ({"start": 48, "end": 65, "text": "Analytical engine"}, "answer_span: \"text\" is 'Analytical engine' but "
                                                            "characters 48 to 65 are 'Analytical Engine'"),
    ({"start": 48, "end": 65, "label": "answer"}, "answer_span: 'label' is not a key of the answer"),
    ([{"start": 48, "end": 65}], 'answer_span: must be an object {"start": int, "end": int}'),
    ("Analytical Engine", 'answer_span: must be an object {"start": int, "end": int}'),
])
def test_a_wrong_answer_is_refused_naming_what_is_wrong(sent, said):
    with pytest.raises(AnswerError) as error:
        check_answer(DEFINITION, ADA, answer(sent))
    assert said in str(error.value)


def test_the_answer_is_asked_only_when_the_question_makes_sense():
    assert check_answer(DEFINITION, ADA, {"sensible": "no"})[0] == {"sensible": "no"}
    with pytest.raises(AnswerError) as error:
        check_answer(DEFINITION, ADA, {"sensible": "no", "answer_span": UNANSWERABLE})
    assert "answer_span: not asked for this answer (it is shown only when sensible is 'yes'); leave it out" in \
        str(error.value)


def test_the_api_describes_the_question_with_the_passage_s_words():
    described = public_questions(DEFINITION, ADA)[1]
    assert (described["of"], described["whole_words"], described["unanswerable"]) == \
        ("passage", True, "The passage does not answer the question")
    assert described["words"][9:11] == [{"start": 48, "end": 58, "text": "Analytical"},
                                        {"start": 59, "end": 65, "text": "Engine"}]


# --- gold -------------------------------------------------------------------------------------------------------

def _gold(votes: dict[str, list]) -> dict[str, tuple]:
    labels = labels_of(DEFINITION, votes, PAYLOADS)
    gold = declared_gold(DEFINITION, labels)
    return {row.item: (row.unit, row.gold, row.n, row.score, row.votes) for row in gold.itertuples()
            if row.question == "answer_span"}


def test_gold_is_the_answer_most_annotators_gave_exactly():
    found = _gold({"q1": [answer(at(ADA, "Analytical Engine")), answer(at(ADA, "Analytical Engine")),
                          answer(at(ADA, "the Analytical Engine"))]})
    unit, gold, n, score, votes = found["q1"]
    assert (unit, gold, n, votes) == ("answer_span", "48:65", 3, "48:65: 2, 44:65: 1")
    assert score == pytest.approx(2 / 3)


def test_unanswerable_wins_as_any_answer_does():
    found = _gold({"q2": [answer(UNANSWERABLE), answer(at(HUBBLE, "1990")), answer(UNANSWERABLE)]})
    assert found["q2"][1:3] == ("unanswerable", 3) and found["q2"][4] == "unanswerable: 2, 84:88: 1"


def test_a_tie_of_the_most_chosen_answers_is_undecided():
    found = _gold({"q2": [answer(UNANSWERABLE), answer(at(HUBBLE, "1990"))],
                   "q1": [answer(at(ADA, "Analytical Engine")), answer(at(ADA, "the Analytical Engine")),
                          answer(at(ADA, "Charles Babbage"))]})
    assert found["q2"][1] == UNDECIDED and found["q2"][3] == pytest.approx(0.5)
    assert found["q1"][1] == UNDECIDED and found["q1"][4] == "44:65: 1, 48:65: 1, 106:121: 1"


def test_gold_is_not_asked_where_the_question_made_no_sense():
    found = _gold({"q1": [{"sensible": "no"}, {"sensible": "no"}, answer(UNANSWERABLE)]})
    assert found["q1"][1:3] == (NOT_ASKED, 1)
    assert math.isnan(found["q1"][3])


def test_the_admin_s_summary_counts_stretches_unanswerable_undecided_and_not_asked():
    labels = labels_of(DEFINITION, {"q1": [answer(at(ADA, "Analytical Engine"))] * 2,
                                    "q2": [answer(UNANSWERABLE)],
                                    "q3": [answer(UNANSWERABLE), answer(at(PAYLOADS["q3"], "1874"))],
                                    "q4": [{"sensible": "no"}]}, PAYLOADS)
    counts = gold_counts(DEFINITION, declared_gold(DEFINITION, labels))
    assert {k: v for k, v in counts.items() if k.startswith("answer_span")} == \
        {"answer_span: a stretch of passage": 1, "answer_span: unanswerable": 1, "answer_span: undecided": 1,
         "answer_span: n/a": 1}


# --- agreement --------------------------------------------------------------------------------------------------

def test_squad_normalisation_drops_case_punctuation_articles_and_extra_spaces():
    assert normalise("The  Analytical Engine, a general-purpose computer.") == \
        "analytical engine generalpurpose computer"
    assert normalise("An apple") == "apple" and normalise("theatre") == "theatre"


def test_exact_match_and_token_f1_of_two_answers_by_hand():
    # [analytical, engine] against [analytical, engine, generalpurpose, computer]: 2 shared, P 1, R 1/2, F1 2/3.
    assert token_f1("the Analytical Engine", "Analytical Engine, a general-purpose computer") == pytest.approx(2 / 3)
    assert exact_match("the Analytical Engine", "Analytical engine") == 1.0
    # Bags: [a b a] against [a a c]: 2 shared (a twice), P 2/3, R 2/3, F1 2/3 (articles aside, "x" stands for a word).
    assert token_f1("x y x", "x x z") == pytest.approx(2 / 3)
    assert (token_f1(None, None), exact_match(None, None)) == (1.0, 1.0)
    assert (token_f1("1990", None), exact_match("1990", None)) == (0.0, 0.0)
    assert (token_f1("The", None), exact_match("The", None)) == (1.0, 1.0)   # SQuAD's: "the" normalises to nothing


# Item q1, three annotators: "the Analytical Engine", "Analytical Engine", "the Analytical Engine, a general-purpose
# computer". Pairs: (1, 2) EM 1 F1 1; (1, 3) and (2, 3) EM 0, F1 2/3. Item: EM 1/3, F1 (1 + 2/3 + 2/3) / 3 = 7/9.
# Item q2, two annotators: "1990" and unanswerable: EM 0, F1 0. Item q3, three annotators, all unanswerable: 1 and 1.
# Item q4, one annotator: nothing to compare, left out. Campaign: the mean of the three items' means,
# EM (1/3 + 0 + 1) / 3 = 4/9, F1 (7/9 + 0 + 1) / 3 = 16/27, over 3 + 1 + 3 = 7 pairs. (The mean over the 7 pairs
# pooled would be EM 4/7: the items weigh the same instead.)
AGREEMENT_VOTES = {
    "q1": [answer(at(ADA, "the Analytical Engine")), answer(at(ADA, "Analytical Engine")),
           answer(at(ADA, "the Analytical Engine, a general-purpose computer"))],
    "q2": [answer(at(HUBBLE, "1990")), answer(UNANSWERABLE)],
    "q3": [answer(UNANSWERABLE)] * 3,
    "q4": [answer(at(PAYLOADS["q4"], "Douro"))],
}


def test_exact_match_and_f1_between_annotators_are_pairwise_means_averaged_over_items():
    frame = agreement_units(DEFINITION, labels_of(DEFINITION, AGREEMENT_VOTES, PAYLOADS))["answer_span"]
    figures = field_agreement("answer_span", frame).answer_match
    assert figures is not None
    assert figures.exact_match == pytest.approx(4 / 9)
    assert figures.f1 == pytest.approx(16 / 27)
    assert (figures.items, figures.pairs) == (3, 7)


def test_alpha_and_kappa_compare_the_exact_answers_as_categories():
    frame = agreement_units(DEFINITION, labels_of(DEFINITION, AGREEMENT_VOTES, PAYLOADS))["answer_span"]
    assert sorted(frame[frame["unit"] == "q1 / answer_span"]["value"]) == ["44:65", "44:93", "48:65"]
    assert list(frame[frame["unit"] == "q2 / answer_span"]["answer_text"]) == ["1990", None]


def test_the_figures_are_undefined_while_no_item_has_two_annotators():
    frame = agreement_units(DEFINITION, labels_of(DEFINITION, {"q4": AGREEMENT_VOTES["q4"]}, PAYLOADS))["answer_span"]
    figures = field_agreement("answer_span", frame).answer_match
    assert figures is not None and figures.exact_match is None
    assert figures.text() == "undefined: no item was answered by two or more annotators"


# --- control items ----------------------------------------------------------------------------------------------

def test_a_control_answer_scores_its_token_f1_against_the_known_answer():
    known = {"sensible": "yes", "answer_span": at(ADA, "Charles Babbage")}
    assert control_score(DEFINITION, ADA, answer(at(ADA, "Charles Babbage")), known) == 1.0
    # sensible right (1), answer "Charles" against "Charles Babbage": P 1, R 1/2, F1 2/3; the mean of the two.
    assert control_score(DEFINITION, ADA, answer(at(ADA, "Charles")), known) == pytest.approx((1 + 2 / 3) / 2)
    assert control_score(DEFINITION, ADA, answer(UNANSWERABLE), known) == pytest.approx(0.5)


def test_an_unanswerable_control_is_right_only_when_answered_unanswerable():
    known = {"answer_span": UNANSWERABLE}
    assert control_score(DEFINITION, HUBBLE, answer(UNANSWERABLE), known) == 1.0
    assert control_score(DEFINITION, HUBBLE, answer(at(HUBBLE, "1990")), known) == 0.0


def test_decided_gold_is_a_known_answer_and_reads_in_words():
    labels = labels_of(DEFINITION, {"q1": [answer(at(ADA, "Analytical Engine"))] * 2,
                                    "q2": [answer(UNANSWERABLE), answer(at(HUBBLE, "1990"))]}, PAYLOADS)
    gold = declared_gold(DEFINITION, labels)
    known = control_reference(DEFINITION, "q1", gold, ADA)
    assert known == {"sensible": "yes", "answer_span": {"start": 48, "end": 65}}
    assert control_reference(DEFINITION, "q2", gold, HUBBLE) == {"sensible": "yes"}   # the answer: a tie
    assert show_reference(DEFINITION, ADA, known) == ("Does the question make sense for this passage? Yes; Mark the "
                                                      "answer in the passage. “Analytical Engine” (characters 48 to "
                                                      "65)")
    assert show_reference(DEFINITION, HUBBLE, {"answer_span": UNANSWERABLE}) == \
        "Mark the answer in the passage. unanswerable (The passage does not answer the question)"


def test_an_admin_s_decision_of_a_tie_is_the_item_s_gold():
    labels = labels_of(DEFINITION, {"q2": [answer(UNANSWERABLE), answer(at(HUBBLE, "1990"))]}, PAYLOADS)
    gold = declared_gold(DEFINITION, labels)
    assert undecided(gold) == ["q2"]
    decision = labels_of(DEFINITION, {"q2": [answer(at(HUBBLE, "1990"))]}, PAYLOADS)
    decided = adjudicated(DEFINITION, gold, decision[["item", "unit", "field", "value"]])
    rows = {r.question: (r.unit, r.gold, r.votes) for r in decided.itertuples()}
    assert rows["answer_span"] == ("answer_span", "84:88", "adjudicated")
