"""A relations question: typed, directed relations between the marks of an earlier spans question in the same answer.
The definition's keys and their refusals, the answer's checks and label rows, gold (exactly m of n, a share exactly
at `positive`, an end that is not gold, an undecided end, a spans question not asked), relation F1 between
annotators against a computation written here, control items and the words the admin reads, on the example's
sentences (examples/ner_relations.yaml)."""
from __future__ import annotations

import itertools
import json
import math
import random
from pathlib import Path

import pytest

from annotator.analysis.agreement import field_agreement
from annotator.core.hit_values import AnswerError
from annotator.declared.adjudication import adjudicated, undecided
from annotator.declared.answers import check_answer, example_answer, public_questions
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
from annotator.declared.words import unit_words, value_words
from tests.support.declared_labels import labels_of

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
DEFINITION = definition_from_file(EXAMPLES / "ner_relations.yaml")
PAYLOADS = {json.loads(line)["id"]: json.loads(line)
            for line in (EXAMPLES / "ner_relations_items.jsonl").read_text(encoding="utf-8").splitlines()}
ADA = PAYLOADS["r1"]     # "Ada Lovelace works for Analytical Engines in London."
MINA = PAYLOADS["r5"]    # "Mina Sato works for Harbour Data and lives in Kyoto."


def mark(payload: dict, words: str, label: str) -> dict:
    start = payload["sentence"].index(words)
    return {"start": start, "end": start + len(words), "label": label}


def unit(payload: dict, words: str, label: str) -> str:
    m = mark(payload, words, label)
    return f"{m['start']}:{m['end']}:{label}"


PERSON, ORGANISATION, PLACE = (ADA, "Ada Lovelace", "PER"), (ADA, "Analytical Engines", "ORG"), (ADA, "London", "LOC")
MARKS = [mark(*PERSON), mark(*ORGANISATION), mark(*PLACE)]
WORKS = {"from": unit(*PERSON), "to": unit(*ORGANISATION), "label": "works_for"}          # 0:12:PER -> 23:41:ORG
LOCATED = {"from": unit(*ORGANISATION), "to": unit(*PLACE), "label": "located_in"}      # 23:41:ORG -> 45:51:LOC


def vote(links: list | None, marks: list | None = None) -> dict:
    answer: dict = {"entities": MARKS if marks is None else marks}
    if links is not None:
        answer["links"] = links
    return answer


# --- the definition ---------------------------------------------------------------------------------------------

def test_the_example_relates_the_names_of_its_spans_question():
    rules = DEFINITION.question("links").relations
    assert rules is not None
    assert (rules.of, rules.most, rules.values()) == ("entities", 20, ("works_for", "located_in", "founded"))
    assert (rules.types[1].sources, rules.types[1].targets, rules.types[1].label) == \
        (("ORG", "LOC"), ("LOC",), "is located in")
    assert DEFINITION.question("links").gold.rule == "agree" and DEFINITION.question("links").gold.m == 2


HEAD = ("name: x\nshow: [sentence]\nquestions:\n"
        "  - {id: entities, kind: spans, of: sentence, labels: [PER, ORG]}\n")


