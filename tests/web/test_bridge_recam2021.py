"""The bridge from the built-in "cloze" type to cloze_selection.yaml, the whole ReCAM campaign
(annotator/shared_tasks/recam2021/bridge.py).

Answers: every answer of tests/data/api_answer_shapes/cloze.json that today's API takes, converted, is taken by the
declared engine for the definition and gives the mapped label rows; every one it refuses is still refused with
today's message. Votes: the kept database's ReCAM project (tests/data/before_one_engine: known answers on every item,
two control items, an annotator blocked after answering both wrong), its votes mapped into a declared project of the
definition with the items' known answers mapped too, keeps and drops the questions the built-in type's export kept
and dropped, with the same answers, and gives the option and difficulty agreement its `flask agreement` gave. The
items' known answers are set
on the declared items as references (not control items), as a migration stores them and as an items file's
`reference.option` column gives them; evidence inside a word, with white space at an edge or between a letter and its
combining mark is taken as the built-in took it (`edges: code_points`; until then the last two were a strict xfail).
"""
from __future__ import annotations

import csv
import io
import json

import pytest

from annotator.analysis.results import project_agreement
from annotator.core.models import Project
from annotator.declared.answers import check_answer
from annotator.declared.bridge_base import LabelRow, bridges_of
from annotator.declared.definition import UNDECIDED
from annotator.declared.item_view import view
from annotator.declared.items import load_definition, read_items
from annotator.declared.spans import word_bounds
from annotator.figures.kept_gold import gold_frame
from annotator.plugins.registry import shared_task
from annotator.shared_tasks.recam2021 import bridge
from annotator.tasks.base import AnswerError
from tests.support.api_answer_shapes import first_item_payload, row_triples, shapes_of
from tests.support.before_one_engine_projects import EXPORTS, KEPT_ROWS, kept_votes, migrate
from tests.support.declared_api_submit import submit_converted

SHAPES = shapes_of("cloze")["projects"][0]
DEFINITION = load_definition(bridge.DEFINITION)




def test_the_shared_task_registers_the_bridge_to_the_whole_campaign():
    task = shared_task("recam2021")
    assert bridges_of(task) == [bridge.CLOZE]
    assert bridge.CLOZE.task_type == "cloze" and bridge.CLOZE.definition == "cloze_selection.yaml"
    assert bridge.CLOZE.definition in task.definitions


@pytest.mark.parametrize("case", SHAPES["accepted"], ids=[c["why"] for c in SHAPES["accepted"]])
def test_an_accepted_answer_converted_is_accepted_by_the_definition_with_the_mapped_rows(app, case):
    payload = first_item_payload(SHAPES)
    stored, rows = check_answer(DEFINITION, view(DEFINITION, payload), bridge.CLOZE.answer(case["answer"], payload,
                                                                                           None))
    assert row_triples(rows) == row_triples(bridge.CLOZE.labels([LabelRow(*row) for row in case["labels"]], payload))
    # the definition stores the option's value, its position as text ("2"), where today's stored answer has 2
    assert (stored["option"], stored["difficulty"]) == (str(case["answer"]["option"]), case["answer"]["difficulty"])
    for key in ("passage_span", "question_span"):
        span = case["answer"][key]
        assert stored.get(key, []) == ([] if span is None else [{"start": span[0], "end": span[1],
                                                                  "label": "evidence"}])


@pytest.mark.parametrize("case", SHAPES["accepted"], ids=[c["why"] for c in SHAPES["accepted"]])
def test_an_accepted_answer_converted_is_stored_by_the_declared_api_with_the_mapped_rows(app, api_client, case):
    status, rows, stored, payload = submit_converted(SHAPES, bridge.DEFINITION, case["answer"],
                                                     lambda answer, item: bridge.CLOZE.answer(answer, item, None),
                                                     api_client)
    assert status == 201
    assert rows == row_triples(bridge.CLOZE.labels([LabelRow(*row) for row in case["labels"]], payload))
    assert stored["option"] == str(case["answer"]["option"])   # the option's value: its position as text


@pytest.mark.parametrize("case", SHAPES["refused"], ids=[c["why"] for c in SHAPES["refused"]])
def test_a_refused_answer_is_still_refused_with_its_message(app, case):
    with pytest.raises(AnswerError) as refused:
        bridge.CLOZE.answer(case["answer"], first_item_payload(SHAPES), None)
    assert str(refused.value) == case["error"]


def test_a_known_answer_maps_to_the_option_reference_the_rule_reads():
    assert bridge.map_reference({"label": 2}) == {"option": "2"}
    assert bridge.map_reference(None) is None and bridge.map_reference({"label": "2"}) is None


def test_the_project_selection_settings_become_the_rule_parameters():
    changed = bridge.definition_for({"min_accuracy": 0.6, "require_spans": False})
    option = next(q for q in changed.to_data()["questions"] if q["id"] == "option")
    assert option["gold"]["min_accuracy"] == 0.6 and option["gold"]["require_spans"] is False
    assert bridge.definition_for({}).to_data() == DEFINITION.to_data()


def test_rows_that_are_not_one_cloze_vote_are_refused_by_the_mapping():
    with pytest.raises(ValueError, match="is not one cloze vote's label rows"):
        bridge.CLOZE.labels([LabelRow("question", "option", "2")], {"article": "a", "question": "b"})


