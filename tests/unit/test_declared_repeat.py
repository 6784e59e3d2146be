"""Questions repeated per element (`repeat` groups, annotator/declared/repeat.py): the definition's checks, the
answer check and its label rows, gold per element against counts made by hand, agreement pooled over elements,
control items per element, and an items file's list of elements."""
from __future__ import annotations

import json
import math
import random
import textwrap
from pathlib import Path

import krippendorff
import numpy as np
import pandas as pd
import pytest

from annotator.analysis.agreement import field_agreement
from annotator.core.errors import FormatError
from annotator.declared.answers import check_answer, example_answer
from annotator.declared.controls import control_reference, control_score, show_reference
from annotator.declared.definition import NOT_ASKED, UNDECIDED, DefinitionError
from annotator.declared.definition_reader import definition_from_text
from annotator.declared.gold import agreement_units, declared_gold, gold_counts, gold_units
from annotator.declared.items import known_columns, read_items
from annotator.declared.repeat import in_canonical_order
from annotator.declared.words import unit_words
from annotator.estimation.dawid_skene import dawid_skene
from annotator.tasks.base import AnswerError, LabelIn
from tests.support.declared_labels import labels_of

CLAIMS = """\
name: claims
show: [text]
questions:
  - repeat: claims
    label: Claim
    elements:
      - {id: masks, text: Wearing masks is beneficial.}
      - {id: vaccines, text: Vaccination is beneficial.}
    questions:
      - {id: relevance, kind: choice, options: [relevant, irrelevant],
         gold: {rule: agree, m: 2, value: relevant, otherwise: irrelevant}}
      - {id: stance, kind: choice, options: ["for", against, other], when: {relevance: relevant},
         gold: {rule: agree, m: 2}}
  - {id: clear, kind: scale, min: 1, max: 3, gold: median}
"""
TURNS = """\
name: turns
show: [request]
questions:
  - repeat: turns
    elements_from: turns
    questions:
      - {id: helpful, kind: scale, min: 1, max: 5, gold: median, agreement: ordinal}
      - {id: note, kind: text, required: false}
"""


def define(text: str):  # type: ignore[no-untyped-def]
    return definition_from_text(textwrap.dedent(text))


def refused(text: str) -> DefinitionError:
    with pytest.raises(DefinitionError) as caught:
        definition_from_text(textwrap.dedent(text))
    return caught.value


def claims(masks: dict, vaccines: dict, clear: int = 2) -> dict:
    return {"claims": {"masks": masks, "vaccines": vaccines}, "clear": clear}


REL, IRR = {"relevance": "relevant"}, {"relevance": "irrelevant"}


# --- the definition --------------------------------------------------------------------------------------

def test_a_group_marks_its_questions_and_keeps_its_elements_in_order():
    definition = define(CLAIMS)
    [group] = definition.repeats
    assert group.id == "claims" and group.label == "Claim" and group.questions == ("relevance", "stance")
    assert [(e.id, e.text) for e in group.elements] == [("masks", "Wearing masks is beneficial."),
                                                        ("vaccines", "Vaccination is beneficial.")]
    assert [(q.id, q.group) for q in definition.questions] == [("relevance", "claims"), ("stance", "claims"),
                                                               ("clear", None)]


def test_an_element_field_is_an_item_field():
    assert define(TURNS).item_fields() == ["request", "turns"]


def test_an_element_id_given_twice_is_refused_with_both_positions():
    error = refused(CLAIMS.replace("{id: vaccines,", "{id: masks,"))
    assert error.path == "questions[0].elements[1].id" and error.line == 8
    assert "'masks' is also the id of element 1 (questions[0].elements[0])" in error.message


def test_a_group_gives_its_elements_or_the_field_holding_them_not_both():
    error = refused(TURNS.replace("elements_from: turns", "elements_from: turns\n    elements: [{id: a, text: b}]"))
    assert error.path == "questions[0]" and "one of the three" in error.message
    assert refused(TURNS.replace("    elements_from: turns\n", "")).path == "questions[0]"


def test_a_group_asks_choice_scale_and_text_questions_only():
    error = refused(TURNS.replace("kind: text", "kind: multi, options: [a, b]"))
    assert error.path == "questions[0].questions[1].kind" and error.line == 8
    assert "cannot be repeated per element" in error.message


def test_a_groups_when_names_an_earlier_question_of_the_same_group():
    error = refused(CLAIMS.replace("when: {relevance: relevant}", "when: {clear: 1}"))
    assert error.path == "questions[0].questions[1].when.clear" and "not an earlier question" in error.message