@pytest.mark.parametrize("question, path, said", [
    ("{id: r, kind: relations, of: names, labels: [knows]}", "questions[1].of",
     "'names' is not an earlier question; of names the spans question, asked before this one, whose marks are "
     "related (spans questions: entities)"),
    ("{id: r, kind: relations, of: tone, labels: [knows]}", "questions[2].of", "'tone' is a choice question"),
    ("{id: r, kind: relations, of: entities, labels: [{value: works_for, from: [LOC]}]}",
     "questions[1].labels[0].from[0]", "'LOC' is not a label of the spans question 'entities' (PER, ORG)"),
    ("{id: r, kind: relations, of: entities, labels: [{value: works_for, to: ORG, colour: red}]}",
     "questions[1].labels[0].colour", "unknown key; known here: value, label, from, to"),
    ("{id: r, kind: relations, of: entities, labels: [works for]}", "questions[1].labels[0]",
     "'works for' is not an identifier"),
    ("{id: r, kind: relations, of: entities, labels: [knows, {value: knows}]}", "questions[1].labels[1].value",
     "'knows' is listed twice"),
    ("{id: r, kind: relations, of: entities, labels: []}", "questions[1].labels",
     "must list at least one type of relation"),
    ("{id: r, kind: relations, of: entities, labels: [knows], max: 501}", "questions[1].max", "500"),
    ("{id: r, kind: relations, of: entities, labels: [knows], gold: majority}", "questions[1].gold.rule",
     "'majority' does not apply to a relations question; use one of share, agree"),
    ("{id: r, kind: relations, of: entities, labels: [knows], gold: {rule: agree, m: 2, value: '1'}}",
     "questions[1].gold.value", "the agree rule of a relations question has no 'value'"),
    ("{id: r, kind: relations, of: entities, labels: [knows], when: {tone: calm}}", "questions[2].when",
     "a relations question is asked whenever its spans question is; put the condition on that question"),
])
def test_a_bad_relations_question_is_refused_at_its_key(question, path, said):
    text = HEAD + ("  - {id: tone, kind: choice, options: [calm, angry]}\n" if "tone" in question else "") + \
        f"  - {question}\n"
    with pytest.raises(DefinitionError) as error:
        definition_from_text(text)
    assert error.value.path == path
    assert said in error.value.message


def test_relations_before_their_spans_question_are_refused():
    with pytest.raises(DefinitionError) as error:
        definition_from_text("name: x\nshow: [sentence]\nquestions:\n"
                             "  - {id: r, kind: relations, of: entities, labels: [knows]}\n"
                             "  - {id: entities, kind: spans, of: sentence, labels: [PER]}\n")
    assert (error.value.path, error.value.message) == (
        "questions[0].of", "'entities' is not an earlier question; of names the spans question, asked before this "
                           "one, whose marks are related (spans questions: none is asked before this one)")


@pytest.mark.parametrize("group", [
    "  - repeat: per_aspect\n    elements: [{id: a, text: A}]\n",
    "  - {id: better, kind: pairwise, a: sentence, b: other}\n  - repeat: per_side\n    sides: better\n",
])
def test_a_relations_question_is_not_asked_per_element_of_a_group_or_of_a_side(group):
    text = HEAD.replace("show: [sentence]", "show: [sentence, other]") + group + \
        "    questions:\n      - {id: r, kind: relations, of: entities, labels: [knows]}\n"
    with pytest.raises(DefinitionError) as error:
        definition_from_text(text)
    assert error.value.path.endswith("].questions[0].kind")
    assert error.value.message == ("a 'relations' question cannot be repeated per element; a group asks choice, "
                                   "scale, text questions")


def test_a_spans_label_holding_the_arrow_is_refused_where_a_relation_would_join_it():
    with pytest.raises(DefinitionError) as error:
        definition_from_text("name: x\nshow: [sentence]\nquestions:\n"
                             "  - {id: entities, kind: spans, of: sentence, labels: [PER, 'A->B']}\n"
                             "  - {id: r, kind: relations, of: entities, labels: [knows]}\n")
    assert error.value.path == "questions[1].of"
    assert "has a label holding '->' ('A->B')" in error.value.message


# --- answers ----------------------------------------------------------------------------------------------------

def test_relations_are_stored_in_the_marks_order_with_one_row_each():
    stored, rows = check_answer(DEFINITION, ADA, vote([LOCATED, WORKS]))
    assert stored["links"] == [WORKS, LOCATED]
    assert [(r.unit, r.field, r.value) for r in rows if r.field == "links"] == [
        ("0:12:PER->23:41:ORG", "links", "works_for"), ("23:41:ORG->45:51:LOC", "links", "located_in")]


