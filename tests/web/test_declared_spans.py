"""A spans question through the Flask test client: the HIT page draws the text's words with their offsets and the
labels, a posted form stores the marks (read back in a fresh session), the JSON API takes the same answer and
refuses one that does not fit with a 422 naming the span and what is wrong, and the admin's item page says the
units in words. The project is the named-entity example (examples/ner_spans.yaml and its items)."""
from __future__ import annotations

import json
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
SENTENCE = "Ada Lovelace wrote her notes on the Analytical Engine in London."
MARKS = [{"start": 0, "end": 12, "label": "PER"}, {"start": 36, "end": 53, "label": "MISC"},
         {"start": 57, "end": 63, "label": "LOC"}]


@pytest.fixture
def ner(app):  # type: ignore[no-untyped-def]
    return make_declared_project("ner", EXAMPLES / "ner_spans.yaml",
                                 items=read_jsonl(EXAMPLES / "ner_spans_items.jsonl"))


def _labels(assignment: Assignment) -> dict[str, str]:
    return {label.unit: label.value for label in db.session.scalars(
        select(Label).where(Label.assignment_id == assignment.id))}


def test_the_page_draws_the_words_with_their_offsets_and_the_labels(login, make_user, ner):
    make_user("ann")
    html, _ = open_form(login("ann"), "ner")
    words = re.findall(r'<span class="sw" data-index="(\d+)" data-start="(\d+)" data-end="(\d+)"[^>]*>([^<]*)</span>',
                       html)
    assert words[:2] == [("0", "0", "3", "Ada"), ("1", "4", "12", "Lovelace")]
    assert words[-1] == ("11", "63", "64", ".")
    assert re.findall(r'<option value="(\w+)" data-key="(\d)">\d: ([^<]+)</option>', html) == \
        [("PER", "1", "Person"), ("ORG", "2", "Organisation"), ("LOC", "3", "Place"), ("MISC", "4", "Other name")]
    assert '<input id="q_entities" name="q_entities" type="hidden" value="">' in html
    assert "js/declared_spans.js" in html and html.index("js/declared_spans.js") < html.index("js/custom.js")


def test_a_posted_form_stores_the_marks_and_their_label_rows(login, make_user, ner):
    make_user("ann")
    client = login("ann")
    html, action = open_form(client, "ner")
    response = client.post(action, data={"csrf_token": csrf_token(html), "q_entities": json.dumps(MARKS)})
    assert response.status_code == 302
    [assignment] = submitted_by("ann")
    assert assignment.answer == {"entities": MARKS}
    rows = _labels(assignment)
    assert rows["0:12:PER"] == rows["36:53:MISC"] == rows["57:63:LOC"] == "1"
    assert (rows["0:3"], rows["4:12"], rows["36:46"], rows["47:53"], rows["54:56"]) == ("PER", "PER", "MISC", "MISC",
                                                                                        "O")


def test_a_refused_form_names_the_problem_beside_the_question_and_keeps_the_marks(login, make_user, ner):
    make_user("ann")
    client = login("ann")
    html, action = open_form(client, "ner")
    posted = json.dumps([{"start": 0, "end": 12, "label": "PER"}, {"start": 4, "end": 18, "label": "ORG"}])
    response = client.post(action, data={"csrf_token": csrf_token(html), "q_entities": posted})
    page = response.get_data(as_text=True)
    assert response.status_code == 400
    assert '<p class="error" role="alert" id="dq-entities-error">Span 2: overlaps span 1 (0 to 12); the spans of ' \
           'this question may not share a character.</p>' in page
    assert 'value="[{&#34;start&#34;: 0' in page   # the script puts the posted marks back
    assert submitted_by("ann") == []


def test_a_form_without_the_script_field_leaves_the_optional_question_out(login, make_user, ner):
    make_user("ann")
    client = login("ann")
    html, action = open_form(client, "ner")
    assert client.post(action, data={"csrf_token": csrf_token(html), "q_entities": ""}).status_code == 302
    assert submitted_by("ann")[0].answer == {}


def test_the_api_describes_the_question_and_stores_an_answer(api_client, ner):
    api = api_client("bot")
    assignment = api.post("/api/v1/projects/ner/next").get_json()["assignment"]
    [question] = assignment["questions"]
    assert question["kind"] == "spans" and question["max"] == 20 and question["whole_words"] is True
    assert [label["value"] for label in question["labels"]] == ["PER", "ORG", "LOC", "MISC"]
    assert question["words"][1] == {"start": 4, "end": 12, "text": "Lovelace"}
    assert assignment["item"]["sentence"] == SENTENCE
    answer = {"entities": [{**MARKS[2], "text": "London"}, MARKS[0], MARKS[1]]}
    response = api.post(f"/api/v1/assignments/{assignment['id']}/submit", json={"answer": answer})
    assert response.status_code == 201, response.get_json()
    [kept] = submitted_by("bot")
    assert kept.answer == {"entities": MARKS}   # in text order, without the client's "text"
    assert _labels(kept)["57:63:LOC"] == "1"


