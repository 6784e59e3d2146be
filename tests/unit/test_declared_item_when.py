"""Item conditions (`when: {item.<field>: value}`, annotator/declared/item_when.py): a question asked only of the
items whose field holds a value. The definition's checks with their key paths, the items file, the answer check
(what a hidden question's answer gives, what a shown one requires), the API's description and the gold rows.

The definition is RuArg-2022's premise stage as the shared task declares it (ruarg2022/premise.yaml): each claim's
premise asked only of the sentences whose `claims` list it.
"""
from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from annotator.core.errors import FormatError
from annotator.declared.answers import check_answer, example_answer, public_questions
from annotator.declared.definition import DefinitionError
from annotator.declared.definition_reader import definition_from_file, definition_from_text
from annotator.declared.gold import declared_gold
from annotator.declared.item_when import card_words
from annotator.declared.items import read_items
from annotator.tasks.base import AnswerError
from tests.support.declared_labels import labels_of

PREMISE = definition_from_file(Path(__file__).resolve().parents[2] / "annotator" / "shared_tasks" / "ruarg2022" /
                               "premise.yaml")
MASKS_AND_VACCINES = {"id": "17024", "text": "Маски носить надо.", "claims": ["masks", "vaccines"]}


def refused(questions: str) -> DefinitionError:
    with pytest.raises(DefinitionError) as caught:
        definition_from_text(f"name: test\nshow: [text]\nquestions:\n{questions}")
    return caught.value


# --- the definition ----------------------------------------------------------------------------------------------

def test_the_premise_stage_asks_each_claims_premise_of_the_items_listing_the_claim():
    masks = PREMISE.question("masks_premise")
    assert masks.item_when == (("claims", ("masks",)),) and masks.when == () and masks.required
    assert PREMISE.item_fields() == ["text", "claims"]


@pytest.mark.parametrize("when, path, message", [
    ("{item.cla-ims: masks}", "questions[0].when.item.cla-ims", "'cla-ims' is not an item field's name"),
    ("{item.id: masks}", "questions[0].when.item.id", "'id' is the item's id; name another field"),
    ("{item.claims: []}", "questions[0].when.item.claims", "must be a value, or a list of values"),
    ("{item.claims: true}", "questions[0].when.item.claims", "must be a value the item's field holds (text), not "
                                                             "true (true/false)"),
    ('{item.claims: " "}', "questions[0].when.item.claims", "must not be blank"),
])
def test_a_wrong_item_condition_is_refused_with_its_key_path(when, path, message):
    error = refused(f'  - {{id: q, kind: choice, options: [a, b], when: {when}}}\n')
    assert error.path == path and message in error.message and error.line == 4


def test_an_item_condition_on_a_groups_question_is_refused():
    error = refused('  - repeat: claims\n'
                    '    elements: [{id: masks, text: Masks help.}]\n'
                    '    questions:\n'
                    '      - {id: q, kind: choice, options: [a, b], when: {item.topics: health}}\n')
    assert error.path == "questions[0].questions[0].when"
    assert "a group's questions are asked of every element: put it on a question outside the group" in error.message


def test_not_asked_beside_an_item_condition_is_refused():
    error = refused('  - {id: sure, kind: choice, options: ["yes", "no"]}\n'
                    '  - {id: q, kind: choice, options: [a, b], when: {sure: "yes", item.topics: health}, '
                    'agreement: {not_asked: unsure}}\n')
    assert error.path == "questions[1].agreement.not_asked" and "leave one out" in error.message


# --- answers -----------------------------------------------------------------------------------------------------

def test_an_item_asks_only_the_premises_of_its_claims():
    stored, rows = check_answer(PREMISE, MASKS_AND_VACCINES, {"masks_premise": "2", "vaccines_premise": "1"})
    assert stored == {"masks_premise": "2", "vaccines_premise": "1"}
    assert [(r.unit, r.value) for r in rows] == [("masks_premise", "2"), ("vaccines_premise", "1")]


def test_an_answer_to_a_question_the_item_does_not_ask_is_refused_naming_the_condition():
    with pytest.raises(AnswerError) as caught:
        check_answer(PREMISE, MASKS_AND_VACCINES,
                     {"masks_premise": "2", "quarantine_premise": "0", "vaccines_premise": "1"})
    assert str(caught.value) == ("quarantine_premise: not asked for this item (it is asked only when the item's "
                                 "claims holds 'quarantine'); leave it out")


def test_a_question_the_item_asks_is_required_as_declared():
    with pytest.raises(AnswerError) as caught:
        check_answer(PREMISE, MASKS_AND_VACCINES, {"masks_premise": "2"})
    assert str(caught.value) == "vaccines_premise: an answer is required"


def test_the_api_lists_only_the_questions_the_item_asks():
    assert [q["id"] for q in public_questions(PREMISE, MASKS_AND_VACCINES)] == ["masks_premise", "vaccines_premise"]
    assert [q["id"] for q in public_questions(PREMISE, {**MASKS_AND_VACCINES, "claims": []})] == []