def test_a_question_outside_the_group_cannot_depend_on_one_inside():
    error = refused(CLAIMS.replace("gold: median}", "gold: median, when: {relevance: relevant}}"))
    assert error.path == "questions[1].when.relevance" and error.line == 14
    assert "asked once per element of group 'claims'" in error.message


@pytest.mark.parametrize("change, path", [
    (("id: clear", "id: claims"), "questions[1].id"),
    (("id: stance", "id: claims"), "questions[0].questions[1].id"),
])
def test_group_and_question_ids_differ_across_the_definition(change, path):
    error = refused(CLAIMS.replace(*change))
    assert error.path == path and "ids must differ" in error.message


def test_the_elements_field_cannot_be_a_shown_field():
    error = refused(TURNS.replace("show: [request]", "show: [request, turns]"))
    assert error.path == "questions[0].elements_from" and "shown field" in error.message


def test_a_group_cannot_hold_a_group():
    error = refused(TURNS.replace("      - {id: note", "      - {repeat: inner, elements_from: x, questions: []}\n"
                                                   "      - {id: note"))
    assert error.path == "questions[0].questions[1].repeat"


# --- answers and label rows -------------------------------------------------------------------------------

def test_label_rows_have_the_element_as_unit_and_the_question_as_field():
    stored, labels = check_answer(define(CLAIMS), {}, claims({**REL, "stance": "for"}, IRR))
    assert stored == {"claims": {"masks": {"relevance": "relevant", "stance": "for"},
                                 "vaccines": {"relevance": "irrelevant"}}, "clear": 2}
    assert labels == [LabelIn("masks", "relevance", "relevant"), LabelIn("masks", "stance", "for"),
                      LabelIn("vaccines", "relevance", "irrelevant"), LabelIn("clear", "clear", "2")]


def test_when_is_met_per_element():
    with pytest.raises(AnswerError, match=r"^claims: masks: stance: an answer is required"):
        check_answer(define(CLAIMS), {}, claims(REL, {**REL, "stance": "for"}))


def test_the_elements_come_from_the_item_and_a_bare_text_list_is_numbered():
    payload = {"request": "r", "turns": ["Check the spam folder.", "Or use the phone."]}
    stored, labels = check_answer(define(TURNS), payload, {"turns": {"1": {"helpful": 4}, "2": {"helpful": 2,
                                                                                                "note": " vague "}}})
    assert stored == {"turns": {"1": {"helpful": 4}, "2": {"helpful": 2, "note": "vague"}}}
    assert [(row.unit, row.field) for row in labels] == [("1", "helpful"), ("2", "helpful"), ("2", "note")]


def test_an_example_answer_answers_every_element_and_passes_the_check():
    definition = define(CLAIMS)
    answer = example_answer(definition, {}, random.Random(3))
    assert set(answer["claims"]) == {"masks", "vaccines"}
    check_answer(definition, {}, answer)


# --- gold per element ----------------------------------------------------------------------------------------

VOTES = {"s1": [claims({**REL, "stance": "for"}, IRR, 1),
                claims({**REL, "stance": "for"}, {**REL, "stance": "against"}, 2),
                claims(IRR, {**REL, "stance": "other"}, 3)],
         "s2": [claims(IRR, IRR), claims(IRR, IRR), claims({**REL, "stance": "against"}, IRR)]}


def test_gold_is_one_row_per_item_question_and_element_by_the_questions_rule():
    """By hand: s1 masks relevant 2 of 3 (m 2): relevant, stance "for" 2 of 2; s1 vaccines relevant 2 of 3, stance
    against 1 and other 1: none reaches m, undecided; s2: both irrelevant, so their stance was not asked (n/a),
    masks' from the one vote, vaccines' with no vote at all (its element is declared)."""
    gold = declared_gold(define(CLAIMS), labels_of(CLAIMS, VOTES))
    found = {(row.item, row.question, row.unit): (row.gold, row.n) for row in gold.itertuples()}
    assert found == {("s1", "relevance", "masks"): ("relevant", 3), ("s1", "relevance", "vaccines"): ("relevant", 3),
                     ("s1", "stance", "masks"): ("for", 2), ("s1", "stance", "vaccines"): (UNDECIDED, 2),
                     ("s1", "clear", "clear"): ("2", 3),
                     ("s2", "relevance", "masks"): ("irrelevant", 3),
                     ("s2", "relevance", "vaccines"): ("irrelevant", 3),
                     ("s2", "stance", "masks"): (NOT_ASKED, 1), ("s2", "stance", "vaccines"): (NOT_ASKED, 0),
                     ("s2", "clear", "clear"): ("2", 3)}


