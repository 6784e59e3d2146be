"""An extractive question through the Flask test client, on the example (examples/extractive_qa.yaml: a passage and a
question about it; the answer is marked only when the question makes sense): the HIT page draws the passage's words
and the unanswerable box, a posted form stores a stretch or unanswerable (read back in a fresh session) and a
refused one names the problem beside the question, the JSON API takes the same answers and refuses a wrong one with a
422 naming what is wrong and storing nothing, crowd text is escaped, and the admin's pages of a voted project open
with gold, the answers' match and the answers in words."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from sqlalchemy import select

from annotator.core.extensions import db
from annotator.core.models import Assignment, Label
from annotator.declared.definition_reader import definition_from_file
from annotator.tasks.custom import DeclaredTask
from annotator.web.hit_preview import render_preview
from tests.support.declared_projects import make_declared_project, read_jsonl
from tests.web.conftest import csrf_token, open_form, submitted_by

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
ITEMS = read_jsonl(EXAMPLES / "extractive_qa_items.jsonl")
ENGINE = {"start": 48, "end": 65}   # "Analytical Engine" in the first passage


@pytest.fixture
def qa(app):  # type: ignore[no-untyped-def]
    return make_declared_project("qa", EXAMPLES / "extractive_qa.yaml", items=ITEMS[:1])


def _labels(assignment: Assignment) -> dict[tuple[str, str], str]:
    return {(label.field, label.unit): label.value for label in db.session.scalars(
        select(Label).where(Label.assignment_id == assignment.id))}


def test_the_page_draws_the_passage_s_words_and_the_unanswerable_box(login, make_user, qa):
    make_user("ann")
    html, _ = open_form(login("ann"), "qa")
    box = html.split('data-spans-of="answer_span"')[1].split("</div>")[0]
    assert 'data-max="1"' in box
    assert '<span class="sw" data-index="9" data-start="48" data-end="58" tabindex="-1">Analytical</span>' in box
    assert re.search(r'<input data-unanswerable="answer_span" id="q_answer_span__none" name="q_answer_span__none"'
                     r' type="checkbox" value="y">', html)
    assert "<span>The passage does not answer the question</span>" in html
    assert html.index("js/declared_spans.js") < html.index("js/declared_extractive.js") < html.index("js/custom.js")


def test_a_posted_mark_is_stored_with_its_text(login, make_user, qa):
    make_user("ann")
    client = login("ann")
    html, action = open_form(client, "qa")
    response = client.post(action, data={"csrf_token": csrf_token(html), "q_sensible": "yes",
                                         "q_answer_span": '[{"start": 48, "end": 65, "label": "answer"}]'})
    assert response.status_code == 302
    [assignment] = submitted_by("ann")
    assert assignment.answer == {"sensible": "yes", "answer_span": {**ENGINE, "text": "Analytical Engine"}}
    assert _labels(assignment)["answer_span", "answer_span"] == "48:65"
    assert _labels(assignment)["answer_span.text", "answer_span"] == "Analytical Engine"


def test_a_ticked_unanswerable_box_is_stored_as_unanswerable(login, make_user, qa):
    make_user("ann")
    client = login("ann")
    html, action = open_form(client, "qa")
    response = client.post(action, data={"csrf_token": csrf_token(html), "q_sensible": "yes", "q_answer_span": "[]",
                                         "q_answer_span__none": "y"})
    assert response.status_code == 302
    [assignment] = submitted_by("ann")
    assert assignment.answer == {"sensible": "yes", "answer_span": {"unanswerable": True}}


@pytest.mark.parametrize("fields, said", [
    ({"q_answer_span": '[{"start": 48, "end": 65, "label": "answer"}]', "q_answer_span__none": "y"},
     "Either mark the answer or tick “The passage does not answer the question”, not both."),
    ({"q_answer_span": "[]"}, "Please answer this question."),
    ({"q_answer_span": '[{"start": 49, "end": 65, "label": "answer"}]'},
     "Start 49 is not at the start of a word of passage (answers cover whole words: the nearest word starts are "
     "44, 48)"),
    ({"q_answer_span": "{not json"}, "The marks did not arrive (is JavaScript on?). Please mark the text again."),
])
def test_a_refused_form_names_the_problem_beside_the_question_and_stores_nothing(login, make_user, qa, fields, said):
    make_user("ann")
    client = login("ann")
    html, action = open_form(client, "qa")
    response = client.post(action, data={"csrf_token": csrf_token(html), "q_sensible": "yes", **fields})
    assert response.status_code == 400
    page = response.get_data(as_text=True).replace("&#34;", '"')
    assert f'<p class="error" role="alert" id="dq-answer_span-error">{said}</p>' in page
    assert submitted_by("ann") == []


def test_the_answer_is_left_out_when_the_question_makes_no_sense(login, make_user, qa):
    """A page without JavaScript sends the mark anyway; `when` drops it, as the API's check would refuse it."""
    make_user("ann")
    client = login("ann")
    html, action = open_form(client, "qa")
    response = client.post(action, data={"csrf_token": csrf_token(html), "q_sensible": "no",
                                         "q_answer_span": '[{"start": 48, "end": 65, "label": "answer"}]'})
    assert response.status_code == 302
    [assignment] = submitted_by("ann")
    assert assignment.answer == {"sensible": "no"}
    assert not any(field.startswith("answer_span") for field, _ in _labels(assignment))


