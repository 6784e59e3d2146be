"""A relations question through the Flask test client, on the example (examples/ner_relations.yaml: names marked in a
sentence, then linked): the HIT page draws the From / Relation / To selects and loads its script after the spans
question's, a posted form stores the relations (read back in a fresh session) and a refused one names the problem
beside the question, the JSON API takes the same answer and refuses a wrong one with a 422 naming what is wrong and
storing nothing, crowd text is escaped, and the admin's pages of a voted project open with gold, relation F1 and each
relation in words on the items page."""
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
ITEMS = read_jsonl(EXAMPLES / "ner_relations_items.jsonl")  # r1: "Ada Lovelace works for Analytical Engines in London."
MARKS = [{"start": 0, "end": 12, "label": "PER"}, {"start": 23, "end": 41, "label": "ORG"},
         {"start": 45, "end": 51, "label": "LOC"}]
WORKS = {"from": "0:12:PER", "to": "23:41:ORG", "label": "works_for"}
LOCATED = {"from": "23:41:ORG", "to": "45:51:LOC", "label": "located_in"}


@pytest.fixture
def rel(app):  # type: ignore[no-untyped-def]
    return make_declared_project("rel", EXAMPLES / "ner_relations.yaml", items=ITEMS[:1])


def _labels(assignment: Assignment, field: str) -> dict[str, str]:
    return {label.unit: label.value for label in db.session.scalars(
        select(Label).where(Label.assignment_id == assignment.id, Label.field == field))}


def test_the_page_draws_the_selects_of_a_relation_and_its_script(login, make_user, rel):
    make_user("ann")
    html, _ = open_form(login("ann"), "rel")
    pick = html.split('data-relations-of="links"')[1].split("</div>")[0]
    assert 'data-spans="entities"' in pick and 'data-max="20"' in pick
    assert '<label for="dq-links-from">From</label>' in pick and '<label for="dq-links-to">To</label>' in pick
    assert '<option value="works_for">works for (Person → Organisation)</option>' in pick
    assert '<option value="located_in">is located in (Organisation or Place → Place)</option>' in pick
    assert '<button type="button" class="secondary" data-relation-add>Add relation</button>' in pick
    assert '<input id="q_links" name="q_links" type="hidden" value="">' in html
    assert 'aria-live="polite" data-relations-said="links"' in html
    assert html.index("js/declared_spans.js") < html.index("js/declared_relations.js") < html.index("js/custom.js")


def test_posted_relations_are_stored_with_a_row_each(login, make_user, rel):
    make_user("ann")
    client = login("ann")
    html, action = open_form(client, "rel")
    response = client.post(action, data={"csrf_token": csrf_token(html), "q_entities": json.dumps(MARKS),
                                         "q_links": json.dumps([LOCATED, WORKS])})
    assert response.status_code == 302
    [assignment] = submitted_by("ann")
    assert assignment.answer == {"entities": MARKS, "links": [WORKS, LOCATED]}
    assert _labels(assignment, "links") == {"0:12:PER->23:41:ORG": "works_for", "23:41:ORG->45:51:LOC": "located_in"}


@pytest.mark.parametrize("links, said", [
    ([{**WORKS, "to": "45:51:LOC"}], "Relation 1: works_for does not go to a mark labelled LOC (it goes from PER to "
                                     "ORG)"),
    ([{**WORKS, "to": "46:51:LOC"}], "Relation 1: to '46:51:LOC' is not one of this answer's marks of entities"),
    ("{not json", "The relations did not arrive (is JavaScript on?). Please add them again."),
])
def test_a_refused_form_names_the_problem_beside_the_question_and_stores_nothing(login, make_user, rel, links, said):
    make_user("ann")
    client = login("ann")
    html, action = open_form(client, "rel")
    response = client.post(action, data={"csrf_token": csrf_token(html), "q_entities": json.dumps(MARKS),
                                         "q_links": links if isinstance(links, str) else json.dumps(links)})
    assert response.status_code == 400
    page = response.get_data(as_text=True).replace("&#34;", '"').replace("&#39;", "'")
    assert re.search(r'<p class="error" role="alert" id="dq-links-error">' + re.escape(said), page), page[-3000:]
    assert submitted_by("ann") == []


def test_the_api_describes_the_question_and_stores_an_answer(api_client, rel):
    api = api_client("bot")
    assignment = api.post("/api/v1/projects/rel/next").get_json()["assignment"]
    described = assignment["questions"][1]
    assert (described["kind"], described["of"], described["max"]) == ("relations", "entities", 20)
    assert described["labels"][0] == {"value": "works_for", "label": "works for", "from": ["PER"], "to": ["ORG"]}
    response = api.post(f"/api/v1/assignments/{assignment['id']}/submit",
                        json={"answer": {"entities": MARKS, "links": [WORKS]}})
    assert response.status_code == 201, response.get_json()
    [kept] = submitted_by("bot")
    assert kept.answer["links"] == [WORKS]