def test_evidence_inside_a_word_today_taken_is_taken_by_the_definition(app):
    payload = first_item_payload(SHAPES)
    answer = {"option": 2, "passage_span": [1, 5], "question_span": None, "difficulty": "easy"}
    stored, rows = check_answer(DEFINITION, view(DEFINITION, payload), bridge.CLOZE.answer(answer, payload, None))
    assert stored["passage_span"] == [{"start": 1, "end": 5, "label": "evidence"}]
    assert ("1:5:evidence", "passage_span", "1") in row_triples(rows)   # the mark; a row per character too

def test_evidence_with_white_space_at_an_edge_today_taken_is_taken_by_the_definition(app):
    payload = first_item_payload(SHAPES)
    (_, first_end), (_, second_end) = word_bounds(payload["article"])[:2]
    assert payload["article"][first_end].isspace()   # the evidence starts with the space before the second word
    answer = {"option": 2, "passage_span": [first_end, second_end], "question_span": None, "difficulty": "easy"}
    stored, rows = check_answer(DEFINITION, view(DEFINITION, payload), bridge.CLOZE.answer(answer, payload, None))
    assert stored["passage_span"] == [{"start": first_end, "end": second_end, "label": "evidence"}]
    assert (f"{first_end}:{second_end}:evidence", "passage_span", "1") in row_triples(rows)


def test_evidence_between_a_letter_and_its_combining_mark_today_taken_is_taken_by_the_definition(app):
    payload = {**first_item_payload(SHAPES), "question": "The cafe\u0301 opened its @placeholder ."}
    accent = payload["question"].index("\u0301")
    answer = {"option": 2, "passage_span": None, "question_span": [4, accent], "difficulty": "easy"}
    stored, rows = check_answer(DEFINITION, view(DEFINITION, payload), bridge.CLOZE.answer(answer, payload, None))
    assert stored["question_span"] == [{"start": 4, "end": accent, "label": "evidence"}]
    assert (f"4:{accent}:evidence", "question_span", "1") in row_triples(rows)


def test_the_bridge_carries_every_vote_over():
    assert bridge.CLOZE.not_carried_over == ()


def test_each_kept_vote_s_rows_mapped_row_by_row_equal_its_answer_mapped():
    """The row mapping (what a migration applies to label rows) and the answer mapping (the converter, then the
    declared check) agree on every vote the kept project holds."""
    definition = DEFINITION
    votes = kept_votes("cloze-demo")
    assert len(votes) > 10
    for payload, answer, rows in votes:
        _, checked = bridge.map_vote(definition, payload, answer)
        mapped = bridge.CLOZE.labels([LabelRow(*row) for row in rows], payload)
        assert row_triples(mapped) == row_triples(checked), payload["id"]


def test_a_known_answer_in_an_items_file_counts_in_gold_as_the_built_in_s_does(tmp_path):
    """ReCAM's files give every question its known answer (`label`), and the built-in's rules a and c read it on
    every item; an items file of the definition gives it as `reference.option`: the item's reference, the built-in's
    mapped, on an item that is not a control item (so its votes count in gold; tests/web/test_recam_definition.py
    imports the whole excerpt so and compares the gold)."""
    row = {"id": "q1", "article": "Pupils water the beds before lessons.", "options": ["a", "b", "c", "d", "e"],
           "question": "Pupils water the @placeholder .", "reference.option": 2}
    items = tmp_path / "items.jsonl"
    items.write_text(json.dumps(row) + "\n", encoding="utf-8")
    [item] = read_items(items, DEFINITION)
    assert item.reference == bridge.map_reference({"label": 2}) and not item.control


# --- the kept database's project ----------------------------------------------------------------------------------

def _kept_declared() -> Project:
    """The kept project's items and votes carried into a declared project of the definition by the bridge."""
    spec = next(row for row in KEPT_ROWS["projects"] if row["slug"] == "cloze-demo")
    definition = bridge.definition_for(spec["settings"])
    return migrate("cloze-demo", "cloze-declared", definition,
                   lambda payload, answer: bridge.map_vote(definition, payload, answer), bridge.map_reference)


def test_the_kept_project_mapped_gives_the_selection_exported_before_the_change(app):
    """The declared option gold against the questions file the built-in type wrote (pending items included): a kept
    question's answer is its known one, else the majority; a dropped one is undecided; one without votes has none."""
    declared = _kept_declared()
    exported = (EXPORTS / "cloze-demo" / "recam2021--include-incomplete" / "questions.csv").read_text(encoding="utf-8")
    expected = {row["id"]: (row["known"] or row["majority"]) if row["kept"] == "True" else UNDECIDED
                for row in csv.DictReader(io.StringIO(exported)) if row["votes"] != "0"}
    gold = gold_frame(declared, include_incomplete=True)   # as the export was asked to
    found = {str(row.item): str(row.gold) for row in gold[gold["question"] == "option"].itertuples()}
    assert found == expected and UNDECIDED in expected.values()


def test_the_kept_project_mapped_gives_the_option_and_difficulty_agreement_the_built_in_type_gave(app):
    """Against the kept `flask agreement --json` output, which the built-in type wrote."""
    kept = json.loads((EXPORTS / "cloze-demo" / "agreement" / "stdout.txt").read_text(encoding="utf-8"))
    expected = {f["field"]: (f["fleiss_kappa"]["value"], f["krippendorff_alpha"]["value"], f["units"])
                for f in kept["fields"]}
    found = {f.field: (f.fleiss_kappa.value, f.krippendorff_alpha.value, f.units)
             for f in project_agreement(_kept_declared())}
    assert {field: found[field] for field in ("option", "difficulty")} == expected