def test_the_api_describes_the_question_and_stores_an_answer(api_client, qa):
    api = api_client("bot")
    assignment = api.post("/api/v1/projects/qa/next").get_json()["assignment"]
    described = assignment["questions"][1]
    assert (described["kind"], described["of"], described["unanswerable"]) == \
        ("extractive", "passage", "The passage does not answer the question")
    assert described["words"][10] == {"start": 59, "end": 65, "text": "Engine"}
    response = api.post(f"/api/v1/assignments/{assignment['id']}/submit",
                        json={"answer": {"sensible": "yes", "answer_span": {**ENGINE, "text": "Analytical Engine"}}})
    assert response.status_code == 201, response.get_json()
    [kept] = submitted_by("bot")
    assert kept.answer["answer_span"] == {**ENGINE, "text": "Analytical Engine"}


@pytest.mark.parametrize("sent, said", [
    ({"start": 48, "end": 900}, "answer_span: [48, 900) is out of range: passage has 147 characters"),
    ({"start": 48, "end": 48}, "answer_span: is empty (start and end are both 48)"),
    ({**ENGINE, "unanswerable": True}, "answer_span: has both a span (start, end) and unanswerable: true"),
    ({"start": "48", "end": 65}, "answer_span: start must be a whole number (a character offset), not '48'"),
    ({"answer_start": 48}, "answer_span: 'answer_start' is not a key of the answer"),
])
def test_the_api_refuses_a_wrong_answer_with_a_422_naming_it_and_stores_nothing(api_client, qa, sent, said):
    api = api_client("bot")
    assignment = api.post("/api/v1/projects/qa/next").get_json()["assignment"]
    response = api.post(f"/api/v1/assignments/{assignment['id']}/submit",
                        json={"answer": {"sensible": "yes", "answer_span": sent}})
    assert response.status_code == 422
    assert said in response.get_json()["error"]
    assert submitted_by("bot") == []
    assert db.session.scalars(select(Label)).first() is None


def test_crowd_text_in_the_passage_is_escaped(login, make_user, app):
    make_declared_project("qa", EXAMPLES / "extractive_qa.yaml",
                          items=[{"id": "x1", "question": "Who <b>wrote</b> it?",
                                  "passage": "<script>alert(1)</script> wrote it & left."}])
    make_user("ann")
    html, _ = open_form(login("ann"), "qa")
    assert "<script>alert(1)</script>" not in html
    assert "&lt;script&gt;" in html and "&amp;" in html and "Who &lt;b&gt;wrote&lt;/b&gt; it?" in html


@pytest.mark.parametrize("path", ["", "/stats", "/items/?order=position"])
def test_the_admins_pages_of_a_voted_project_open(login, make_user, api_client, app, path):
    """Gold, its summary, agreement with the answers' match and the votes in words: three votes on the first item,
    "Analytical Engine" twice and "the Analytical Engine" once: SQuAD's normalisation drops "the", so every pair
    matches exactly (where alpha on the exact offsets sees two answers)."""
    make_declared_project("qa", EXAMPLES / "extractive_qa.yaml", items=ITEMS[:1])
    for name, given in {"a1": ENGINE, "a2": ENGINE, "a3": {"start": 44, "end": 65}}.items():
        api = api_client(name)
        assignment = api.post("/api/v1/projects/qa/next").get_json()["assignment"]
        assert api.post(f"/api/v1/assignments/{assignment['id']}/submit",
                        json={"answer": {"sensible": "yes", "answer_span": given}}).status_code == 201
    make_user("boss", role="admin")
    page = login("boss").get(f"/admin/projects/qa{path}")
    html = page.get_data(as_text=True)
    assert page.status_code == 200, html[:1000]
    if path == "":
        assert "answer_span: a stretch of passage" in html
        assert ("Answers' match (SQuAD)</dt><dd>exact match 1.000, token F1 1.000 (pairs of annotators, mean over 1 "
                "item, 3 pairs)") in html
    if path == "/items/?order=position":
        assert "“Analytical Engine” (48:65)" in html and "“the Analytical Engine” (44:65)" in html


def test_the_admins_preview_draws_the_passage_and_stores_nothing(app):
    definition = definition_from_file(EXAMPLES / "extractive_qa.yaml")
    with app.test_request_context("/admin/projects/declared/new", method="POST"):
        html = render_preview(DeclaredTask(definition), definition, ITEMS[0])
    assert 'id="preview-note"' in html and 'data-spans-of="answer_span"' in html
    assert db.session.scalars(select(Assignment)).first() is None
