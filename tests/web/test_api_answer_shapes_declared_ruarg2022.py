"""A RuArg-2022 project imported as a declared project of its stage's definition (stance_premise.yaml, or
stance.yaml for the stance stage) takes from the JSON API what a built-in stance_premise project takes: every
answer of tests/data/api_answer_shapes/stance_premise.json, posted for real.

An accepted answer (`{"claims": {claim: {"stance": code, "premise": code}}}`, today's shape) is stored as the
definition's answer, the bridge's conversion of it (shared_tasks/ruarg2022/bridge.py), with the definition's label
rows, which are the built-in rows the file lists mapped by the bridge; a refused one gets the same status and the
same message as today, and leaves the lease as it was. The definition's own answer shape is taken too.
"""
from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import select

from annotator.core.extensions import db
from annotator.core.models import Project
from annotator.declared.bridge_base import LabelRow
from annotator.shared_tasks.ruarg2022 import bridge
from tests.support.api_answer_shapes import SLUG, declared_project, expected, run_case, shapes_of

SETUPS = shapes_of("stance_premise")["projects"]
BRIDGES = {"both": bridge.STANCE_PREMISE, "stance": bridge.STANCE_STAGE}
CASES = [(setup, case) for setup in SETUPS for case in setup["accepted"]]
REFUSED = [(setup, case) for setup in SETUPS for case in setup["refused"]]


def _stage(setup: dict[str, Any]) -> str:
    return str(setup["options"].get("stage", "both"))


@pytest.mark.parametrize("setup", SETUPS, ids=_stage)
def test_the_import_makes_a_declared_project_of_the_stages_definition(app, setup: dict[str, Any]):
    declared_project(setup)
    db.session.remove()
    project = db.session.scalars(select(Project).where(Project.slug == SLUG)).one()
    names = {"both": "Stance and premise per claim (RuArg-2022)",
             "stance": "Stance per claim (RuArg-2022, first stage)"}
    assert (project.task_type, project.definition["name"]) == ("custom", names[_stage(setup)])


@pytest.mark.parametrize(("setup", "case"), CASES, ids=[f"{_stage(s)}: {c['why']}" for s, c in CASES])
def test_an_answer_taken_today_is_stored_as_the_definitions_answer_and_rows(app, api_client, setup: dict[str, Any],
                                                                            case: dict[str, Any]):
    got = run_case(setup, "accepted", case, api_client, make=declared_project)
    used = BRIDGES[_stage(setup)]
    mapped = sorted(list(row) for row in used.labels([LabelRow(*row) for row in case["labels"]], {}))
    assert got == {"status": 201, "stored_answer": used.answer(case["answer"], {}, None), "labels": mapped,
                   "presentation": None}


@pytest.mark.parametrize(("setup", "case"), REFUSED, ids=[f"{_stage(s)}: {c['why']}" for s, c in REFUSED])
def test_an_answer_refused_today_is_refused_with_the_same_message(app, api_client, setup: dict[str, Any],
                                                                  case: dict[str, Any]):
    got = run_case(setup, "refused", case, api_client, make=declared_project)
    assert got == expected("refused", case), case["why"]


def test_the_definitions_own_answer_is_taken_too(app, api_client):
    setup = SETUPS[0]
    own = {"claims": {"masks": {"relevance": "irrelevant"},
                      "quarantine": {"relevance": "relevant", "stance": "2", "premise": "0"},
                      "vaccines": {"relevance": "irrelevant"}}}
    got = run_case(setup, "accepted", {"why": "the definition's shape", "answer": own}, api_client,
                   make=declared_project)
    assert got["status"] == 201 and got["stored_answer"] == own
    assert sorted(got["labels"]) == [["masks", "relevance", "irrelevant"], ["quarantine", "premise", "0"],
                                     ["quarantine", "relevance", "relevant"], ["quarantine", "stance", "2"],
                                     ["vaccines", "relevance", "irrelevant"]]
