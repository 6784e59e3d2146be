"""The bridge from the built-in "emphasis" type to selection.yaml (annotator/shared_tasks/emphasis2020/bridge.py).

Answers: every answer of tests/data/api_answer_shapes/emphasis.json that today's API takes, converted, is taken by
the declared engine for the definition and gives the mapped label rows; every one it refuses is still refused,
with a message naming the fault. Votes: the kept database's emphasis project (tests/data/before_one_engine),
its votes mapped into a declared project of the definition, gives the gold word by word, the selected-or-not
agreement and the agreement over the three tags (the definition keeps the boundaries) that the built-in type gave:
those the kept database's outputs hold (the gold file, `flask agreement`), written by the built-in type before it
was removed.
"""
from __future__ import annotations

import json

import pytest

from annotator.analysis.results import project_agreement
from annotator.core.extensions import db
from annotator.core.models import Project
from annotator.declared.answers import check_answer
from annotator.declared.bridge_base import LabelRow, bridges_of
from annotator.declared.item_view import view
from annotator.declared.items import load_definition
from annotator.figures.kept_gold import gold_frame
from annotator.plugins.registry import shared_task
from annotator.shared_tasks.emphasis2020 import bridge
from annotator.tasks.base import AnswerError
from tests.support.api_answer_shapes import first_item_payload, row_triples, shapes_of
from tests.support.before_one_engine_projects import EXPORTS, kept_votes, migrate
from tests.support.declared_api_submit import submit_converted

SHAPES = shapes_of("emphasis")["projects"][0]
DEFINITION = load_definition(bridge.DEFINITION)




def test_the_shared_task_registers_the_bridge_to_its_definition():
    task = shared_task("emphasis2020")
    assert bridges_of(task) == [bridge.EMPHASIS]
    assert bridge.EMPHASIS.task_type == "emphasis" and bridge.EMPHASIS.definition in task.definitions
    assert bridge.EMPHASIS.not_carried_over == ()   # the definition keeps the B / I / O boundaries


@pytest.mark.parametrize("case", SHAPES["accepted"], ids=[c["why"] for c in SHAPES["accepted"]])
def test_an_accepted_answer_converted_is_accepted_by_the_definition_with_the_mapped_rows(app, case):
    payload = first_item_payload(SHAPES)
    stored, rows = check_answer(DEFINITION, view(DEFINITION, payload), bridge.convert_answer(case["answer"], payload))
    assert row_triples(rows) == row_triples(bridge.EMPHASIS.labels([LabelRow(*row) for row in case["labels"]], payload))
    assert stored == {"emphasis": case["answer"]["tags"]}   # stored as today's tags, under the question's id


@pytest.mark.parametrize("case", SHAPES["accepted"], ids=[c["why"] for c in SHAPES["accepted"]])
def test_an_accepted_answer_converted_is_stored_by_the_declared_api_with_the_mapped_rows(app, api_client, case):
    status, rows, stored, payload = submit_converted(SHAPES, bridge.DEFINITION, case["answer"],
                                                     bridge.convert_answer, api_client)
    assert status == 201
    assert rows == row_triples(bridge.EMPHASIS.labels([LabelRow(*row) for row in case["labels"]], payload))
    assert stored == bridge.convert_answer(case["answer"], payload)


@pytest.mark.parametrize("case", SHAPES["refused"], ids=[c["why"] for c in SHAPES["refused"]])
def test_a_refused_answer_is_still_refused_with_its_message(app, case):
    with pytest.raises(AnswerError) as refused:
        bridge.convert_answer(case["answer"], first_item_payload(SHAPES))
    assert str(refused.value) == case["error"]


def test_a_label_row_that_is_not_an_emphasis_tag_is_refused_by_the_mapping():
    with pytest.raises(ValueError, match="is not an emphasis label row"):
        bridge.map_label("Q_0_0", "bio", "b")


