"""A declared campaign's HIT page through the Flask test client, and its answers through the JSON API: what the
page shows (and never shows), what a posted form stores, what is refused and where the page says so."""
from __future__ import annotations

import re

import pytest
from flask import Flask
from sqlalchemy import select

from annotator.core.extensions import db
from annotator.core.models import Assignment, Label
from annotator.declared.definition_reader import definition_from_file, definition_from_text
from annotator.tasks.custom import DeclaredTask
from annotator.web.hit_preview import render_preview
from tests.support.declared_projects import EVERY_KIND, EVERY_KIND_ITEMS, make_declared_project, read_jsonl
from tests.web.conftest import csrf_token, open_form, submitted_by

FULL = {"q_sentiment": "positive", "q_sarcastic": "yes", "q_cues": "[0, 2]", "q_themes": ["life", "work"],
        "q_intensity": "4", "q_better": "A", "q_comment": "  fine  "}
ANSWER = {"sentiment": "positive", "sarcastic": "yes", "cues": [0, 2], "themes": ["life", "work"], "intensity": 4,
          "better": "A", "comment": "fine"}


@pytest.fixture
def declared(app):  # type: ignore[no-untyped-def]
    return make_declared_project("quotes")


def _post(client, data: dict) -> tuple[int, str]:  # type: ignore[no-untyped-def]
    html, action = open_form(client, "quotes")
    response = client.post(action, data={"csrf_token": csrf_token(html), **data})
    return response.status_code, response.get_data(as_text=True)


def _fieldset(html: str, qid: str) -> str:
    match = re.search(rf'<fieldset[^>]* id="dq-{qid}".*?</fieldset>', html, re.S)
    assert match, f"no fieldset of {qid}"
    return match.group(0)


# --- the page ----------------------------------------------------------------------------------------

def test_the_page_shows_the_item_every_question_and_its_keys(login, make_user, declared):
    make_user("ann")
    html, _ = open_form(login("ann"), "quotes")
    assert "<title>Quotes - tone, cues and pairs</title>" in html
    assert "Life is defined more by its risks than by its samenesses ." in html
    for qid in ("sentiment", "sarcastic", "cues", "themes", "intensity", "better", "comment"):
        assert f'id="dq-{qid}"' in html
    sentiment = _fieldset(html, "sentiment")
    assert re.findall(r'<kbd class="hint" aria-hidden="true">(\d)</kbd><span>([^<]+)</span>', sentiment) == \
        [("1", "negative"), ("2", "neutral"), ("3", "positive")]
    themes = _fieldset(html, "themes")
    assert '<kbd class="hint" aria-hidden="true">0</kbd><span>None of these</span>' in themes
    assert 'data-when="{&#34;sarcastic&#34;: [&#34;yes&#34;]}"' in _fieldset(html, "cues")
    words = re.findall(r'<button type="button" class="word" data-index="(\d+)"[^>]*>([^<]*)</button>',
                       _fieldset(html, "cues"))
    assert [w for _, w in words][:3] == ["Life", "is", "defined"]
    assert 'maxlength="300"' in _fieldset(html, "comment")
    better = _fieldset(html, "better")
    assert re.findall(r'<p class="side-name">([AB])</p>', better) == ["A", "B"]
    assert "Life is defined" in better and "There is magic" in better
    assert "<kbd>Enter</kbd>" in html


def test_the_guidelines_render_as_markdown_for_a_declared_project_only(login, make_user, declared):
    make_user("ann")
    html, _ = open_form(login("ann"), "quotes")
    guidelines = re.search(r'<details class="guidelines".*?</details>', html, re.S).group(0)
    assert '<div class="markdown">' in guidelines
    assert "<h" in guidelines or "<p>" in guidelines


def test_annotators_never_see_the_players_fields_or_gold(login, make_user, declared, api_client):
    make_user("ann")
    html, _ = open_form(login("ann"), "quotes")
    # text_id / other_id name what A and B are: Q_0 and S_1 must not appear as values (Q_0 is the item id).
    assert "other_id" not in html and "text_id" not in html and "S_1" not in html
    assert "gold" not in html.lower() and "bradley" not in html.lower()
    item = api_client("bot").post("/api/v1/projects/quotes/next").get_json()["assignment"]["item"]
    assert "text_id" not in item and "other_id" not in item


def test_crowd_text_is_escaped(login, make_user, app):
    items = [{"id": "X", "text": "<script>alert('x')</script> <b>bold</b>", "other": "**not bold**",
              "text_id": "X", "other_id": "Y"}]
    make_declared_project("quotes", items=items)
    make_user("ann")
    html, _ = open_form(login("ann"), "quotes")
    assert "<script>alert" not in html
    assert "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;" in html
    assert "<b>bold</b>" not in html