def test_no_relation_is_an_answer_and_leaves_no_rows():
    for answer in (vote([]), vote(None)):
        stored, rows = check_answer(DEFINITION, ADA, answer)
        assert stored.get("links", []) == []
        assert [r for r in rows if r.field == "links"] == []


@pytest.mark.parametrize("links, said", [
    ({"from": "0:12:PER"}, 'links: must be a list of relations {"from": "<start>:<end>:<label>", "to": '
                           '"<start>:<end>:<label>", "label": <type>} ([] for none)'),
    ([{**WORKS, "score": 1}], 'links: relation 1: must be an object {"from", "to", "label"} (unknown score)'),
    ([{"from": "0:12:PER", "label": "works_for"}],
     'links: relation 1: must be an object {"from", "to", "label"} (missing to)'),
    ([{**WORKS, "label": "likes"}], "links: relation 1: 'likes' is not one of the types 'works_for', 'located_in', "
                                    "'founded'"),
    ([WORKS, {**LOCATED, "to": "45:52:LOC"}],
     "links: relation 2: to '45:52:LOC' is not one of this answer's marks of entities (\"<start>:<end>:<label>\"; "
     "its marks: 0:12:PER, 23:41:ORG, 45:51:LOC)"),
    ([{**WORKS, "to": "0:12:PER"}], "links: relation 1: from and to are the same mark (0:12:PER); a relation links "
                                    "two marks"),
    ([{**WORKS, "from": "23:41:ORG", "to": "45:51:LOC"}],
     "links: relation 1: works_for does not go from a mark labelled ORG (it goes from PER to ORG)"),
    ([{**LOCATED, "to": "0:12:PER"}], "links: relation 1: located_in does not go to a mark labelled PER (it goes "
                                      "from ORG/LOC to LOC)"),
    ([WORKS, LOCATED, WORKS], "links: relation 3: is relation 1 again"),
])
def test_a_wrong_relation_is_refused_naming_what_is_wrong(links, said):
    with pytest.raises(AnswerError) as error:
        check_answer(DEFINITION, ADA, vote(links))
    assert str(error.value) == said


def test_more_relations_than_max_are_refused():
    definition = definition_from_text(HEAD + "  - {id: r, kind: relations, of: entities, labels: [knows], max: 1}\n")
    payload = {"sentence": "Ada met Bo."}
    marks = [{"start": 0, "end": 3, "label": "PER"}, {"start": 8, "end": 10, "label": "PER"}]
    two = [{"from": "0:3:PER", "to": "8:10:PER", "label": "knows"}, {"from": "8:10:PER", "to": "0:3:PER",
                                                                      "label": "knows"}]
    with pytest.raises(AnswerError) as error:
        check_answer(definition, payload, {"entities": marks, "r": two})
    assert str(error.value) == "r: gives 2 relations; at most 1"
    assert check_answer(definition, payload, {"entities": marks, "r": two[:1]})[0]["r"] == two[:1]


def test_a_required_question_asks_for_a_relation_only_where_two_names_are_marked():
    definition = definition_from_text(HEAD + "  - {id: r, kind: relations, of: entities, labels: [knows]}\n")
    payload = {"sentence": "Ada met Bo."}
    with pytest.raises(AnswerError) as error:
        check_answer(definition, payload, {"entities": [{"start": 0, "end": 3, "label": "PER"},
                                                        {"start": 8, "end": 10, "label": "PER"}], "r": []})
    assert str(error.value) == "r: give at least one relation between the marks (the question is required)"
    stored, _ = check_answer(definition, payload, {"entities": [{"start": 0, "end": 3, "label": "PER"}]})
    assert "r" not in stored


WHEN = ("name: x\nshow: [sentence]\nquestions:\n"
        "  - {id: has_names, kind: choice, options: ['yes', 'no']}\n"
        "  - {id: entities, kind: spans, of: sentence, labels: [PER, ORG], required: false, "
        "when: {has_names: 'yes'}, gold: {rule: agree, m: 1}}\n"
        "  - {id: links, kind: relations, of: entities, labels: [knows], required: false, gold: {rule: agree, m: 1}}\n")