def test_the_summary_counts_gold_over_elements():
    counts = gold_counts(define(CLAIMS), declared_gold(define(CLAIMS), labels_of(CLAIMS, VOTES)))
    assert counts["relevance: relevant"] == 2 and counts["relevance: irrelevant"] == 2
    assert counts["stance: for"] == 1 and counts["stance: undecided"] == 1 and counts["stance: n/a"] == 2


def test_a_gold_units_words_are_the_elements_id_and_text():
    payload = {"turns": [{"id": "t1", "text": "Check the spam folder."}]}
    assert unit_words(define(TURNS), payload, {"question": "helpful", "unit": "t1"}) == "t1: Check the spam folder."


def test_gold_of_an_items_elements_follows_each_items_own_list():
    payloads = {"d1": {"turns": [{"id": "a", "text": "x"}, {"id": "b", "text": "y"}]},
                "d2": {"turns": [{"id": "c", "text": "z"}]}}
    votes = {"d1": [{"turns": {"a": {"helpful": 5}, "b": {"helpful": 1}}},
                    {"turns": {"a": {"helpful": 4}, "b": {"helpful": 2}}}],
             "d2": [{"turns": {"c": {"helpful": 3}}}, {"turns": {"c": {"helpful": 3}}}]}
    gold = declared_gold(define(TURNS), labels_of(TURNS, votes, payloads))
    assert [(r.item, r.unit, r.gold) for r in gold.itertuples()] == [("d1", "a", "4.5"), ("d1", "b", "1.5"),
                                                                     ("d2", "c", "3")]


# --- agreement ------------------------------------------------------------------------------------------------

def test_agreement_pools_a_question_over_elements_as_over_items():
    labels = labels_of(CLAIMS, VOTES)
    fields = agreement_units(define(CLAIMS), labels)
    relevance = fields["relevance"]
    assert list(dict.fromkeys(relevance["unit"])) == ["s1 / masks", "s1 / vaccines", "s2 / masks", "s2 / vaccines"]
    codes = {"relevant": 0, "irrelevant": 1}
    table = [[codes[answer["claims"][claim]["relevance"]] for item in VOTES for claim in ("masks", "vaccines")
              for answer in [VOTES[item][coder]]] for coder in range(3)]
    result = field_agreement("relevance", relevance)
    assert result.krippendorff_alpha.value == pytest.approx(
        krippendorff.alpha(reliability_data=np.array(table, dtype=float), level_of_measurement="nominal"))


def test_gold_units_name_the_item_and_element_as_agreement_does():
    definition = define(CLAIMS)
    units = gold_units(definition, declared_gold(definition, labels_of(CLAIMS, VOTES)))
    assert dict(units["stance"]) == {"s1 / masks": "for"}   # undecided and n/a left out


# --- control items -------------------------------------------------------------------------------------------

def test_a_known_answer_is_scored_per_element_and_question():
    definition = define(CLAIMS)
    reference = {"claims": {"masks": {"relevance": "relevant", "stance": "for"}, "vaccines": {"relevance":
                                                                                              "irrelevant"}}}
    answer = claims({**REL, "stance": "against"}, IRR)
    assert control_score(definition, {}, answer, reference) == pytest.approx(2 / 3)   # relevance x2 right, stance not
    assert control_score(definition, {}, claims(IRR, IRR), reference) == pytest.approx(1 / 3)  # stance not answered: 0


def test_the_reference_drawn_from_gold_is_per_element_and_leaves_undecided_out():
    definition = define(CLAIMS)
    gold = declared_gold(definition, labels_of(CLAIMS, VOTES))
    assert control_reference(definition, "s1", gold) == {
        "claims": {"masks": {"relevance": "relevant", "stance": "for"}, "vaccines": {"relevance": "relevant"}},
        "clear": 2}


def test_a_known_answer_is_shown_in_words_per_element():
    definition = define(CLAIMS)
    said = show_reference(definition, {}, {"claims": {"vaccines": {"relevance": "irrelevant"}}})
    assert said == "vaccines: relevance irrelevant"


# --- an items file's elements -----------------------------------------------------------------------------------

def _items(tmp_path: Path, lines: list[dict]) -> Path:
    path = tmp_path / "items.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def test_an_items_file_gives_each_item_its_elements(tmp_path):
    path = _items(tmp_path, [{"id": "d1", "request": "r", "turns": [{"id": "t1", "text": "a"}]},
                             {"id": "d2", "request": "r", "turns": ["a", "b"]}])
    assert [item.payload["turns"] for item in read_items(path, define(TURNS))] == [[{"id": "t1", "text": "a"}],
                                                                                    ["a", "b"]]