def test_shown_fields_are_drawn_as_declared(login, make_user, app):
    definition = definition_from_text("""
name: Shown kinds
guidelines: "Read **carefully**.\\n\\n<script>alert(1)</script>"
show:
  - {field: head, as: title}
  - {field: body, as: markdown, label: Body}
  - {field: pic, as: image_url, label: A picture}
  - {field: bad, as: image_url, label: Not a URL}
questions:
  - {id: ok, kind: choice, options: ["yes", "no"]}
""")
    make_declared_project("quotes", definition, items=[
        {"id": "1", "head": "The <title>", "body": "Some *emphasis* and <i>raw</i>",
         "pic": "https://example.org/a.png", "bad": "javascript:alert(1)"}])
    make_user("ann")
    client = login("ann")
    html, _ = open_form(client, "quotes")
    assert "img-src 'self' data: https: http:;" in client.get("/p/quotes/").headers["Content-Security-Policy"]
    assert '<h2 class="shown-title">The &lt;title&gt;</h2>' in html
    assert "<em>emphasis</em>" in html and "&lt;i&gt;raw&lt;/i&gt;" in html
    assert '<img class="shown-image" src="https://example.org/a.png" alt="A picture"' in html
    assert 'src="javascript' not in html and '<p class="shown-text">javascript:alert(1)</p>' in html
    assert "<strong>carefully</strong>" in html and "<script>alert(1)" not in html


# --- posting the form --------------------------------------------------------------------------------

def test_a_full_answer_is_stored_with_its_labels(login, make_user, declared):
    make_user("ann")
    status, _ = _post(login("ann"), FULL)
    assert status == 302
    [assignment] = submitted_by("ann")
    assert assignment.answer == ANSWER
    labels = {(label.unit, label.field): label.value for label in db.session.scalars(
        select(Label).where(Label.assignment_id == assignment.id))}
    assert labels[("sentiment", "sentiment")] == "positive"
    assert labels[("0", "cues")] == "1" and labels[("1", "cues")] == "0"
    assert labels[("life", "themes")] == "1" and labels[("love", "themes")] == "0"
    swapped = "better" in ((assignment.presentation or {}).get("swapped") or [])
    assert labels[('["Q_0", "S_1"]', "better")] == ("B" if swapped else "A")


def test_a_pairwise_answer_is_stored_in_the_items_terms_on_either_side_shown(login, make_user, app):
    """Which field is "A" is drawn per item and annotator; "A" pressed on the page is the field shown on the left."""
    make_declared_project("quotes", items=read_jsonl(EVERY_KIND_ITEMS)[:1], k=12)
    stored_as = {}
    for n in range(12):
        make_user(f"ann{n}")
        status, _ = _post(login(f"ann{n}"), FULL)
        assert status == 302
        [assignment] = submitted_by(f"ann{n}")
        swapped = "better" in ((assignment.presentation or {}).get("swapped") or [])
        label = db.session.scalar(select(Label.value).where(Label.assignment_id == assignment.id,
                                                            Label.field == "better"))
        stored_as.setdefault(swapped, set()).add(label)
    assert stored_as == {False: {"A"}, True: {"B"}}   # both sides were shown among the twelve (ann9 and ann11 swapped)


def test_a_question_hidden_by_when_is_sent_as_absent_whatever_its_field_holds(login, make_user, declared):
    make_user("ann")
    status, _ = _post(login("ann"), {**FULL, "q_sarcastic": "no", "q_cues": "[1]"})
    assert status == 302
    [assignment] = submitted_by("ann")
    assert "cues" not in assignment.answer and assignment.answer["sarcastic"] == "no"


def test_missing_answers_are_named_next_to_their_questions(login, make_user, declared):
    make_user("ann")
    data = {k: v for k, v in FULL.items() if k not in ("q_sentiment", "q_intensity", "q_comment")}
    status, html = _post(login("ann"), data)
    assert status == 400
    for qid in ("sentiment", "intensity"):
        assert "Please answer this question." in _fieldset(html, qid)
        assert 'class="card dq dq-' in _fieldset(html, qid) and "has-error" in _fieldset(html, qid)
    assert "error" not in _fieldset(html, "comment")
    assert 'value="positive" checked' not in html  # nothing invented
    assert re.search(r'value="yes"\s+checked|checked[^>]*value="yes"', _fieldset(html, "sarcastic"))
    assert submitted_by("ann") == []