def test_relations_must_be_empty_where_the_spans_question_is_not_asked():
    definition = definition_from_text(WHEN)
    with pytest.raises(AnswerError) as error:
        check_answer(definition, ADA, {"has_names": "no", "links": [WORKS]})
    assert str(error.value) == ("links: entities is not answered in this answer (not asked, or left out), so there "
                                "is no mark to relate; send [] or leave it out")
    assert check_answer(definition, ADA, {"has_names": "no", "links": []})[1] == \
        check_answer(definition, ADA, {"has_names": "no"})[1]


def test_the_api_describes_the_types_and_their_ends():
    described = next(q for q in public_questions(DEFINITION, ADA) if q["id"] == "links")
    assert described == {"id": "links", "kind": "relations", "prompt": "Link the names that are related.",
                         "required": False, "of": "entities", "max": 20,
                         "labels": [{"value": "works_for", "label": "works for", "from": ["PER"], "to": ["ORG"]},
                                    {"value": "located_in", "label": "is located in", "from": ["ORG", "LOC"],
                                     "to": ["LOC"]},
                                    {"value": "founded", "label": "founded", "from": ["PER"], "to": ["ORG"]}]}


def test_a_drawn_example_answer_passes_the_check():
    for seed in range(30):
        answer = example_answer(DEFINITION, ADA, random.Random(seed))
        stored, _ = check_answer(DEFINITION, ADA, answer)
        assert stored.get("links", []) == answer.get("links", [])


# --- gold -------------------------------------------------------------------------------------------------------

def gold_rows(definition, votes, payloads=None):
    gold = declared_gold(definition, labels_of(definition, votes, payloads or PAYLOADS))
    mine = gold[gold["question"] == "links"]
    return {(item, u): (g, n, s, v) for item, u, g, n, s, v in
            zip(mine["item"], mine["unit"], mine["gold"], mine["n"], mine["score"], mine["votes"])}


def test_a_relation_given_by_exactly_m_of_n_annotators_is_gold():
    found = gold_rows(DEFINITION, {"r1": [vote([WORKS, LOCATED]), vote([WORKS]), vote([])]})
    assert found == {
        ("r1", "0:12:PER->23:41:ORG:works_for"): ("1", 3, pytest.approx(2 / 3), "1: 2, 0: 1"),
        ("r1", "23:41:ORG->45:51:LOC:located_in"): ("0", 3, pytest.approx(1 / 3), "1: 1, 0: 2"),
    }


SHARE = HEAD.replace("labels: [PER, ORG]}", "labels: [PER, ORG], gold: {rule: agree, m: 1}}") + \
    "  - {id: links, kind: relations, of: entities, labels: [knows], required: false, " \
    "gold: {rule: share, positive: 0.5}}\n"
BO = {"sentence": "Ada met Bo and Cy."}   # Ada 0:3, Bo 8:10, Cy 15:17
BO_MARKS = [{"start": 0, "end": 3, "label": "PER"}, {"start": 8, "end": 10, "label": "PER"},
            {"start": 15, "end": 17, "label": "PER"}]
KNOWS_BO = {"from": "0:3:PER", "to": "8:10:PER", "label": "knows"}
KNOWS_CY = {"from": "0:3:PER", "to": "15:17:PER", "label": "knows"}


def test_a_share_exactly_at_positive_is_gold_and_one_vote_below_is_not():
    definition = definition_from_text(SHARE)
    votes = {"b": [{"entities": BO_MARKS, "links": [KNOWS_BO, KNOWS_CY]}, {"entities": BO_MARKS, "links": [KNOWS_BO]},
                   {"entities": BO_MARKS, "links": []}, {"entities": BO_MARKS}]}
    found = gold_rows(definition, votes, {"b": BO})
    assert found[("b", "0:3:PER->8:10:PER:knows")][:3] == ("1", 4, 0.5)     # 2 of 4: exactly 0.5
    assert found[("b", "0:3:PER->15:17:PER:knows")][:3] == ("0", 4, 0.25)   # 1 of 4