def test_a_random_answer_answers_only_what_the_item_asks():
    answer = example_answer(PREMISE, {**MASKS_AND_VACCINES, "claims": ["quarantine"]}, random.Random(3))
    assert list(answer) == ["quarantine_premise"]


def test_a_number_condition_matches_the_items_number_or_its_text():
    definition = definition_from_text("name: t\nshow: [text]\nquestions:\n"
                                      "  - {id: q, kind: choice, options: [a, b], when: {item.level: [2, 3]}}\n")
    assert [q["id"] for q in public_questions(definition, {"text": "x", "level": 2})] == ["q"]
    assert [q["id"] for q in public_questions(definition, {"text": "x", "level": "3"})] == ["q"]
    assert public_questions(definition, {"text": "x", "level": 1}) == []


def test_an_item_condition_and_an_answer_condition_must_both_be_met():
    definition = definition_from_text(
        "name: t\nshow: [text]\nquestions:\n"
        '  - {id: sure, kind: choice, options: ["yes", "no"]}\n'
        '  - {id: why, kind: choice, options: [a, b], when: {sure: "no", item.topics: health}}\n')
    health = {"text": "x", "topics": ["health"]}
    assert check_answer(definition, health, {"sure": "no", "why": "a"})[0] == {"sure": "no", "why": "a"}
    with pytest.raises(AnswerError, match="why: not asked for this answer"):
        check_answer(definition, health, {"sure": "yes", "why": "a"})
    with pytest.raises(AnswerError, match="why: not asked for this item"):
        check_answer(definition, {"text": "x", "topics": ["sport"]}, {"sure": "no", "why": "a"})


# --- the items file and gold -------------------------------------------------------------------------------------

def test_the_items_file_gives_each_sentence_its_claims(tmp_path):
    path = tmp_path / "items.jsonl"
    path.write_text(json.dumps(MASKS_AND_VACCINES, ensure_ascii=False) + "\n", encoding="utf-8")
    [item] = read_items(path, PREMISE)
    assert item.payload == {"text": "Маски носить надо.", "claims": ["masks", "vaccines"]}


def test_a_tsv_cell_gives_the_claims_as_json(tmp_path):
    path = tmp_path / "items.tsv"
    path.write_text('id\ttext\tclaims\n17024\tМаски носить надо.\t["masks"]\n17031\tКарантин.\tquarantine\n',
                    encoding="utf-8")
    assert [item.payload["claims"] for item in read_items(path, PREMISE)] == [["masks"], "quarantine"]


@pytest.mark.parametrize("claims, message", [
    ({"masks": True}, "must be a list of text or numbers, or a text"),
    ([["masks"]], "must be a list of text or numbers, or a text"),
])
def test_a_claims_value_that_is_no_list_of_values_is_refused_with_its_line(tmp_path, claims, message):
    path = tmp_path / "items.jsonl"
    path.write_text(json.dumps({"id": "1", "text": "Маски.", "claims": claims}) + "\n", encoding="utf-8")
    with pytest.raises(FormatError) as caught:
        read_items(path, PREMISE)
    assert "line 1" in str(caught.value) and "claims" in str(caught.value) and message in str(caught.value)


def test_gold_has_rows_only_for_the_claims_each_sentence_asks():
    payloads = {"17024": MASKS_AND_VACCINES, "17031": {"id": "17031", "text": "Карантин.", "claims": ["quarantine"]}}
    votes = {"17024": [{"masks_premise": "2", "vaccines_premise": "1"}] * 3,
             "17031": [{"quarantine_premise": "0"}] * 3}
    gold = declared_gold(PREMISE, labels_of(PREMISE, votes, payloads))
    assert sorted(zip(gold["item"], gold["question"], gold["gold"])) == [
        ("17024", "masks_premise", "2"), ("17024", "vaccines_premise", "1"), ("17031", "quarantine_premise", "0")]


def test_the_data_card_says_which_items_a_question_is_asked_of():
    assert card_words(PREMISE.question("vaccines_premise")) == "asked only when the item's claims holds 'vaccines'"


def test_a_known_answer_to_a_question_the_item_does_not_ask_is_refused(tmp_path):
    path = tmp_path / "items.jsonl"
    path.write_text(json.dumps({**MASKS_AND_VACCINES, "known.quarantine_premise": "0"}) + "\n", encoding="utf-8")
    with pytest.raises(FormatError) as caught:
        read_items(path, PREMISE)
    assert "line 1" in str(caught.value) and "known.quarantine_premise" in str(caught.value)
    assert "quarantine_premise is not asked of this item (it is asked only when the item's claims holds " \
           "'quarantine')" in str(caught.value)


def test_the_example_asks_each_post_its_topics_follow_up_only():
    examples = Path(__file__).resolve().parents[2] / "examples"
    definition = definition_from_file(examples / "topic_questions.yaml")
    items = read_items(examples / "topic_questions_items.jsonl", definition)
    asked = {item.external_id: [q["id"] for q in public_questions(definition, item.payload)] for item in items}
    assert asked == {"n1": ["clear", "health_claim"], "n2": ["clear", "price_stated"], "n3": ["clear"]}