def test_none_cannot_be_combined_with_an_option_and_nothing_ticked_is_refused(login, make_user, declared):
    make_user("ann")
    client = login("ann")
    status, html = _post(client, {**FULL, "q_themes__none": "y"})
    assert status == 400
    assert '"None of these" cannot be combined with an option.' in _fieldset(html, "themes").replace("&#34;", '"')
    status, html = _post(client, {k: v for k, v in FULL.items() if k != "q_themes"})
    assert status == 400
    assert 'Tick every option that applies, or "None of these".' in _fieldset(html, "themes").replace("&#34;", '"')
    status, _ = _post(client, {**{k: v for k, v in FULL.items() if k != "q_themes"}, "q_themes__none": "y"})
    assert status == 302
    assert submitted_by("ann")[0].answer["themes"] == []


def test_values_that_do_not_fit_are_refused_next_to_their_question(login, make_user, declared):
    make_user("ann")
    client = login("ann")
    for field, value, qid, words in (("q_sentiment", "ecstatic", "sentiment", "is not one of"),
                                     ("q_intensity", "9", "intensity", "must be a number from 1 to 5"),
                                     ("q_cues", "[99]", "cues", "word 99 is not in the text"),
                                     ("q_cues", "not json", "cues", "did not arrive"),
                                     ("q_cues", "[" * 100_000 + "]" * 100_000, "cues", "did not arrive"),
                                     ("q_better", "C", "better", "must be"),
                                     ("q_comment", "x" * 301, "comment", "at most 300")):
        status, html = _post(client, {**FULL, field: value})
        assert status == 400, field
        assert words.lower() in _fieldset(html, qid).lower(), (field, _fieldset(html, qid))
    assert submitted_by("ann") == []


def test_an_optional_question_may_be_left_out(login, make_user, declared):
    make_user("ann")
    status, _ = _post(login("ann"), {**FULL, "q_comment": "   "})
    assert status == 302
    assert "comment" not in submitted_by("ann")[0].answer


# --- the API accepts exactly what the page accepts ----------------------------------------------------

def test_the_api_gives_the_items_questions_with_what_each_accepts(api_client, declared):
    assignment = api_client("bot").post("/api/v1/projects/quotes/next").get_json()["assignment"]
    questions = {q["id"]: q for q in assignment["questions"]}
    assert list(questions) == ["sentiment", "sarcastic", "cues", "themes", "intensity", "better", "comment"]
    assert [o["value"] for o in questions["sentiment"]["options"]] == ["negative", "neutral", "positive"]
    assert questions["cues"]["when"] == {"sarcastic": ["yes"]}
    assert questions["cues"]["words"] == assignment["item"]["text"].split()
    assert (questions["intensity"]["min"], questions["intensity"]["max"]) == (1, 5)
    assert questions["better"]["answers"] == ["A", "B", "equal"]
    assert "gold" not in str(assignment).lower()


def test_the_api_gives_a_pairwise_questions_sides_without_swapping_the_fields(api_client, declared):
    item = api_client("bot").post("/api/v1/projects/quotes/next").get_json()["assignment"]["item"]
    sides = item["sides"]["better"]
    assert {sides["A"]["field"], sides["B"]["field"]} == {"text", "other"}
    assert sides["A"]["value"] == item[sides["A"]["field"]] and sides["B"]["value"] == item[sides["B"]["field"]]


def test_the_api_stores_an_answer_object(api_client, declared):
    api = api_client("bot")
    assignment = api.post("/api/v1/projects/quotes/next").get_json()["assignment"]
    response = api.post(f"/api/v1/assignments/{assignment['id']}/submit", json={"answer": ANSWER})
    assert response.status_code == 201, response.get_json()
    [kept] = submitted_by("bot")
    assert kept.id == assignment["id"] and kept.answer == ANSWER
    labels = {(label.unit, label.field): label.value for label in db.session.scalars(
        select(Label).where(Label.assignment_id == kept.id))}
    assert labels[("sentiment", "sentiment")] == "positive" and labels[("life", "themes")] == "1"


@pytest.mark.parametrize("change, qid", [({"sentiment": "ecstatic"}, "sentiment"), ({"intensity": 9}, "intensity"),
                                         ({"cues": [99]}, "cues"), ({"themes": ["life", "sea"]}, "themes"),
                                         ({"sarcastic": "no"}, "cues"), ({"better": None}, "better")])
def test_the_api_refuses_an_answer_that_does_not_fit_naming_the_question(api_client, declared, change, qid):
    api = api_client("bot")
    assignment = api.post("/api/v1/projects/quotes/next").get_json()["assignment"]
    answer = {k: v for k, v in {**ANSWER, **change}.items() if v is not None}
    response = api.post(f"/api/v1/assignments/{assignment['id']}/submit", json={"answer": answer})
    assert response.status_code == 422
    assert qid in response.get_json()["error"]


