"""The display kinds of a declared HIT through the Flask test client: the page draws a passage with a blank, a list
with its figures and text with its highlights, crowd text escaped in each; the API gives the fields as the item
has them; and an items file with a bad list or highlight is refused whole, with its line and field."""
from __future__ import annotations

import html as html_lib
import io
import re
from pathlib import Path

import pytest
from sqlalchemy import select

from annotator.core.extensions import db
from annotator.core.models import SUBMITTED, Assignment, Label, User
from tests.support.declared_projects import (
    DECLARED,
    jsonl_bytes,
    make_declared_project,
    project_and_item_counts,
    read_jsonl,
)
from tests.web.conftest import csrf_token, open_hit_page

SHOWN_KINDS = DECLARED / "shown_kinds.yaml"
ITEMS = DECLARED / "shown_kinds.jsonl"
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
HOSTILE = '<script>alert("x")</script>'
NEW_URL = "/admin/projects/declared/new"


def _page(client, slug: str = "shown") -> str:  # type: ignore[no-untyped-def]
    page = open_hit_page(client, slug)
    assert page.status_code == 200
    return page.get_data(as_text=True)


def _field(html: str, name: str) -> str:
    match = re.search(rf'<div class="shown-field" data-field="{name}">(.*?)</div>', html, re.S)
    assert match, f"no shown field {name}"
    return match.group(1)


def _hostile_item() -> dict:
    first = read_jsonl(ITEMS)[0]
    return {**first, "question": f"{HOSTILE} brand - new top - @placeholder console <b>now</b>",
            "key_points": [{"text": f"<img src=x onerror=alert(1)> {HOSTILE}", "prevalence": 0.5}, HOSTILE],
            "argument": f"<i>Freedom</i> of {HOSTILE}",
            "argument_highlights": [{"start": 0, "end": 14, "label": HOSTILE}, [18, 18 + len(HOSTILE)]]}


# --- the HIT page ---------------------------------------------------------------------------------------------

def test_the_cloze_text_shows_its_blank_as_a_gap_read_out_as_blank(app, login, make_user):
    make_declared_project("shown", SHOWN_KINDS, items=read_jsonl(ITEMS))
    make_user("ann")
    question = _field(_page(login("ann")), "question")
    assert ('<p class="shown-text shown-blanks">Microsoft have revealed their brand - new top - '
            '<span class="shown-blank"><span class="visually-hidden">blank</span></span> console at a big game show '
            'in America .</p>') in question
    assert "@placeholder" not in question


def test_the_list_shows_each_element_in_order_with_its_share_as_a_percentage(app, login, make_user):
    make_declared_project("shown", SHOWN_KINDS, items=read_jsonl(ITEMS))
    make_user("ann")
    points = _field(_page(login("ann")), "key_points")
    assert '<p class="label">Key points</p>' in points and '<ol class="shown-list">' in points
    assert re.findall(r'<span class="shown-element">([^<]*)</span> <span class="shown-figure"><span '
                      r'class="visually-hidden">share of the arguments: </span>([^<]*)</span>', points) == [
        ("Regulation threatens free speech", "29%"), ("Governments could abuse the power", "29%"),
        ("Regulation would not work", "14%")]


def test_the_highlighted_text_marks_each_stretch_with_its_label_for_a_screen_reader(app, login, make_user):
    make_declared_project("shown", SHOWN_KINDS, items=read_jsonl(ITEMS))
    make_user("ann")
    argument = _field(_page(login("ann")), "argument")
    assert ('is <mark class="shown-mark"><span class="visually-hidden">Regulation would not work: </span>opening the '
            'door to disaster<span class="visually-hidden"> (end)</span></mark><span class="shown-mark-label" '
            'aria-hidden="true">Regulation would not work</span>.</p>') in argument


def test_a_highlight_without_a_label_is_read_out_with_the_definitions_word(app, login, make_user):
    make_declared_project("shown", SHOWN_KINDS, items=read_jsonl(ITEMS)[1:])
    make_user("ann")
    html = _page(login("ann"))
    assert ('<mark class="shown-mark"><span class="visually-hidden">matched: </span>Freedom of speech'
            '<span class="visually-hidden"> (end)</span></mark> should') in _field(html, "argument")
    assert re.findall(r'<li><span class="shown-element">([^<]*)</span></li>', _field(html, "key_points")) == \
        ["Freedom matters", "It is a private matter"]


def test_crowd_text_in_every_display_kind_is_escaped(app, login, make_user):
    make_declared_project("shown", SHOWN_KINDS, items=[_hostile_item()])
    make_user("ann")
    html = _page(login("ann"))
    shown = re.search(r'<section class="card shown".*?</section>', html, re.S).group(0)  # type: ignore[union-attr]
    assert "<script>" not in shown and "<img" not in shown and "<b>" not in shown and "<i>" not in shown
    # the text with its blank, two elements, the argument, and the highlight label read out and shown
    assert shown.count("&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;") == 6
    assert 'class="visually-hidden">&lt;script&gt;' in _field(html, "argument")   # the label, read out
    assert "&lt;img src=x onerror=alert(1)&gt;" in _field(html, "key_points")
    assert "<mark" in _field(html, "argument") and 'class="shown-blank"' in _field(html, "question")


def test_the_api_gives_the_list_and_the_highlights_as_the_item_has_them(api_client, app):
    make_declared_project("shown", SHOWN_KINDS, items=read_jsonl(ITEMS))
    item = api_client("bot").post("/api/v1/projects/shown/next").get_json()["assignment"]["item"]
    first = read_jsonl(ITEMS)[0]
    assert {k: item[k] for k in ("question", "key_points", "argument", "argument_highlights")} == \
        {k: first[k] for k in ("question", "key_points", "argument", "argument_highlights")}


