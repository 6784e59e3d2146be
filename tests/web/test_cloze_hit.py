"""The ReCAM cloze HIT over the test client and the API: a new ReCAM project is a declared project of
cloze_selection.yaml (since the switch to one engine), so these are the declared page's fields and the definition's
answers; the API keeps taking today's answer shapes (the bridge) with today's refusals."""
from __future__ import annotations

import json
import re

import pytest

from annotator.core.models import Assignment, Item, Project
from tests.conftest import DATA, load_project, stored
from tests.web.conftest import csrf_token, open_hit_page


@pytest.fixture
def cloze(app):  # type: ignore[no-untyped-def]
    return load_project("recam2021", DATA / "recam2021" / "Task_1_dev_excerpt.jsonl", "cz")


def _page(client):  # type: ignore[no-untyped-def]
    page = open_hit_page(client, "cz").get_data(as_text=True)
    return page, re.search(r'action="(/p/cz/a/\d+)"', page).group(1)


def test_the_project_is_a_declared_project_of_the_definition(cloze):
    project = stored(Project, slug="cz")
    assert (project.task_type, project.definition["name"]) == \
        ("custom", "Cloze validation with ReCAM's selection rules (SemEval-2021 Task 4)")


def test_the_page_shows_passage_question_and_options_as_words_with_offsets(cloze, make_user, login):
    make_user("ann")
    page, _ = _page(login("ann"))
    item = stored(Item, external_id="0")
    # "12 June 2017 ...": the first word with its offsets, each character too (the evidence takes any offset)
    assert '<span class="sw" data-index="0" data-start="0" data-end="2" tabindex="0"><span class="sc" data-start="0" ' \
           'data-end="1">1</span><span class="sc" data-start="1" data-end="2">2</span></span>' in page
    assert 'class="shown-blank"' in page and "@placeholder" not in page
    assert all(f"<span>{option}</span>" in page for option in item.payload["options"])
    assert 'name="q_passage_span"' in page and 'name="q_question_span"' in page
    assert "checked" not in page  # nothing hints at the known answer (option 2, "secret")


def test_both_evidence_questions_say_the_rules_need_them_so_the_page_asks_before_a_submit_without(cloze, make_user,
                                                                                                   login):
    """Rule b drops an annotation without both marks: their fieldsets carry data-needed, which the page's script
    reads (tests/browser/test_cloze_hit.py); the option and difficulty do not."""
    make_user("ann")
    page, _ = _page(login("ann"))
    needed = re.findall(r'<fieldset [^>]*data-question="(\w+)"[^>]*data-needed', page)
    assert needed == ["passage_span", "question_span"]


def test_without_rule_b_no_question_is_needed(app, make_user, login):
    load_project("recam2021", DATA / "recam2021" / "Task_1_dev_excerpt.jsonl", "cz", require_spans=False)
    make_user("ann")
    page, _ = _page(login("ann"))
    assert "data-needed" not in page


def test_a_form_answer_is_stored_with_its_spans(cloze, make_user, login):
    make_user("ann")
    client = login("ann")
    page, action = _page(client)
    mark = [{"start": 0, "end": 12, "label": "evidence"}]
    response = client.post(action, data={"csrf_token": csrf_token(page), "q_option": "2", "q_difficulty": "easy",
                                         "q_passage_span": json.dumps(mark), "q_question_span": "[]"})
    assert response.status_code == 302
    assert stored(Assignment, status="submitted").answer == {"option": "2", "difficulty": "easy",
                                                             "passage_span": mark, "question_span": []}


def test_a_span_outside_the_text_is_refused_on_the_page_and_nothing_is_stored(cloze, make_user, login):
    make_user("ann")
    client = login("ann")
    page, action = _page(client)
    outside = [{"start": 0, "end": 99999, "label": "evidence"}]
    response = client.post(action, data={"csrf_token": csrf_token(page), "q_option": "2", "q_difficulty": "easy",
                                         "q_passage_span": json.dumps(outside), "q_question_span": "[]"})
    assert response.status_code == 400
    assert "Span 1: [0, 99999) is not a stretch of the text" in response.get_data(as_text=True)
    assert stored(Assignment, status="submitted") is None


def test_the_api_item_has_the_documented_shape(cloze, api_client):
    lease = api_client("bot").post("/api/v1/projects/cz/next").get_json()["assignment"]
    assert list(lease["item"]) == ["id", "article", "question", "options"]
    assert len(lease["item"]["options"]) == 5 and "label" not in lease["item"]


@pytest.mark.parametrize("answer, words", [
    ({"option": 7, "passage_span": None, "question_span": None, "difficulty": "hard"}, "not an option index"),
    ({"option": 1, "passage_span": [0, 100000], "question_span": None, "difficulty": "hard"}, "not a span"),
    ({"option": 1, "passage_span": None, "question_span": [4, 4], "difficulty": "hard"}, "not a span"),
])
def test_the_api_refuses_bad_answers_with_422(cloze, api_client, answer, words):
    api = api_client("bot")
    lease = api.post("/api/v1/projects/cz/next").get_json()["assignment"]
    response = api.post(f"/api/v1/assignments/{lease['id']}/submit", json={"answer": answer})
    assert response.status_code == 422 and words in response.get_json()["error"]


def test_the_api_accepts_null_spans(cloze, api_client):
    api = api_client("bot")
    lease = api.post("/api/v1/projects/cz/next").get_json()["assignment"]
    answer = {"option": 1, "passage_span": None, "question_span": None, "difficulty": "hard"}
    assert api.post(f"/api/v1/assignments/{lease['id']}/submit", json={"answer": answer}).status_code == 201
    assert stored(Assignment, status="submitted").answer == {"option": "1", "difficulty": "hard",
                                                             "passage_span": [], "question_span": []}


def test_the_admin_page_shows_the_decisions_and_the_ordinal_difficulty_alpha(cloze, api_client, make_user, login):
    for name, difficulty in (("bot", "easy"), ("bot2", "hard")):
        api = api_client(name)
        lease = api.post("/api/v1/projects/cz/next").get_json()["assignment"]
        answer = {"option": 2, "passage_span": [0, 2], "question_span": [0, 9], "difficulty": difficulty}
        assert api.post(f"/api/v1/assignments/{lease['id']}/submit", json={"answer": answer}).status_code == 201
    make_user("root", role="admin")
    page = login("root").get("/admin/projects/cz").get_data(as_text=True)
    # the gold classes named by the definition's question (a dropped question is the option's "undecided")
    assert "option: undecided" in page and "Krippendorff's alpha (ordinal)" in page
    assert "Krippendorff's alpha (nominal)" in page  # the option


def test_the_admin_item_view_shows_each_annotations_evidence_as_text_and_the_decision(cloze, api_client, make_user,
                                                                                      login):
    api = api_client("bot")
    lease = api.post("/api/v1/projects/cz/next").get_json()["assignment"]
    answer = {"option": 2, "passage_span": [39, 76], "question_span": [0, 9], "difficulty": "medium"}
    assert api.post(f"/api/v1/assignments/{lease['id']}/submit", json={"answer": answer}).status_code == 201
    make_user("root", role="admin")
    page = login("root").get("/admin/projects/cz/items/?order=position").get_data(as_text=True)
    assert "Previously code-named Project Scorpio" in page and "Microsoft" in page
    assert "kept: 1 of 1 valid annotations chose the known answer" in page
