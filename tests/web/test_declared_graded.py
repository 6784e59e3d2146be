"""A graded pairwise question through the Flask test client, on the graded example
(examples/graded_pairwise_responses.yaml: seven grades from "A is much better" to "B is much better", and three
with the tie "Both equally correct"): the HIT page draws a radio per grade in the definition's words, a posted form
stores the grade as shown and labels it in the item's terms (read back in a fresh session), the JSON API describes
the grades and refuses an ungraded answer with a 422, and the admin's pages of a voted project open."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from sqlalchemy import select

from annotator.core.extensions import db
from annotator.core.models import SUBMITTED, Assignment, Label
from annotator.declared.graded import flipped
from tests.support.declared_projects import make_declared_project, read_jsonl
from tests.web.conftest import csrf_token, open_form, submitted_by

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
VALUES = ["A3", "A2", "A1", "equal", "B1", "B2", "B3"]
GRADES = ["A is much better", "A is better", "A is slightly better", "About the same", "B is slightly better",
          "B is better", "B is much better"]


@pytest.fixture
def graded(app):  # type: ignore[no-untyped-def]
    return make_declared_project("graded", EXAMPLES / "graded_pairwise_responses.yaml",
                                 items=read_jsonl(EXAMPLES / "graded_pairwise_responses_items.jsonl"))


def _labels(assignment: Assignment) -> dict[str, str]:
    return {label.field: label.value for label in db.session.scalars(
        select(Label).where(Label.assignment_id == assignment.id))}


def test_the_page_draws_a_radio_per_grade_in_the_definition_s_words_with_digit_keys(login, make_user, graded):
    make_user("ann")
    html, _ = open_form(login("ann"), "graded")
    preference = html.split('id="dq-preference"')[1].split("</fieldset>")[0]
    pills = re.findall(r'<label class="pill" data-key="(\d)"><input id="q_preference-\d" name="q_preference" '
                       r'type="radio" value="(\w+)"><kbd class="hint" aria-hidden="true">\d</kbd><span>([^<]+)</span>',
                       preference)
    assert pills == [(str(n + 1), value, words) for n, (value, words) in
                     enumerate(zip(["A3", "A2", "A1", "equal", "B1", "B2", "B3"], GRADES))]
    correctness = html.split('id="dq-correctness"')[1].split("</fieldset>")[0]
    assert re.findall(r"<span>([^<]+)</span>", correctness)[-3:] == \
        ["A is more correct", "Both equally correct", "B is more correct"]


def test_a_posted_grade_is_stored_as_shown_and_labelled_in_the_item_s_terms(login, make_user, graded):
    make_user("ann")
    client = login("ann")
    html, action = open_form(client, "graded")
    data = {"csrf_token": csrf_token(html), "q_preference": "A3", "q_correctness": "equal"}
    assert client.post(action, data=data).status_code == 302
    [assignment] = submitted_by("ann")
    assert assignment.answer == {"preference": "A3", "correctness": "equal"}
    swapped = "preference" in ((assignment.presentation or {}).get("swapped") or ())
    rows = _labels(assignment)
    assert (rows["preference"], rows["preference.grade"]) == (("B", "3") if swapped else ("A", "-3"))
    assert (rows["correctness"], rows["correctness.grade"]) == ("equal", "0")


def test_a_plain_side_is_refused_beside_the_graded_question_and_nothing_is_stored(login, make_user, graded):
    make_user("ann")
    client = login("ann")
    html, action = open_form(client, "graded")
    response = client.post(action, data={"csrf_token": csrf_token(html), "q_preference": "A",
                                         "q_correctness": "equal"})
    assert response.status_code == 400
    assert 'id="dq-preference-error">Must be &#39;A3&#39;, &#39;A2&#39;, &#39;A1&#39;, &#39;equal&#39;' in \
        response.get_data(as_text=True)
    assert submitted_by("ann") == []


def test_the_api_describes_the_grades_and_stores_a_graded_answer(api_client, graded):
    api = api_client("bot")
    assignment = api.post("/api/v1/projects/graded/next").get_json()["assignment"]
    preference = assignment["questions"][0]
    assert preference["kind"] == "pairwise"
    assert preference["answers"] == ["A3", "A2", "A1", "equal", "B1", "B2", "B3"]
    assert [g["label"] for g in preference["grades"]] == GRADES
    response = api.post(f"/api/v1/assignments/{assignment['id']}/submit",
                        json={"answer": {"preference": "B1", "correctness": "A1"}})
    assert response.status_code == 201, response.get_json()
    [kept] = submitted_by("bot")
    assert kept.answer == {"preference": "B1", "correctness": "A1"}
    swapped = "preference" in ((kept.presentation or {}).get("swapped") or ())
    assert _labels(kept)["preference.grade"] == ("-1" if swapped else "1")   # B slightly better, as shown


@pytest.mark.parametrize("answer, said", [
    ({"preference": "A", "correctness": "A1"}, "preference: must be 'A3', 'A2', 'A1', 'equal', 'B1', 'B2', 'B3'"),
    ({"preference": "B4", "correctness": "A1"}, "preference: must be 'A3'"),
    ({"preference": "A1", "correctness": "A2"}, "correctness: must be 'A1', 'equal', 'B1'"),
    ({"preference": 3, "correctness": "A1"}, "preference: must be 'A3'"),
])
def test_the_api_refuses_a_value_that_is_no_grade_with_a_422_naming_it(api_client, graded, answer, said):
    api = api_client("bot")
    assignment = api.post("/api/v1/projects/graded/next").get_json()["assignment"]
    response = api.post(f"/api/v1/assignments/{assignment['id']}/submit", json={"answer": answer})
    assert response.status_code == 422
    assert said in response.get_json()["error"]
    assert submitted_by("bot") == []


@pytest.mark.parametrize("path", ["", "/dashboard", "/stats", "/items/?order=position", "/dawid-skene"])
def test_the_admins_pages_of_a_voted_graded_project_open(login, make_user, api_client, app, path):
    make_declared_project("graded", EXAMPLES / "graded_pairwise_responses.yaml",
                          items=read_jsonl(EXAMPLES / "graded_pairwise_responses_items.jsonl")[:1])
    for name, grade in (("a1", "A3"), ("a2", "A2"), ("a3", "equal")):
        api = api_client(name)
        assignment = api.post("/api/v1/projects/graded/next").get_json()["assignment"]
        assert api.post(f"/api/v1/assignments/{assignment['id']}/submit",
                        json={"answer": {"preference": grade, "correctness": "equal"}}).status_code == 201
    make_user("boss", role="admin")
    page = login("boss").get(f"/admin/projects/graded{path}")
    html = page.get_data(as_text=True)
    assert page.status_code == 200, html[:1000]
    if path == "":
        assert "<dt>Krippendorff's alpha (ordinal)</dt>" in html    # the grades' own field
        assert "preference.grade" in html
    if path == "/items/?order=position":   # each vote's grade in words, in the item's terms
        db.session.remove()
        for kept in db.session.scalars(select(Assignment).where(Assignment.status == SUBMITTED)):
            swapped = "preference" in ((kept.presentation or {}).get("swapped") or ())
            in_item_terms = flipped(kept.answer["preference"]) if swapped else kept.answer["preference"]
            assert f"<td>{GRADES[VALUES.index(in_item_terms)]}</td><td>Both equally correct</td>" in html