@pytest.mark.parametrize("marks, said", [
    ({"start": 0, "end": 12, "label": "PER"}, 'entities: must be a list of spans {"start": int, "end": int, '
                                              '"label": text} ([] for none)'),
    ([{"start": 0, "end": 12}], 'entities: span 1: must be an object {"start", "end", "label"} (and optionally '
                                '"text") (missing label)'),
    ([{"start": 57, "end": 99, "label": "LOC"}], "entities: span 1: [57, 99) is not a stretch of the text: it needs "
                                                 "0 <= start < end <= 64 (characters, end exclusive)"),
    ([{"start": 12, "end": 0, "label": "PER"}], "entities: span 1: [12, 0) is not a stretch of the text"),
    ([{"start": 57, "end": 63, "label": "GPE"}], "entities: span 1: 'GPE' is not one of the labels 'PER', 'ORG', "
                                                 "'LOC', 'MISC'"),
    ([{"start": 1, "end": 12, "label": "PER"}], "entities: span 1: start 1 is not at the start of a word of "
                                                "sentence"),
    ([{"start": 0, "end": 12, "label": "PER"}, {"start": 4, "end": 12, "label": "PER"}],
     "entities: span 2: overlaps span 1 (0 to 12)"),
    ([{"start": 57, "end": 63, "label": "LOC", "text": "Londo"}], "entities: span 1: \"text\" is 'Londo' but "
                                                                  "characters 57 to 63 are 'London'"),
    ([{"start": 0, "end": 3, "label": "PER"}] * 2, "entities: span 2: is span 1 again"),
])
def test_the_api_refuses_an_answer_that_does_not_fit_with_a_422_naming_it(api_client, ner, marks, said):
    api = api_client("bot")
    assignment = api.post("/api/v1/projects/ner/next").get_json()["assignment"]
    response = api.post(f"/api/v1/assignments/{assignment['id']}/submit", json={"answer": {"entities": marks}})
    assert response.status_code == 422
    assert said in response.get_json()["error"]
    assert submitted_by("bot") == []


def test_more_marks_than_max_are_refused(api_client, ner):
    api = api_client("bot")
    assignment = api.post("/api/v1/projects/ner/next").get_json()["assignment"]
    words = assignment["questions"][0]["words"]
    marks = [{"start": w["start"], "end": w["end"], "label": "MISC"} for w in words] * 2
    response = api.post(f"/api/v1/assignments/{assignment['id']}/submit", json={"answer": {"entities": marks}})
    assert response.status_code == 422
    assert response.get_json()["error"].endswith("entities: marks 24 spans; at most 20")


def test_the_admin_item_page_says_the_gold_units_in_words(login, make_user, api_client, app):
    first = read_jsonl(EXAMPLES / "ner_spans_items.jsonl")[:1]
    make_declared_project("ner", EXAMPLES / "ner_spans.yaml", items=first)
    for name in ("a1", "a2"):
        api = api_client(name)
        assignment = api.post("/api/v1/projects/ner/next").get_json()["assignment"]
        assert api.post(f"/api/v1/assignments/{assignment['id']}/submit",
                        json={"answer": {"entities": MARKS}}).status_code == 201
    make_user("boss", role="admin")
    page = login("boss").get("/admin/projects/ner/items/?order=position")
    html = page.get_data(as_text=True)
    assert page.status_code == 200
    assert "“Ada Lovelace” as Person (characters 0 to 12)" in html
    assert "“London” (characters 57 to 63)" in html


@pytest.mark.parametrize("path", ["", "/dashboard", "/dawid-skene", "/stats", "/items/?order=position"])
def test_the_admins_pages_of_a_voted_spans_project_open(login, make_user, api_client, ner, path):
    """Gold, its summary, agreement and Dawid-Skene's per-word fields are computed for a spans question."""
    for name in ("a1", "a2", "a3"):
        api = api_client(name)
        assignment = api.post("/api/v1/projects/ner/next").get_json()["assignment"]
        words = assignment["questions"][0]["words"]
        marks = [{"start": words[0]["start"], "end": words[1]["end"], "label": "PER"}] if name != "a3" else []
        assert api.post(f"/api/v1/assignments/{assignment['id']}/submit",
                        json={"answer": {"entities": marks}}).status_code == 201
    make_user("boss", role="admin")
    page = login("boss").get(f"/admin/projects/ner{path}")
    assert page.status_code == 200, page.get_data(as_text=True)[:1000]
    if path == "":
        assert "entities: gold spans" in page.get_data(as_text=True)


def test_the_admins_preview_draws_the_spans_question_and_stores_nothing(app):
    definition = definition_from_file(EXAMPLES / "ner_spans.yaml")
    payload = read_jsonl(EXAMPLES / "ner_spans_items.jsonl")[0]
    with app.test_request_context("/admin/projects/declared/new", method="POST"):
        html = render_preview(DeclaredTask(definition), definition, payload)
    assert 'id="preview-note"' in html and 'data-spans-of="entities"' in html
    assert '<span class="sw" data-index="10" data-start="57" data-end="63" tabindex="-1">London</span>' in html
    assert db.session.scalars(select(Assignment)).first() is None


def test_crowd_text_in_the_words_is_escaped(login, make_user, app):
    text = '<img src=x onerror="alert(1)"> Ada & <b>Bob</b>'
    make_declared_project("ner", EXAMPLES / "ner_spans.yaml", items=[{"id": "x", "sentence": text}])
    make_user("ann")
    html, _ = open_form(login("ann"), "ner")
    widget = html[html.index('data-spans-of="entities"'):html.index('id="q_entities"')]
    assert "<img" not in widget and "<b>" not in widget
    assert '>&lt;</span>' in widget and '>&amp;</span>' in widget and ">Bob</span>" in widget
