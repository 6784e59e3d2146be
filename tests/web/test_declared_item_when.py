"""Item conditions through the Flask test client: RuArg-2022's premise stage as declared (ruarg2022/premise.yaml),
each sentence asking the premise of the claims its `claims` lists. The HIT page draws only those questions, the
JSON API lists only those and refuses an answer to another with a 422 that names the condition, and what is stored
is read back in a fresh session.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from sqlalchemy import select

from annotator.core.extensions import db
from annotator.core.models import SUBMITTED, Assignment, Label
from tests.support.declared_projects import make_declared_project
from tests.web.conftest import csrf_token, open_hit_page

PREMISE = Path(__file__).resolve().parents[2] / "annotator" / "shared_tasks" / "ruarg2022" / "premise.yaml"
SENTENCE = {"id": "17024", "text": "Маски носить надо, и прививку сделать.", "claims": ["masks", "vaccines"]}


@pytest.fixture
def premises(app):  # type: ignore[no-untyped-def]
    return make_declared_project("premises", PREMISE, items=[SENTENCE])


def _rows(assignment_id: int) -> list[tuple[str, str, str]]:
    db.session.remove()
    return sorted((label.unit, label.field, label.value)
                  for label in db.session.scalars(select(Label).where(Label.assignment_id == assignment_id)))


def test_the_hit_page_draws_the_premise_of_the_sentences_claims_only(login, make_user, premises):
    make_user("ann")
    html = open_hit_page(login("ann"), "premises").get_data(as_text=True)
    assert set(re.findall(r'name="q_(\w+)"', html)) == {"masks_premise", "vaccines_premise"}


def test_the_form_stores_the_premises_of_the_sentences_claims(login, make_user, premises):
    make_user("ann")
    client = login("ann")
    page = open_hit_page(client, "premises")
    html = page.get_data(as_text=True)
    action = re.search(r'action="(/p/premises/a/(\d+))"', html)
    assert action is not None
    response = client.post(action.group(1), data={"csrf_token": csrf_token(html), "q_masks_premise": "2",
                                                  "q_vaccines_premise": "1"})
    assert response.status_code in (302, 303), response.get_data(as_text=True)[:1000]
    assert _rows(int(action.group(2))) == [("masks_premise", "masks_premise", "2"),
                                           ("vaccines_premise", "vaccines_premise", "1")]


def test_the_api_lists_the_questions_the_item_asks(api_client, premises):
    assignment = api_client("bot").post("/api/v1/projects/premises/next").get_json()["assignment"]
    assert [q["id"] for q in assignment["questions"]] == ["masks_premise", "vaccines_premise"]
    assert assignment["item"]["claims"] == ["masks", "vaccines"]


def test_the_api_refuses_a_premise_the_item_does_not_ask_and_stores_nothing(api_client, premises):
    api = api_client("bot")
    assignment = api.post("/api/v1/projects/premises/next").get_json()["assignment"]
    answer = {"masks_premise": "2", "quarantine_premise": "0", "vaccines_premise": "1"}
    response = api.post(f"/api/v1/assignments/{assignment['id']}/submit", json={"answer": answer})
    assert response.status_code == 422
    assert response.get_json()["error"] == ("quarantine_premise: not asked for this item (it is asked only when the "
                                            "item's claims holds 'quarantine'); leave it out")
    assert _rows(int(assignment["id"])) == []
    assert db.session.get_one(Assignment, int(assignment["id"])).status != SUBMITTED


def test_the_api_stores_the_answer_to_the_questions_the_item_asks(api_client, premises):
    api = api_client("bot")
    assignment = api.post("/api/v1/projects/premises/next").get_json()["assignment"]
    response = api.post(f"/api/v1/assignments/{assignment['id']}/submit",
                        json={"answer": {"masks_premise": "0", "vaccines_premise": "2"}})
    assert response.status_code == 201, response.get_json()
    assert _rows(int(assignment["id"])) == [("masks_premise", "masks_premise", "0"),
                                            ("vaccines_premise", "vaccines_premise", "2")]
