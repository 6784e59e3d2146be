"""Attributes of a spans question's marks and the MQM score (examples/mqm_errors.yaml): the definition's keys, the
answer's checks and rows, gold per span by majority of those who marked exactly it (ties undecided), the score per
vote and per item against a hand computation, and a spans question without attributes exactly as before."""
from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from annotator.analysis.agreement import field_agreement
from annotator.core.hit_values import AnswerError
from annotator.declared.adjudication import adjudicated, undecided
from annotator.declared.answers import check_answer, public_questions
from annotator.declared.definition import DefinitionError
from annotator.declared.definition_reader import definition_from_file, definition_from_text
from annotator.declared.gold import agreement_units, declared_gold
from tests.support.declared_labels import labels_of

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
DEFINITION = definition_from_file(EXAMPLES / "mqm_errors.yaml")
PAYLOADS = {json.loads(line)["id"]: json.loads(line)
            for line in (EXAMPLES / "mqm_errors_items.jsonl").read_text(encoding="utf-8").splitlines()}
CAT = {"start": 4, "end": 7, "label": "accuracy"}            # t1: "The cat is sleeping soundly."
SOUNDLY = {"start": 20, "end": 27, "label": "fluency"}
VISIT = {"start": 8, "end": 13, "label": "fluency"}          # t2: "We have visit the museum yesterday."


def errors(*marks: dict) -> dict:
    return {"errors": list(marks)}


def test_the_example_declares_a_severity_and_its_weights():
    rules = DEFINITION.question("errors").spans
    assert [(a.id, a.value_names()) for a in rules.attributes] == [("severity", ("minor", "major", "critical"))]
    assert (rules.score.rule, rules.score.attribute, rules.score.weights) == \
        ("mqm", "severity", (("minor", 1.0), ("major", 5.0), ("critical", 25.0)))


@pytest.mark.parametrize("keys, path, said", [
    ("attributes: [{id: severity, values: [minor]}]", "questions[0].attributes[0].values",
     "must list 2 to 20 values, not 1"),
    ("attributes: [{id: label, values: [a, b]}]", "questions[0].attributes[0].id", "'label' is a key of every mark"),
    ("attributes: [{id: s, values: [a, a]}]", "questions[0].attributes[0].values[1]", "'a' is listed twice"),
    ("attributes: [{id: s, values: [a, undecided]}]", "questions[0].attributes[0].values[1]",
     "is what gold says when it is not decided"),
    ("attributes: [{id: s, values: [a, b], colour: red}]", "questions[0].attributes[0].colour",
     "unknown key; known here: id, label, values"),
    ("score: {rule: mqm, weights: {a: 1}}", "questions[0].score", "declare the attributes first"),
    ("attributes: [{id: s, values: [a, b]}]\n    score: {rule: mqm, weights: {a: 1}}", "questions[0].score.weights",
     "gives no weight to 'b'; every value of s needs one (0 for none)"),
    ("attributes: [{id: s, values: [a, b]}]\n    score: {rule: mqm, weights: {a: 1, b: 2, c: 3}}",
     "questions[0].score.weights.c", "unknown key; known here: a, b"),
    ("attributes: [{id: s, values: [a, b]}]\n    score: {rule: mqm, weights: {a: -1, b: 2}}",
     "questions[0].score.weights.a", "-1"),
    ("attributes: [{id: s, values: [a, b]}]\n    score: {rule: sum, weights: {a: 1, b: 2}}",
     "questions[0].score.rule", "'sum' is not a score rule of spans; use mqm"),
    ("attributes: [{id: s, values: [a, b]}, {id: t, values: [c, d]}]\n    score: {rule: mqm, weights: {a: 1, b: 2}}",
     "questions[0].score.attribute", "is required with several attributes: one of s, t"),
])
def test_a_bad_attribute_or_score_is_refused_at_its_key(keys, path, said):
    with pytest.raises(DefinitionError) as error:
        definition_from_text(f"name: x\nshow: [text]\nquestions:\n  - id: e\n    kind: spans\n    of: text\n"
                             f"    labels: [x]\n    {keys}\n")
    assert error.value.path == path
    assert said in error.value.message