def test_a_relation_whose_end_is_not_a_gold_span_is_not_gold():
    # The names need all three annotators (m: 3); the relation two. Two gave it, so only two marked Bo: not gold.
    definition = definition_from_text(
        HEAD.replace("labels: [PER, ORG]}", "labels: [PER, ORG], gold: {rule: agree, m: 3}}") +
        "  - {id: links, kind: relations, of: entities, labels: [knows], required: false, gold: {rule: agree, m: 2}}\n")
    ada_cy = [BO_MARKS[0], BO_MARKS[2]]
    votes = {"b": [{"entities": BO_MARKS, "links": [KNOWS_BO]}, {"entities": BO_MARKS, "links": [KNOWS_BO]},
                   {"entities": ada_cy}]}
    found = gold_rows(definition, votes, {"b": BO})
    assert found == {("b", "0:3:PER->8:10:PER:knows"): ("0", 3, pytest.approx(2 / 3), "1: 2, 0: 1")}


def test_a_relation_whose_end_is_undecided_is_undecided():
    # Two annotators mark "Bo" and relate it; two mark "Bo and" (overlapping, as many): both marks are undecided.
    definition = definition_from_text(
        HEAD.replace("labels: [PER, ORG]}", "labels: [PER, ORG], gold: {rule: agree, m: 2}}") +
        "  - {id: links, kind: relations, of: entities, labels: [knows], required: false, gold: {rule: agree, m: 2}}\n")
    bo_and = [BO_MARKS[0], {"start": 8, "end": 14, "label": "PER"}]
    votes = {"b": [{"entities": BO_MARKS[:2], "links": [KNOWS_BO]}, {"entities": BO_MARKS[:2], "links": [KNOWS_BO]},
                   {"entities": bo_and}, {"entities": bo_and}]}
    gold = declared_gold(definition, labels_of(definition, votes, {"b": BO}))
    spans_gold = dict(zip(gold[gold["question"] == "entities"]["unit"], gold[gold["question"] == "entities"]["gold"]))
    assert (spans_gold["0:3:PER"], spans_gold["8:10:PER"], spans_gold["8:14:PER"]) == ("1", UNDECIDED, UNDECIDED)
    assert gold_rows(definition, votes, {"b": BO}) == {
        ("b", "0:3:PER->8:10:PER:knows"): (UNDECIDED, 4, 0.5, "1: 2, 0: 2")}


def test_a_relation_where_the_spans_question_was_not_asked_is_not_asked():
    definition = definition_from_text(WHEN)
    marks = [{"start": 0, "end": 3, "label": "PER"}, {"start": 8, "end": 10, "label": "PER"}]
    votes = {"b": [{"has_names": "yes", "entities": marks, "links": [KNOWS_BO]}, {"has_names": "no"},
                   {"has_names": "no"}]}
    found = gold_rows(definition, votes, {"b": BO})
    assert found[("b", "0:3:PER->8:10:PER:knows")][0] == NOT_ASKED
    assert math.isnan(found[("b", "0:3:PER->8:10:PER:knows")][2])


def test_the_admin_s_summary_counts_gold_not_gold_and_undecided_relations():
    labels = labels_of(DEFINITION, {"r1": [vote([WORKS, LOCATED]), vote([WORKS]), vote([])]}, PAYLOADS)
    counts = gold_counts(DEFINITION, declared_gold(DEFINITION, labels))
    assert {k: v for k, v in counts.items() if k.startswith("links")} == {
        "links: gold relations": 1, "links: relations not gold": 1, f"links: {UNDECIDED} relations": 0}