@pytest.mark.parametrize("links, said", [
    ({"from": "0:12:PER"}, "links: must be a list of relations"),
    ([{**WORKS, "weight": 1}], 'links: relation 1: must be an object {"from", "to", "label"} (unknown weight)'),
    ([{**WORKS, "label": "married_to"}], "links: relation 1: 'married_to' is not one of the types 'works_for', "
                                         "'located_in', 'founded'"),
    ([{**WORKS, "from": "0:3:PER"}], "links: relation 1: from '0:3:PER' is not one of this answer's marks of "
                                     "entities"),
    ([{**WORKS, "to": "0:12:PER"}], "links: relation 1: from and to are the same mark (0:12:PER)"),
    ([{**LOCATED, "from": "0:12:PER"}], "links: relation 1: located_in does not go from a mark labelled PER"),
    ([WORKS, WORKS], "links: relation 2: is relation 1 again"),
    ([WORKS] * 21, "links: gives 21 relations; at most 20"),
])
def test_the_api_refuses_a_wrong_answer_with_a_422_naming_it_and_stores_nothing(api_client, rel, links, said):
    api = api_client("bot")
    assignment = api.post("/api/v1/projects/rel/next").get_json()["assignment"]
    response = api.post(f"/api/v1/assignments/{assignment['id']}/submit",
                        json={"answer": {"entities": MARKS, "links": links}})
    assert response.status_code == 422
    assert said in response.get_json()["error"]
    assert submitted_by("bot") == []
    assert db.session.scalars(select(Label)).first() is None


def test_relations_without_the_names_they_link_are_refused_with_a_422(api_client, rel):
    api = api_client("bot")
    assignment = api.post("/api/v1/projects/rel/next").get_json()["assignment"]
    response = api.post(f"/api/v1/assignments/{assignment['id']}/submit", json={"answer": {"links": [WORKS]}})
    assert response.status_code == 422
    assert response.get_json()["error"].startswith("links: entities is not answered in this answer")


def test_crowd_text_in_the_sentence_is_escaped(login, make_user, app):
    make_declared_project("rel", EXAMPLES / "ner_relations.yaml",
                          items=[{"id": "x1", "sentence": "<script>alert(1)</script> works for A & B."}])
    make_user("ann")
    html, _ = open_form(login("ann"), "rel")
    assert "<script>alert(1)</script>" not in html
    assert "&lt;script&gt;" in html and "&amp;" in html


@pytest.mark.parametrize("path", ["", "/stats", "/items/?order=position"])
def test_the_admins_pages_of_a_voted_project_open(login, make_user, api_client, app, path):
    """Three votes on the first sentence: the same three names each time, "works for" given by all three and
    "is located in" by one. Relation F1: every pair shares works_for; pairs with the one who also gave located_in
    have 1 + 2 given, the other pair 1 + 1: 2 * 3 / (3 + 3 + 2) = 0.75."""
    make_declared_project("rel", EXAMPLES / "ner_relations.yaml", items=ITEMS[:1])
    for name, links in {"a1": [WORKS, LOCATED], "a2": [WORKS], "a3": [WORKS]}.items():
        api = api_client(name)
        assignment = api.post("/api/v1/projects/rel/next").get_json()["assignment"]
        assert api.post(f"/api/v1/assignments/{assignment['id']}/submit",
                        json={"answer": {"entities": MARKS, "links": links}}).status_code == 201
    make_user("boss", role="admin")
    page = login("boss").get(f"/admin/projects/rel{path}")
    html = page.get_data(as_text=True)
    assert page.status_code == 200, html[:1000]
    if path == "":
        assert ("Relations' match</dt><dd>relation F1 0.750 (pairs of annotators, pooled over 1 item, 3 pairs: "
                "2 × 3 in common / 8 given)") in html
    if path == "/items/?order=position":
        assert ("“Ada Lovelace” (Person) works for “Analytical Engines” (Organisation); “Analytical Engines” "
                "(Organisation) is located in “London” (Place)") in html
        assert "“Ada Lovelace” (Person) works for “Analytical Engines” (Organisation)" in html


def test_the_admins_preview_draws_the_selects_and_stores_nothing(app):
    definition = definition_from_file(EXAMPLES / "ner_relations.yaml")
    with app.test_request_context("/admin/projects/declared/new", method="POST"):
        html = render_preview(DeclaredTask(definition), definition, ITEMS[0])
    assert 'id="preview-note"' in html and 'data-relations-of="links"' in html and 'data-spans-of="entities"' in html
    assert db.session.scalars(select(Assignment)).first() is None
