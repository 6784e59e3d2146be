"""A ranking question through the Flask test client, on the ranking example (examples/ranking_responses.yaml: three
responses ranked best first, a second ranking shown only when one is said to be unsafe): the HIT page draws a
select of the ranks per response, a posted form stores the order (read back in a fresh session) and a refused one
names the problem beside the question, the JSON API takes the same answer and refuses one that is not a permutation
with a 422 naming what is wrong, and the admin's pages of a voted project open."""
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
ORDER = ["response_b", "response_a", "response_c"]


@pytest.fixture
def ranked(app):  # type: ignore[no-untyped-def]
    return make_declared_project("rank", EXAMPLES / "ranking_responses.yaml",
                                 items=read_jsonl(EXAMPLES / "ranking_responses_items.jsonl"))


def _labels(assignment: Assignment) -> dict[tuple[str, str], str]:
    return {(label.field, label.unit): label.value for label in db.session.scalars(
        select(Label).where(Label.assignment_id == assignment.id))}


def _form(html: str, ranks: dict[str, str], **more: str) -> dict[str, str]:
    """The posted form: the rank chosen for each response of the first question (q_quality__0 is response_a)."""
    return {"csrf_token": csrf_token(html), **{f"q_quality__{n}": ranks.get(field, "")
                                               for n, field in enumerate(("response_a", "response_b", "response_c"))},
            **more}


def test_the_page_draws_a_select_of_the_ranks_per_response(login, make_user, ranked):
    make_user("ann")
    html, _ = open_form(login("ann"), "rank")
    rows = re.findall(r'<select class="rank-select" data-label="([^"]+)" data-option="(\w+)" id="(q_quality__\d)" '
                      r'name="q_quality__\d">', html)
    assert rows == [("Response A", "response_a", "q_quality__0"), ("Response B", "response_b", "q_quality__1"),
                    ("Response C", "response_c", "q_quality__2")]
    assert '<label for="q_quality__1">Response B</label>' in html
    assert re.findall(r'<option value="(\d?)">', html.split('id="q_quality__0"')[1].split("</select>")[0]) == \
        ["", "1", "2", "3"]
    assert "js/declared_ranking.js" in html and html.index("js/declared_ranking.js") < html.index("js/custom.js")
    assert "data-when=\"{&#34;unsafe&#34;: [&#34;yes&#34;]}\"" in html   # the second ranking waits for "yes"


def test_a_posted_form_stores_the_order_and_a_rank_row_per_response(login, make_user, ranked):
    make_user("ann")
    client = login("ann")
    html, action = open_form(client, "rank")
    response = client.post(action, data=_form(html, {"response_b": "1", "response_a": "2", "response_c": "3"},
                                              q_unsafe="no"))
    assert response.status_code == 302
    [assignment] = submitted_by("ann")
    assert assignment.answer == {"quality": ORDER, "unsafe": "no"}
    rows = _labels(assignment)
    assert (rows["quality", "response_b"], rows["quality", "response_a"], rows["quality", "response_c"]) == \
        ("1", "2", "3")
    assert not any(field == "which_unsafe" for field, _ in rows)


def test_the_conditional_ranking_is_stored_when_its_condition_holds(login, make_user, ranked):
    make_user("ann")
    client = login("ann")
    html, action = open_form(client, "rank")
    data = _form(html, {"response_b": "1", "response_a": "2", "response_c": "3"}, q_unsafe="yes",
                 q_which_unsafe__0="3", q_which_unsafe__1="2", q_which_unsafe__2="1")
    assert client.post(action, data=data).status_code == 302
    [assignment] = submitted_by("ann")
    assert assignment.answer["which_unsafe"] == ["response_c", "response_b", "response_a"]
    assert _labels(assignment)["which_unsafe", "response_c"] == "1"


@pytest.mark.parametrize("ranks, said", [
    ({"response_a": "1", "response_b": "1", "response_c": "3"},
     "Rank 1 is given to Response A and Response B; give each rank once."),
    ({"response_a": "1", "response_b": "2"}, "Give every option a rank: Response C has none."),
    ({"response_a": "1", "response_b": "2", "response_c": "9"}, "'9' is not a rank from 1 to 3 (Response C)."),
    ({}, "Please answer this question."),
])
def test_a_refused_form_names_the_problem_beside_the_question_and_stores_nothing(login, make_user, ranked, ranks,
                                                                                 said):
    make_user("ann")
    client = login("ann")
    html, action = open_form(client, "rank")
    response = client.post(action, data=_form(html, ranks, q_unsafe="no"))
    page = response.get_data(as_text=True)
    assert response.status_code == 400
    assert f'<p class="error" role="alert" id="dq-quality-error">{said}</p>' in page.replace("&#39;", "'")
    for n, field in enumerate(("response_a", "response_b", "response_c")):   # the ranks chosen are kept
        select = page.split(f'id="q_quality__{n}"')[1].split("</select>")[0]
        given = ranks.get(field, "")
        kept = [given] if given in ("", "1", "2", "3") else []   # "9" is no option of the select
        assert re.findall(r'<option selected value="(\d*)">', select) == kept
    assert submitted_by("ann") == []