# --- agreement --------------------------------------------------------------------------------------------------

MINA_MARKS = [mark(MINA, "Mina Sato", "PER"), mark(MINA, "Harbour Data", "ORG"), mark(MINA, "Kyoto", "LOC")]
MINA_WORKS = {"from": unit(MINA, "Mina Sato", "PER"), "to": unit(MINA, "Harbour Data", "ORG"), "label": "works_for"}
AGREEMENT_VOTES = {
    "r1": [vote([WORKS, LOCATED]), vote([WORKS]), vote([])],                  # three annotators
    "r5": [{"entities": MINA_MARKS, "links": [MINA_WORKS]}, {"entities": MINA_MARKS, "links": [MINA_WORKS]}],
    "r2": [{"entities": [mark(PAYLOADS["r2"], "Grace Okafor", "PER")]}],      # one annotator: left out
}


def independent_pooled_f1(votes: dict) -> float:
    """Relation F1 written out here: each item's annotators' sets of (from, to, type), every pair of them."""
    common = given = 0
    for answers in votes.values():
        sets = [{(r["from"], r["to"], r["label"]) for r in answer.get("links", [])} for answer in answers]
        for a, b in itertools.combinations(sets, 2):
            common += len(a & b)
            given += len(a) + len(b)
    return 2 * common / given


def test_relation_f1_is_pooled_over_the_pairs_of_every_item_s_annotators():
    frame = agreement_units(DEFINITION, labels_of(DEFINITION, AGREEMENT_VOTES, PAYLOADS))["links"]
    figures = field_agreement("links", frame).relation_match
    assert figures is not None
    # r1: pairs (1,2) 1 common of 2 + 1, (1,3) 0 of 2 + 0, (2,3) 0 of 1 + 0; r5: 1 of 1 + 1. 2 * 2 / 8.
    assert figures.f1 == pytest.approx(0.5) == pytest.approx(independent_pooled_f1(AGREEMENT_VOTES))
    assert (figures.items, figures.pairs, figures.common, figures.given) == (2, 4, 2, 8)
    assert figures.text() == ("relation F1 0.500 (pairs of annotators, pooled over 2 items, 4 pairs: 2 × 2 in "
                              "common / 8 given)")


def test_an_annotator_who_gave_no_relation_is_in_the_field_with_none():
    frame = agreement_units(DEFINITION, labels_of(DEFINITION, AGREEMENT_VOTES, PAYLOADS))["links"]
    assert sorted(frame[frame["unit"] == "r1 / links"]["value"]) == [
        "0:12:PER->23:41:ORG works_for", "0:12:PER->23:41:ORG works_for; 23:41:ORG->45:51:LOC located_in", "none"]
    assert len(frame) == 6


def test_relation_f1_is_undefined_while_no_item_has_two_annotators_or_no_relation_was_given():
    one = agreement_units(DEFINITION, labels_of(DEFINITION, {"r2": AGREEMENT_VOTES["r2"]}, PAYLOADS))["links"]
    assert field_agreement("links", one).relation_match.text() == \
        "undefined: no item was answered by two or more annotators"
    none = agreement_units(DEFINITION, labels_of(DEFINITION, {"r1": [vote([]), vote([])]}, PAYLOADS))["links"]
    assert field_agreement("links", none).relation_match.f1 is None


# --- control items and words ------------------------------------------------------------------------------------

def test_a_control_answer_scores_the_f1_of_its_relations():
    known = {"links": [WORKS, LOCATED]}
    assert control_score(DEFINITION, ADA, vote([WORKS, LOCATED]), known) == 1.0
    assert control_score(DEFINITION, ADA, vote([WORKS]), known) == pytest.approx(2 * 1 / (1 + 2))
    assert control_score(DEFINITION, ADA, vote([]), known) == 0.0
    assert control_score(DEFINITION, ADA, vote([]), {"links": []}) == 1.0