def test_the_recam_example_stores_the_chosen_word_as_the_answer(app, login, make_user):
    make_declared_project("recam", EXAMPLES / "recam2021_cloze.yaml",
                          items=read_jsonl(EXAMPLES / "recam2021_cloze_items.jsonl"))
    make_user("ann")
    client = login("ann")
    html = _page(client, "recam")
    assert re.findall(r'<input id="q_answer-\d" name="q_answer" type="radio" value="([^"]+)"', html) == \
        ["end", "free", "secret", "normal", "concentration"]
    action = re.search(r'action="(/p/recam/a/\d+)"', html).group(1)  # type: ignore[union-attr]
    response = client.post(action, data={"csrf_token": csrf_token(html), "q_answer": "secret",
                                         "q_difficulty": "easy"})
    assert response.status_code == 302
    db.session.remove()   # what the request committed
    [kept] = db.session.scalars(select(Assignment).join(User, User.id == Assignment.user_id).where(
        User.username == "ann", Assignment.status == SUBMITTED))
    assert kept.answer == {"answer": "secret", "difficulty": "easy"}
    rows = db.session.execute(select(Label.unit, Label.field, Label.value).where(Label.assignment_id == kept.id)
                              .order_by(Label.field)).all()
    assert [tuple(r) for r in rows] == [("answer", "answer", "secret"), ("difficulty", "difficulty", "easy")]


def test_the_kpa_example_shows_each_summary_as_a_side_with_its_prevalence(app, login, make_user):
    make_declared_project("kpsets", EXAMPLES / "kpa2021_track2_compare.yaml",
                          items=read_jsonl(EXAMPLES / "kpa2021_track2_compare_items.jsonl"))
    make_user("ann")
    html = _page(login("ann"), "kpsets")
    better = re.search(r'<fieldset[^>]* id="dq-better".*?</fieldset>', html, re.S).group(0)  # type: ignore[union-attr]
    sides = re.findall(r'<div class="side" data-side="([AB])">(.*?)</div>', better, re.S)
    assert [side for side, _ in sides] == ["A", "B"]
    for _, drawn in sides:
        assert re.search(r'<span class="visually-hidden">share of the arguments: </span>\d+%</span>', drawn)
    assert "alpha" not in html and "beta" not in html and "gamma" not in html   # the systems stay hidden


# --- the import: a bad item refuses the whole file ------------------------------------------------------------

@pytest.fixture
def admin(login, make_user):  # type: ignore[no-untyped-def]
    make_user("boss", role="admin")
    return login("boss")


def _create(client, items: bytes, name: str = "items.jsonl"):  # type: ignore[no-untyped-def]
    page = client.get(NEW_URL).get_data(as_text=True)
    data = {"csrf_token": csrf_token(page), "slug": "shown", "name": "", "k": "", "lease_minutes": "30",
            "definition": (io.BytesIO(SHOWN_KINDS.read_bytes()), SHOWN_KINDS.name), "beside": [],
            "items": (io.BytesIO(items), name), "action": "create"}
    return client.post(NEW_URL, content_type="multipart/form-data", data=data)




def test_the_shown_kinds_items_create_the_project(admin):
    response = _create(admin, ITEMS.read_bytes())
    assert response.status_code == 302, response.get_data(as_text=True)[:2000]
    assert project_and_item_counts() == (1, 2)


def test_overlapping_highlights_refuse_the_whole_file_naming_the_line_and_field(admin):
    rows = read_jsonl(ITEMS)
    rows[1]["argument_highlights"] = [[0, 17], [8, 20]]
    response = _create(admin, jsonl_bytes(rows))
    assert response.status_code == 400
    page = html_lib.unescape(response.get_data(as_text=True))
    assert "Nothing was imported" in page
    assert "<dt>Line</dt><dd>2</dd>" in page and '<dt>Column</dt><dd>"argument_highlights"</dd>' in page
    assert "highlight 2 [8, 20] overlaps highlight 1 [0, 17]; highlights must not overlap" in page
    assert project_and_item_counts() == (0, 0)


def test_a_share_above_one_refuses_the_whole_file_naming_the_line_and_field(admin):
    rows = read_jsonl(ITEMS) + [{**read_jsonl(ITEMS)[0], "id": "arg_1_9",
                                 "key_points": [{"text": "Regulation would not work", "prevalence": 14.3}]}]
    response = _create(admin, jsonl_bytes(rows))
    assert response.status_code == 400
    page = html_lib.unescape(response.get_data(as_text=True))
    assert "<dt>Line</dt><dd>3</dd>" in page and '<dt>Column</dt><dd>"key_points"</dd>' in page
    assert "a share is between 0 and 1" in page
    assert project_and_item_counts() == (0, 0)


def test_a_cloze_question_without_its_placeholder_refuses_the_whole_file(admin):
    rows = read_jsonl(ITEMS)
    rows[1]["question"] = rows[1]["question"].replace("@placeholder", "interest")
    response = _create(admin, jsonl_bytes(rows))
    page = html_lib.unescape(response.get_data(as_text=True))
    assert response.status_code == 400 and "<dt>Line</dt><dd>2</dd>" in page
    assert '<dt>Column</dt><dd>"question"</dd>' in page and "holds no '@placeholder'" in page
    assert project_and_item_counts() == (0, 0)