# --- the preview -------------------------------------------------------------------------------------

def test_the_preview_draws_the_hit_of_a_definition_and_stores_nothing(app: Flask):
    definition = definition_from_file(EVERY_KIND)
    payload = read_jsonl(EVERY_KIND_ITEMS)[0]
    with app.test_request_context("/admin/projects/new", method="POST", data={"q_sentiment": "negative"}):
        html = render_preview(DeclaredTask(definition), definition, payload)
    assert "<title>Quotes - tone, cues and pairs</title>" in html
    assert 'id="preview-note"' in html and "nothing is stored" in html
    assert re.search(r'<button type="submit" id="submit" disabled>', html)
    assert 'action="#"' in html
    assert "Life is defined more by its risks" in html and 'id="dq-better"' in html
    assert "checked" not in html  # the request's own form data is not read
    assert "S_1" not in html  # players stay hidden
    assert db.session.scalars(select(Assignment)).first() is None


# --- the admin's pages ---------------------------------------------------------------------------------

def test_the_admin_item_view_draws_a_declared_item_as_the_generic_table(login, make_user, declared, api_client):
    api = api_client("bot")
    assignment = api.post("/api/v1/projects/quotes/next").get_json()["assignment"]
    assert api.post(f"/api/v1/assignments/{assignment['id']}/submit", json={"answer": ANSWER}).status_code < 300
    make_user("boss", role="admin")
    response = login("boss").get("/admin/projects/quotes/items/?order=position")
    assert response.status_code == 200, response.get_data(as_text=True)[:2000]
    html = response.get_data(as_text=True)
    assert "Life is defined more by its risks" in html


def test_keys_are_the_digits_shown_and_a_scale_from_0_keeps_its_own_numbers(login, make_user, app):
    definition = definition_from_text("""
name: Keys
show: [text]
questions:
  - {id: grade, kind: scale, min: 0, max: 10}
  - {id: half, kind: scale, min: 1, max: 3, step: 0.5}
  - {id: many, kind: choice, options: [a, b, c, d, e, f, g, h, i, j, k]}
""")
    make_declared_project("quotes", definition, items=[{"id": "1", "text": "Some text"}])
    make_user("ann")
    html, _ = open_form(login("ann"), "quotes")
    grade = re.findall(r'<label class="pill"(?: data-key="(\d)")?>', _fieldset(html, "grade"))
    assert grade == [str(n) for n in range(10)] + [""]
    assert re.findall(r'data-key="(\d)"', _fieldset(html, "half")) == ["1", "2", "3", "4", "5"]
    assert re.findall(r'data-key="(\d)"', _fieldset(html, "many")) == [str(n) for n in range(1, 10)]


def test_the_adjudication_pages_of_a_declared_project_without_votes_list_nothing_to_decide(login, make_user,
                                                                                          declared):
    # Declared projects take adjudication since the switch to one engine (declared/adjudication.py): with no
    # votes no item is undecided, an item's page offers the HIT form to decide it, and an unknown item is 404.
    make_user("boss", role="admin")
    client = login("boss")
    listing = client.get("/admin/projects/quotes/review/")
    assert listing.status_code == 200 and "/admin/projects/quotes/review/Q_0" not in listing.get_data(as_text=True)
    page = client.get("/admin/projects/quotes/review/Q_0")
    assert page.status_code == 200 and 'id="dq-sentiment"' in page.get_data(as_text=True)
    assert client.get("/admin/projects/quotes/review/NOPE").status_code == 404


def test_the_mturk_preview_of_a_declared_project_shows_the_hit_disabled(app, declared):
    from annotator.people.crowd import link_token, save_link
    link = save_link(declared, "mturk", 2, "DONE123", "SCREEN9")
    db.session.commit()
    response = app.test_client().get(f"/crowd/quotes/mturk/{link_token(link)}?assignmentId=ASSIGNMENT_ID_NOT_AVAILABLE")
    html = response.get_data(as_text=True)
    assert response.status_code == 200 and 'id="preview-note"' in html
    assert re.search(r"This study asks 2\s+HITs \(" + re.escape(declared.definition["name"]) + r"\) like the example "
                     r"below", html)
    assert re.search(r'<button type="submit" id="submit" disabled>', html)
    assert "Life is defined more by its risks" in html and 'id="dq-better"' in html
    assert "img-src 'self' data: https: http:;" in response.headers["Content-Security-Policy"]