def test_a_mark_keeps_its_severity_and_gives_an_attribute_row_and_the_vote_s_score_row():
    stored, rows = check_answer(DEFINITION, PAYLOADS["t1"], errors({**CAT, "severity": "major"},
                                                                   {**SOUNDLY, "severity": "minor"}))
    assert stored == errors({**CAT, "severity": "major"}, {**SOUNDLY, "severity": "minor"})
    found = {(r.unit, r.field): r.value for r in rows}
    assert found["4:7:accuracy", "errors"] == "1" and found["4:7:accuracy", "errors.severity"] == "major"
    assert found["20:27:fluency", "errors.severity"] == "minor"
    assert found["errors", "errors.mqm"] == "6"   # 5 + 1


def test_no_mark_scores_zero():
    _, rows = check_answer(DEFINITION, PAYLOADS["t3"], errors())
    assert [(r.unit, r.field, r.value) for r in rows if r.field == "errors.mqm"] == [("errors", "errors.mqm", "0")]


@pytest.mark.parametrize("mark, said", [
    (CAT, "errors: span 1: has no severity (one of 'minor', 'major', 'critical')"),
    ({**CAT, "severity": "huge"}, "errors: span 1: severity 'huge' is not one of 'minor', 'major', 'critical'"),
    ({**CAT, "severity": 5}, "errors: span 1: severity '5' is not one of"),
    ({**CAT, "severity": "minor", "colour": "red"}, "errors: span 1: must be an object"),
])
def test_a_mark_without_a_declared_value_is_refused_naming_it(mark, said):
    with pytest.raises(AnswerError) as error:
        check_answer(DEFINITION, PAYLOADS["t1"], errors(mark))
    assert said in str(error.value)


def test_the_api_describes_the_attributes_and_the_score():
    described = public_questions(DEFINITION, PAYLOADS["t1"])[0]
    assert described["attributes"] == [{"id": "severity", "label": "Severity", "values": [
        {"value": "minor", "label": "minor"}, {"value": "major", "label": "major"},
        {"value": "critical", "label": "critical"}]}]
    assert described["score"] == {"rule": "mqm", "attribute": "severity",
                                  "weights": {"minor": 1.0, "major": 5.0, "critical": 25.0}}


# t1, three annotators: "cat" major, "cat" critical + "soundly" minor, "cat" major. Scores 5, 26, 5: mean 12.
# "cat": marked by 3 (gold 1 by agree m = 2), severity major 2 of 3. "soundly": 1 of 3, not gold; its severity minor
# (the one who marked it). t2, two annotators: "visit" minor and "visit" major: the span is gold, its severity a tie.
VOTES = {"t1": [errors({**CAT, "severity": "major"}),
                errors({**CAT, "severity": "critical"}, {**SOUNDLY, "severity": "minor"}),
                errors({**CAT, "severity": "major"})],
         "t2": [errors({**VISIT, "severity": "minor"}), errors({**VISIT, "severity": "major"})]}


def _gold() -> dict[tuple[str, str, str], tuple]:
    gold = declared_gold(DEFINITION, labels_of(DEFINITION, VOTES, PAYLOADS))
    return {(r.item, r.question, r.unit): (r.gold, r.n, r.score, r.votes) for r in gold.itertuples()}


def test_a_span_s_severity_is_the_majority_of_those_who_marked_exactly_it():
    found = _gold()
    assert found["t1", "errors", "4:7:accuracy"][0] == "1"
    gold, n, score, votes = found["t1", "errors.severity", "4:7:accuracy"]
    assert (gold, n, votes) == ("major", 3, "major: 2, critical: 1") and score == pytest.approx(2 / 3)
    assert found["t1", "errors", "20:27:fluency"][0] == "0"
    assert found["t1", "errors.severity", "20:27:fluency"][:2] == ("minor", 1)


def test_a_tie_of_severities_is_undecided():
    gold, n, score, votes = _gold()["t2", "errors.severity", "8:13:fluency"]
    assert (gold, n, votes) == ("undecided", 2, "minor: 1, major: 1") and score == pytest.approx(0.5)


def test_the_item_s_mqm_score_is_the_mean_of_its_annotators_scores():
    assert _gold()["t1", "errors.mqm", "errors"] == ("12", 3, 12.0, "5: 2, 26: 1")
    gold, n, score, votes = _gold()["t2", "errors.mqm", "errors"]
    assert (gold, n, votes) == ("3", 2, "1: 1, 5: 1") and score == 3.0