def test_the_api_describes_the_question_and_stores_an_answer(api_client, ranked):
    api = api_client("bot")
    assignment = api.post("/api/v1/projects/rank/next").get_json()["assignment"]
    quality = assignment["questions"][0]
    assert quality["kind"] == "ranking" and quality["fields"] == ["response_a", "response_b", "response_c"]
    assert quality["options"][1] == {"value": "response_b", "label": "Response B"}
    assert quality["answer"] == "the option values in order, best first, each once"
    response = api.post(f"/api/v1/assignments/{assignment['id']}/submit",
                        json={"answer": {"quality": ORDER, "unsafe": "no"}})
    assert response.status_code == 201, response.get_json()
    [kept] = submitted_by("bot")
    assert kept.answer == {"quality": ORDER, "unsafe": "no"}
    assert _labels(kept)["quality", "response_c"] == "3"


@pytest.mark.parametrize("answer, said", [
    ({"quality": ["response_a", "response_a", "response_c"], "unsafe": "no"},
     "quality: 'response_a' is ranked twice (again at place 2); a ranking lists each option once"),
    ({"quality": ["response_a", "response_b"], "unsafe": "no"},
     "quality: 'response_c' is not ranked; a ranking lists every option"),
    ({"quality": ["response_a", "response_b", "response_d"], "unsafe": "no"},
     "quality: 'response_d' is not an option (options: 'response_a', 'response_b', 'response_c')"),
    ({"quality": {"response_a": 1, "response_b": 2, "response_c": 3}, "unsafe": "no"},
     "quality: must be a list of the option values in order, best first"),
    ({"quality": ORDER, "unsafe": "no", "which_unsafe": ORDER},
     "which_unsafe: not asked for this answer (it is shown only when unsafe is 'yes'); leave it out"),
    ({"quality": ORDER, "unsafe": "yes"}, "which_unsafe: an answer is required"),
])
def test_the_api_refuses_an_answer_that_is_not_a_ranking_with_a_422_naming_it(api_client, ranked, answer, said):
    api = api_client("bot")
    assignment = api.post("/api/v1/projects/rank/next").get_json()["assignment"]
    response = api.post(f"/api/v1/assignments/{assignment['id']}/submit", json={"answer": answer})
    assert response.status_code == 422
    assert said in response.get_json()["error"]
    assert submitted_by("bot") == []


@pytest.mark.parametrize("path", ["", "/dashboard", "/stats", "/items/?order=position", "/dawid-skene"])
def test_the_admins_pages_of_a_voted_ranking_project_open(login, make_user, api_client, app, path):
    """Gold, its summary, agreement (with Kendall's W) and the items' gold in words are computed for a ranking: one
    item, three votes (b a c twice, a b c once: rank sums a 5, b 4, c 9 around 6, S = 14, W = 12 * 14 / (9 * 24))."""
    make_declared_project("rank", EXAMPLES / "ranking_responses.yaml",
                          items=read_jsonl(EXAMPLES / "ranking_responses_items.jsonl")[:1])
    orders = {"a1": ORDER, "a2": ORDER, "a3": ["response_a", "response_b", "response_c"]}
    for name, order in orders.items():
        api = api_client(name)
        assignment = api.post("/api/v1/projects/rank/next").get_json()["assignment"]
        assert api.post(f"/api/v1/assignments/{assignment['id']}/submit",
                        json={"answer": {"quality": order, "unsafe": "no"}}).status_code == 201
    make_user("boss", role="admin")
    page = login("boss").get(f"/admin/projects/rank{path}")
    html = page.get_data(as_text=True)
    assert page.status_code == 200, html[:1000]
    if path == "":
        assert "quality: response_b first" in html
        assert "Kendall's W (per item)</dt><dd>0.778 (mean over 1 item, chi² 4.67 on 2 df" in html
    if path == "/items/?order=position":
        assert "Response B (response_b)" in html and "ranked 1st" in html
        assert "Response B &gt; Response A &gt; Response C" in html   # a vote's answer in words


def test_the_admins_preview_draws_the_ranking_and_stores_nothing(app):
    definition = definition_from_file(EXAMPLES / "ranking_responses.yaml")
    payload = read_jsonl(EXAMPLES / "ranking_responses_items.jsonl")[0]
    with app.test_request_context("/admin/projects/declared/new", method="POST"):
        html = render_preview(DeclaredTask(definition), definition, payload)
    assert 'id="preview-note"' in html and 'data-ranking-of="quality"' in html
    assert 'data-ranking-of="which_unsafe"' in html
    assert '<label for="q_quality__2">Response C</label>' in html
    assert db.session.scalars(select(Assignment)).first() is None
