"""An emphasis project imported as a declared project of selection.yaml takes from the JSON API what a built-in
emphasis project takes: every answer of tests/data/api_answer_shapes/emphasis.json, posted for real.

An accepted answer (`{"tags": [...]}`, today's shape) is stored as the definition's answer (the same tags under
the question's id) with the definition's label rows, which are the built-in rows the file lists mapped by the bridge
(shared_tasks/emphasis2020/bridge.py); a refused one gets the same status and the same message as today, and leaves
the lease as it was. The definition's own answer shape is taken too.
"""
from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import select

from annotator.core.extensions import db
from annotator.core.models import Item, Project
from annotator.declared.bridge_base import LabelRow
from annotator.shared_tasks.emphasis2020 import bridge
from tests.support.api_answer_shapes import SLUG, declared_project, expected, run_case, shapes_of

SETUP = shapes_of("emphasis")["projects"][0]


def test_the_import_makes_a_declared_project_of_the_definition(app):
    declared_project(SETUP)
    db.session.remove()
    project = db.session.scalars(select(Project).where(Project.slug == SLUG)).one()
    assert project.task_type == "custom" and project.definition["name"] == "Emphasis selection (SemEval-2020 Task 10)"
    assert project.source == {"format": "emphasis2020", "split": "dev_excerpt"}


@pytest.mark.parametrize("case", SETUP["accepted"], ids=[c["why"] for c in SETUP["accepted"]])
def test_an_answer_taken_today_is_stored_as_the_definitions_answer_and_rows(app, api_client, case: dict[str, Any]):
    got = run_case(SETUP, "accepted", case, api_client, make=declared_project)
    payload = db.session.scalars(select(Item.payload).where(Item.external_id == SETUP["item"])).one()
    mapped = sorted(list(row) for row in bridge.EMPHASIS.labels([LabelRow(*row) for row in case["labels"]], payload))
    assert got == {"status": 201, "stored_answer": {"emphasis": case["answer"]["tags"]}, "labels": mapped,
                   "presentation": None}


@pytest.mark.parametrize("case", SETUP["refused"], ids=[c["why"] for c in SETUP["refused"]])
def test_an_answer_refused_today_is_refused_with_the_same_message(app, api_client, case: dict[str, Any]):
    assert run_case(SETUP, "refused", case, api_client, make=declared_project) == expected("refused", case), case["why"]


def test_the_definitions_own_answer_is_taken_too(app, api_client):
    case = SETUP["accepted"][1]   # one span of two words at the start
    own = {**case, "answer": {"emphasis": case["answer"]["tags"]}}
    got = run_case(SETUP, "accepted", own, api_client, make=declared_project)
    assert got["status"] == 201 and got["stored_answer"] == own["answer"]
    assert ["Q_0_0", "emphasis", "1"] in got["labels"] and ["Q_0_1", "emphasis.bio", "I"] in got["labels"]