def test_two_adjacent_spans_stay_two_spans_after_the_mapping(app):
    payload = first_item_payload(SHAPES)
    side_by_side = ["O"] * 6 + ["B", "B", "I", "I", "I", "I"]
    one_span = ["O"] * 6 + ["B", "I", "I", "I", "I", "I"]
    assert bridge.convert_answer({"tags": side_by_side}, payload) != bridge.convert_answer({"tags": one_span}, payload)


def test_each_kept_vote_s_rows_mapped_row_by_row_equal_its_answer_mapped():
    """The row mapping (what a migration applies to label rows) and the answer mapping (the converter, then the
    declared check) agree on every vote the kept project holds."""
    definition = DEFINITION
    votes = kept_votes("emphasis-demo")
    assert len(votes) > 10
    for payload, answer, rows in votes:
        _, checked = bridge.map_vote(definition, payload, answer)
        mapped = bridge.EMPHASIS.labels([LabelRow(*row) for row in rows], payload)
        assert row_triples(mapped) == row_triples(checked), payload["id"]


def _kept_declared() -> Project:
    return migrate("emphasis-demo", "emphasis-declared", DEFINITION,
                   lambda payload, answer: bridge.map_vote(DEFINITION, payload, answer))


def _exported_probabilities(step: str) -> dict[str, float]:
    """Each word's probability in the gold file the built-in type wrote (the annotated layout's 5th field)."""
    exported = (EXPORTS / "emphasis-demo" / step / "demo.txt").read_text(encoding="utf-8")
    return {line.split("\t")[0]: float(line.split("\t")[4]) for line in exported.splitlines() if line.strip()}


def test_the_kept_project_mapped_gives_the_built_in_gold_word_by_word(app):
    """The complete sentences' gold (the export without incomplete ones), as the built-in type computed it."""
    declared = _kept_declared()
    db.session.remove()
    expected = _exported_probabilities("emphasis2020")
    gold = gold_frame(db.session.get_one(Project, declared.id))
    found = {row.unit: row.gold for row in gold[gold["question"] == "emphasis"].itertuples()}
    assert found == expected and len(expected) > 20
    assert any(0 < p < 1 for p in expected.values())


def test_the_kept_project_mapped_gives_the_probabilities_exported_before_the_change(app):
    """The declared gold against the file the built-in type wrote with every word of every item, pending ones
    included: the gold compared is the one users got."""
    declared = _kept_declared()
    expected = _exported_probabilities("emphasis2020--include-incomplete")
    gold = gold_frame(declared, include_incomplete=True)   # as the export was asked to
    found = {row.unit: row.gold for row in gold[gold["question"] == "emphasis"].itertuples()}
    assert {unit: found.get(unit) for unit in expected} == expected and len(expected) > 20


def _figures(project: Project) -> dict[str, tuple[float | None, float | None, int]]:
    return {f.field: (f.fleiss_kappa.value, f.krippendorff_alpha.value, f.units) for f in project_agreement(project)}


def _kept_figures() -> dict[str, tuple[float | None, float | None, int]]:
    """The figures `flask agreement` printed for the built-in project (its fields "emphasis" and "bio")."""
    printed = json.loads((EXPORTS / "emphasis-demo" / "agreement" / "stdout.txt").read_text(encoding="utf-8"))
    return {f["field"]: (f["fleiss_kappa"]["value"], f["krippendorff_alpha"]["value"], f["units"])
            for f in printed["fields"]}


def test_the_kept_project_mapped_gives_the_built_in_selected_or_not_agreement(app):
    expected = _kept_figures()["emphasis"]
    assert _figures(_kept_declared())["emphasis"] == pytest.approx(expected) and expected[1] is not None


def test_the_kept_project_mapped_gives_the_built_in_agreement_over_the_three_tags(app):
    expected = _kept_figures()["bio"]
    assert _figures(_kept_declared())[bridge.TAG_FIELD] == pytest.approx(expected) and expected[1] is not None