def test_the_attribute_rows_come_after_the_question_s_own():
    gold = declared_gold(DEFINITION, labels_of(DEFINITION, VOTES, PAYLOADS))
    questions = list(gold[gold["item"] == "t1"]["question"])
    assert questions.index("errors.severity") > max(i for i, q in enumerate(questions) if q == "errors")


def test_gold_of_attributes_is_not_asked_where_the_question_was_not():
    definition = definition_from_text("""name: x
show: [text]
questions:
  - {id: wrong, kind: choice, options: ["yes", "no"]}
  - id: errors
    kind: spans
    of: text
    labels: [x]
    when: {wrong: "yes"}
    attributes: [{id: severity, values: [minor, major]}]
    score: {rule: mqm, weights: {minor: 1, major: 5}}
""")
    votes = {"i1": [{"wrong": "no"}, {"wrong": "no"},
                    {"wrong": "yes", "errors": [{"start": 0, "end": 3, "label": "x", "severity": "major"}]}]}
    gold = declared_gold(definition, labels_of(definition, votes, {"i1": {"text": "Bad words here."}}))
    rows = {(r.question, r.unit): (r.gold, r.score) for r in gold.itertuples()}
    assert rows["errors.severity", "0:3:x"][0] == "n/a" and math.isnan(rows["errors.severity", "0:3:x"][1])
    assert rows["errors.mqm", "errors"][0] == "n/a"


def test_a_spans_question_without_attributes_keeps_its_answers_rows_and_api_shape():
    ner = definition_from_file(EXAMPLES / "ner_spans.yaml")
    payload = {"sentence": "Ada Lovelace wrote her notes in London."}
    stored, rows = check_answer(ner, payload, {"entities": [{"start": 0, "end": 12, "label": "PER"}]})
    assert stored == {"entities": [{"start": 0, "end": 12, "label": "PER"}]}
    assert {r.field for r in rows} == {"entities"}
    assert set(public_questions(ner, payload)[0]) == {"id", "kind", "prompt", "required", "of", "labels", "max",
                                                      "whole_words", "overlap", "edges", "words"}
    with pytest.raises(AnswerError) as error:
        check_answer(ner, payload, {"entities": [{"start": 0, "end": 12, "label": "PER", "severity": "minor"}]})
    assert "unknown severity" in str(error.value)


def test_an_admin_s_decision_of_an_item_gives_its_severities_and_score_too():
    """t2's severity is a tie: the item goes to adjudication, and the admin's answer ("visit" major) is its gold."""
    gold = declared_gold(DEFINITION, labels_of(DEFINITION, VOTES, PAYLOADS))
    assert undecided(gold) == ["t2"]
    decision = labels_of(DEFINITION, {"t2": [errors({**VISIT, "severity": "major"})]}, PAYLOADS)
    decided = adjudicated(DEFINITION, gold, decision[["item", "unit", "field", "value"]])
    rows = {(r.question, r.unit): (r.gold, r.votes) for r in decided[decided["item"] == "t2"].itertuples()}
    assert rows["errors.severity", "8:13:fluency"] == ("major", "adjudicated")
    assert rows["errors.mqm", "errors"] == ("5", "adjudicated")


def test_agreement_on_a_severity_is_measured_over_the_spans_marked():
    """Units: "cat" on t1 (major, critical, major) and "visit" on t2 (minor, major); "soundly" (one annotator) is
    left out of alpha. Nominal alpha by hand, from the coincidences (ordered pairs of values within a unit, each
    weighted 1 / (m - 1)): "cat" gives major-major 2 / 2 = 1, major-critical 1, critical-major 1; "visit" gives
    minor-major 1, major-minor 1. n_major 3, n_critical 1, n_minor 1, n 5; disagreeing coincidences 4; sum over
    c != k of n_c n_k = 25 - 11 = 14. Alpha = 1 - (n - 1) 4 / 14 = 1 - 16 / 14 = -1/7."""
    frame = agreement_units(DEFINITION, labels_of(DEFINITION, VOTES, PAYLOADS))["errors.severity"]
    assert sorted(frame["unit"].unique()) == ["t1 / 20:27:fluency", "t1 / 4:7:accuracy", "t2 / 8:13:fluency"]
    figure = field_agreement("errors.severity", frame).krippendorff_alpha
    assert figure.value == pytest.approx(-1 / 7)
    assert figure.units == 2