@pytest.mark.parametrize("turns, message", [
    ([{"id": "t1", "text": "a"}, {"id": "t1", "text": "b"}], "the element id 't1' is given twice (elements 1 and 2)"),
    ([], "must be a list of at least one element"),
    ([{"id": "t1", "text": " "}], "element 1 has no text"),
    ([{"id": "t1"}], 'element 1 must be {"id": text, "text": text}'),
])
def test_an_items_file_with_a_wrong_list_of_elements_is_refused_with_line_and_field(tmp_path, turns, message):
    path = _items(tmp_path, [{"id": "d1", "request": "r", "turns": ["a"]}, {"id": "d2", "request": "r",
                                                                            "turns": turns}])
    with pytest.raises(FormatError) as caught:
        read_items(path, define(TURNS))
    assert caught.value.line == 2 and caught.value.column == '"turns"' and message in str(caught.value)


def test_a_control_items_known_answer_of_a_group_is_per_element(tmp_path):
    definition = define(CLAIMS)
    assert known_columns(definition) == ["id", "text", "known.claims", "known.clear", "reference.claims",
                                         "reference.clear"]
    path = tmp_path / "items.csv"
    path.write_text('id,text,known.claims\n1,Masks help.,"{""masks"": {""relevance"": ""relevant""}}"\n'
                    '2,Masks help.,"{""masks"": {""relevance"": ""maybe""}}"\n', encoding="utf-8")
    with pytest.raises(FormatError) as caught:
        read_items(path, definition)
    assert caught.value.line == 3 and "masks: not a valid answer: relevance: 'maybe' is not one of" in str(caught.value)
    path.write_text('id,text,known.claims\n1,Masks help.,"{""masks"": {""relevance"": ""relevant""}}"\n',
                    encoding="utf-8")
    [item] = read_items(path, definition)
    assert item.reference == {"claims": {"masks": {"relevance": "relevant"}}} and item.control
    assert not math.isnan(control_score(definition, {}, claims(REL | {"stance": "for"}, IRR), item.reference))


def test_dawid_skene_runs_once_over_every_item_and_element_of_the_question():
    """The posterior of each (item, element) unit is the one Dawid-Skene gives on all of them pooled."""
    definition = define(CLAIMS.replace("gold: {rule: agree, m: 2, value: relevant, otherwise: irrelevant}",
                                       "gold: dawid_skene"))
    labels = labels_of(definition, VOTES)
    gold = declared_gold(definition, labels)
    relevance = gold[gold["question"] == "relevance"]
    assert [(r.item, r.unit) for r in relevance.itertuples()] == [("s1", "masks"), ("s1", "vaccines"),
                                                                  ("s2", "masks"), ("s2", "vaccines")]
    votes = labels[labels["field"] == "relevance"]
    pooled = dawid_skene(pd.DataFrame({"unit": list(zip(votes["item"], votes["unit"])), "coder": votes["user_id"],
                                       "value": votes["value"]}))
    expected = {unit: (pooled.classes[int(p.argmax())], float(p.max()))
                for unit, p in zip(pooled.units, pooled.posteriors)}
    assert {(r.item, r.unit): (r.gold, pytest.approx(r.score)) for r in relevance.itertuples()} == expected


def test_an_exported_group_answer_has_its_elements_and_questions_in_a_fixed_order():
    """PostgreSQL's JSONB gives an object's keys back shortest first: the export orders them itself."""
    as_jsonb = {"turns": {"t2": {"note": "late", "helpful": 2}, "t10": {"helpful": 3}, "t1": {"helpful": 4}}}
    ordered = in_canonical_order(define(TURNS), as_jsonb)
    assert json.dumps(ordered) == json.dumps({"turns": {"t1": {"helpful": 4}, "t2": {"helpful": 2, "note": "late"},
                                                        "t10": {"helpful": 3}}})
    claims_answer = {"claims": {"vaccines": IRR, "masks": {"stance": "for", "relevance": "relevant"}}, "clear": 2}
    assert json.dumps(in_canonical_order(define(CLAIMS), claims_answer)) == json.dumps(
        {"claims": {"masks": {"relevance": "relevant", "stance": "for"}, "vaccines": IRR}, "clear": 2})


def test_a_known_answer_hidden_by_its_elements_own_when_is_refused(tmp_path):
    path = tmp_path / "items.jsonl"
    path.write_text(json.dumps({"id": "1", "text": "Masks help.", "known.claims": {
        "masks": {"relevance": "relevant", "stance": "for"}, "vaccines": {"relevance": "irrelevant",
                                                                         "stance": "for"}}}) + "\n", encoding="utf-8")
    with pytest.raises(FormatError) as caught:
        read_items(path, define(CLAIMS))
    assert caught.value.column == '"known.claims"'
    assert "vaccines: stance is not asked when the known answers are these" in str(caught.value)
