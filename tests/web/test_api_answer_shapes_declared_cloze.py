"""A ReCAM project imported as a declared project of cloze_selection.yaml takes from the JSON API what a built-in
cloze project takes: every answer of tests/data/api_answer_shapes/cloze.json, posted for real.

The definition's question ids are today's answer keys (option, passage_span, question_span, difficulty), so the two
shapes are told apart by the evidence: today's is [start, end] or null, the definition's a list of marks. An
accepted answer of today's shape is stored as the definition's answer (the option's position as text, each evidence
as one mark labelled "evidence", `[]` when null) with the definition's label rows, which are the built-in rows the
file lists mapped by the bridge (shared_tasks/recam2021/bridge.py); a refused one gets the same status and the same
message as today, and leaves the lease as it was. The definition's own answer shape is taken too.
"""
from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import select

from annotator.core.extensions import db
from annotator.core.models import Item, Project
from annotator.declared.bridge_base import LabelRow
from annotator.shared_tasks.recam2021 import bridge
from tests.support.api_answer_shapes import SLUG, declared_project, expected, run_case, shapes_of

SETUP = shapes_of("cloze")["projects"][0]


def _definitions_answer(answer: dict[str, Any]) -> dict[str, Any]:
    """Today's answer as the definition stores it, written out here from the definition's terms."""
    marks = {key: [] if answer[key] is None else [{"start": answer[key][0], "end": answer[key][1], "label": "evidence"}]
             for key in ("passage_span", "question_span")}
    return {"option": str(answer["option"]), "difficulty": answer["difficulty"], **marks}


def test_the_import_makes_a_declared_project_of_the_whole_campaign(app):
    declared_project(SETUP)
    db.session.remove()
    project = db.session.scalars(select(Project).where(Project.slug == SLUG)).one()
    assert project.task_type == "custom"
    assert project.definition["name"] == "Cloze validation with ReCAM's selection rules (SemEval-2021 Task 4)"


@pytest.mark.parametrize("case", SETUP["accepted"], ids=[c["why"] for c in SETUP["accepted"]])
def test_an_answer_taken_today_is_stored_as_the_definitions_answer_and_rows(app, api_client, case: dict[str, Any]):
    got = run_case(SETUP, "accepted", case, api_client, make=declared_project)
    payload = db.session.scalars(select(Item.payload).where(Item.external_id == SETUP["item"])).one()
    mapped = sorted(list(row) for row in bridge.CLOZE.labels([LabelRow(*row) for row in case["labels"]], payload))
    assert got == {"status": 201, "stored_answer": _definitions_answer(case["answer"]), "labels": mapped,
                   "presentation": None}


@pytest.mark.parametrize("case", SETUP["refused"], ids=[c["why"] for c in SETUP["refused"]])
def test_an_answer_refused_today_is_refused_with_the_same_message(app, api_client, case: dict[str, Any]):
    assert run_case(SETUP, "refused", case, api_client, make=declared_project) == expected("refused", case), case["why"]


def test_the_definitions_own_answer_is_taken_too(app, api_client):
    case = SETUP["accepted"][1]   # both spans: passage [39, 76], question [0, 9]
    own = {**case, "answer": {"option": "2", "difficulty": "medium", "question_span": [],
                              "passage_span": [{"start": 39, "end": 76, "label": "evidence"}]}}
    got = run_case(SETUP, "accepted", own, api_client, make=declared_project)
    assert got["status"] == 201
    assert got["stored_answer"] == own["answer"]
    assert ["option", "option", "2"] in got["labels"] and ["39:76:evidence", "passage_span", "1"] in got["labels"]