def test_decided_gold_is_a_known_answer_and_reads_in_words():
    labels = labels_of(DEFINITION, {"r1": [vote([WORKS, LOCATED]), vote([WORKS]), vote([])]}, PAYLOADS)
    known = control_reference(DEFINITION, "r1", declared_gold(DEFINITION, labels), ADA)
    assert known == {"entities": MARKS, "links": [WORKS]}
    assert show_reference(DEFINITION, ADA, {"links": [WORKS, LOCATED]}) == (
        "Link the names that are related. “Ada Lovelace” (Person) works for “Analytical Engines” (Organisation); "
        "“Analytical Engines” (Organisation) is located in “London” (Place)")


def test_a_spans_answer_known_without_any_relation_given_knows_no_relation():
    labels = labels_of(DEFINITION, {"r1": [vote([]), vote([])]}, PAYLOADS)
    assert control_reference(DEFINITION, "r1", declared_gold(DEFINITION, labels), ADA)["links"] == []


def test_a_gold_row_and_its_values_read_in_words():
    row = {"question": "links", "unit": "0:12:PER->23:41:ORG:works_for"}
    assert unit_words(DEFINITION, ADA, row) == "“Ada Lovelace” (Person) works for “Analytical Engines” (Organisation)"
    assert (value_words(DEFINITION, "links", "1"), value_words(DEFINITION, "links", "works_for")) == \
        ("related", "works for")


def test_an_admin_s_decision_of_an_undecided_relation_is_the_item_s_gold():
    definition = definition_from_text(
        HEAD.replace("labels: [PER, ORG]}", "labels: [PER, ORG], gold: {rule: agree, m: 2}}") +
        "  - {id: links, kind: relations, of: entities, labels: [knows], required: false, gold: {rule: agree, m: 2}}\n")
    bo_and = [BO_MARKS[0], {"start": 8, "end": 14, "label": "PER"}]
    knows_bo_and = {"from": "0:3:PER", "to": "8:14:PER", "label": "knows"}
    votes = {"b": [{"entities": BO_MARKS[:2], "links": [KNOWS_BO]}, {"entities": BO_MARKS[:2], "links": [KNOWS_BO]},
                   {"entities": bo_and, "links": [knows_bo_and]}, {"entities": bo_and}]}
    gold = declared_gold(definition, labels_of(definition, votes, {"b": BO}))
    assert undecided(gold) == ["b"]
    decision = labels_of(definition, {"b": [{"entities": BO_MARKS[:2], "links": [KNOWS_BO]}]}, {"b": BO})
    decided = adjudicated(definition, gold, decision)
    mine = decided[decided["question"] == "links"]
    assert dict(zip(mine["unit"], mine["gold"])) == {"0:3:PER->8:10:PER:knows": "1",
                                                     "0:3:PER->8:14:PER:knows": "0"}
    assert set(mine["votes"]) == {"adjudicated"}


def test_relations_are_asked_of_the_items_their_spans_question_is_asked_of():
    definition = definition_from_text(
        "name: x\nshow: [sentence]\nquestions:\n"
        "  - {id: entities, kind: spans, of: sentence, labels: [PER], required: false, when: {item.lang: en}}\n"
        "  - {id: links, kind: relations, of: entities, labels: [knows], required: false}\n")
    assert definition.question("links").item_when == (("lang", ("en",)),)
    english, other = {**BO, "lang": "en"}, {**BO, "lang": "de"}
    assert [q["id"] for q in public_questions(definition, english)] == ["entities", "links"]
    assert public_questions(definition, other) == []
    with pytest.raises(AnswerError) as error:
        check_answer(definition, other, {"links": []})
    assert str(error.value).startswith("links: not asked for this item (it is asked only when the item's lang holds "
                                       "'en')")
    stored, _ = check_answer(definition, english, {"entities": BO_MARKS[:2], "links": [KNOWS_BO]})
    assert stored["links"] == [KNOWS_BO]
