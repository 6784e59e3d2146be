"""Nested items through the Flask test client (docs/declared-item-paths.md): the HIT page and the JSON API's item give
what the definition shows (a key path's value, options and tokens without their other keys) and nothing it keeps;
an items file whose key path leads nowhere is refused whole, naming its line and the path."""
from __future__ import annotations

import html as html_lib
import io
import json
import re
from pathlib import Path

import pytest
from sqlalchemy import select

from annotator.core.extensions import db
from annotator.core.models import Item, Label
from annotator.declared.items import load_definition, read_items
from tests.conftest import DATA, load_project
from tests.support.declared_projects import (
    DECLARED,
    jsonl_bytes,
    make_declared_project,
    project_and_item_counts,
    read_jsonl,
)
from tests.web.conftest import CSRF, csrf_token, open_hit_page

ROOT = Path(__file__).resolve().parents[2]
CHECK = ROOT / "examples" / "kpa2021_track2_check.yaml"
CHECK_ITEMS = ROOT / "examples" / "kpa2021_track2_check_items.jsonl"
SHARED_TASKS = ROOT / "annotator" / "shared_tasks"
NEW_URL = "/admin/projects/declared/new"


def _next(api_client, slug: str) -> dict:  # type: ignore[no-untyped-def]
    response = api_client("bot").post(f"/api/v1/projects/{slug}/next")
    assert response.status_code == 200, response.get_data(as_text=True)
    return response.get_json()["assignment"]


def _page(client, slug: str) -> str:  # type: ignore[no-untyped-def]
    page = open_hit_page(client, slug)
    assert page.status_code == 200
    return page.get_data(as_text=True)


# --- the JSON API's item ------------------------------------------------------------------------------------------

def test_the_api_item_gives_a_key_paths_value_and_no_kept_field(api_client, app):
    make_declared_project("check", CHECK, items=read_jsonl(CHECK_ITEMS)[:1])
    first = read_jsonl(CHECK_ITEMS)[0]
    item = _next(api_client, "check")["item"]
    # the example asks what the Track-2 check's definition asks, so its item also carries today's key_point (id and
    # text) for API clients of the built-in type (the bridge's item_keys, docs/one-engine.md); never a kept field
    assert item == {"id": first["id"], "topic": first["topic"], "stance": first["stance"],
                    "argument": first["argument"], "key_point.text": first["key_point"]["text"],
                    "key_point": first["key_point"]}
    assert not {"arg_id", "systems"} & set(item)


def test_a_kept_field_named_like_an_answer_never_reaches_the_api(api_client, app):
    kept = CHECK.read_text("utf-8").replace("keep: [arg_id, systems]", "keep: [arg_id, systems, expert_verdict]")
    make_declared_project("check", kept, items=[{**read_jsonl(CHECK_ITEMS)[0], "expert_verdict": "faulty"}])
    assignment = _next(api_client, "check")
    text = json.dumps(assignment)
    assert "expert_verdict" not in text and "faulty" not in json.dumps(assignment["item"])
    assert "systems" not in text and "gamma_con_2" not in text


def test_the_api_gives_options_with_their_id_and_text_only(api_client, app):
    items = read_jsonl(DECLARED / "kp_match_items.jsonl")[:1]
    make_declared_project("kpa", SHARED_TASKS / "kpa2021" / "match.yaml", items=items)
    assignment = _next(api_client, "kpa")
    assert assignment["item"]["key_points"] == [{"id": kp["id"], "text": kp["text"]} for kp in items[0]["key_points"]]
    assert "position" not in json.dumps(assignment)


def test_the_api_gives_a_span_over_token_objects_as_the_words_texts(api_client, app):
    items = read_jsonl(DECLARED / "emphasis_items.jsonl")[:1]
    make_declared_project("emph", SHARED_TASKS / "emphasis2020" / "selection.yaml", items=items)
    assignment = _next(api_client, "emph")
    texts = [word["text"] for word in items[0]["words"]]
    assert assignment["item"]["words"] == texts
    [question] = assignment["questions"]
    assert question["words"] == texts
    assert '"pos"' not in json.dumps(assignment) and items[0]["words"][0]["id"] not in json.dumps(assignment)


def test_the_api_hides_the_players_read_by_path(api_client, app):
    items = read_jsonl(DECLARED / "compare_items.jsonl")[:1]
    make_declared_project("cmp", SHARED_TASKS / "kpa2021" / "set_compare.yaml", items=items)
    assignment = _next(api_client, "cmp")
    systems = items[0]["systems"]
    assert not any(f'"{name}"' in json.dumps(assignment) for name in systems)
    summary = items[0]["summaries"][systems[0]]
    assert assignment["item"]["summaries.<systems.0>"] == summary


def test_an_api_answer_to_the_span_stores_the_word_ids_as_units(api_client, app):
    items = read_jsonl(DECLARED / "emphasis_items.jsonl")[:1]
    make_declared_project("emph", SHARED_TASKS / "emphasis2020" / "selection.yaml", items=items)
    client = api_client("bot")
    lease = client.post("/api/v1/projects/emph/next").get_json()["assignment"]
    response = client.post(f"/api/v1/assignments/{lease['id']}/submit", json={"answer": {"emphasis": [1]}})
    assert response.status_code in (200, 201), response.get_data(as_text=True)
    db.session.remove()
    rows = db.session.execute(select(Label.field, Label.unit, Label.value)).all()
    units = {row.unit: row.value for row in rows if row.field == "emphasis"}
    assert units == {word["id"]: "1" if n == 1 else "0" for n, word in enumerate(items[0]["words"])}
    tags = {row.unit: row.value for row in rows if row.field == "emphasis.bio"}   # the definition keeps boundaries
    assert tags == {word["id"]: "B" if n == 1 else "O" for n, word in enumerate(items[0]["words"])}


# --- the HIT page -------------------------------------------------------------------------------------------------

def test_the_hit_page_shows_the_key_points_text_and_nothing_kept(app, login, make_user):
    first = read_jsonl(CHECK_ITEMS)[0]
    make_declared_project("check", CHECK, items=[first])
    make_user("ann")
    html = _page(login("ann"), "check")
    assert 'data-field="key_point.text"' in html and html_lib.escape(first["key_point"]["text"]) in html
    for hidden in (first["arg_id"] + "<", first["key_point"]["id"], "gamma_con_2", "0.8372", "key_point_id"):
        assert hidden not in html


def test_the_hit_page_draws_each_summary_read_by_path_as_a_list_without_the_systems(app, login, make_user):
    items = read_jsonl(DECLARED / "compare_items.jsonl")[:1]
    make_declared_project("cmp", SHARED_TASKS / "kpa2021" / "set_compare.yaml", items=items)
    make_user("ann")
    html = _page(login("ann"), "cmp")
    first = items[0]["summaries"][items[0]["systems"][0]]
    assert html_lib.escape(first[0][0]) in html and f"{first[0][1]:.0%}" in html
    assert not any(f">{name}<" in html or f'"{name}"' in html for name in items[0]["systems"])


def test_the_hit_page_shows_the_token_objects_texts_not_their_tags(app, login, make_user):
    items = read_jsonl(DECLARED / "emphasis_items.jsonl")[:1]
    make_declared_project("emph", SHARED_TASKS / "emphasis2020" / "selection.yaml", items=items)
    make_user("ann")
    html = _page(login("ann"), "emph")
    assert all(html_lib.escape(w["text"]) in html for w in items[0]["words"])
    # The page's random tokens (the forms' CSRF tokens) are left out of the search: a token once held "NNP".
    shown = CSRF.sub("", html)
    assert "NNP" not in shown and items[0]["words"][0]["id"] not in shown


# --- the import ---------------------------------------------------------------------------------------------------

@pytest.fixture
def admin(login, make_user):  # type: ignore[no-untyped-def]
    make_user("boss", role="admin")
    return login("boss")


def _create(client, items: bytes, action: str = "create"):  # type: ignore[no-untyped-def]
    page = client.get(NEW_URL).get_data(as_text=True)
    data = {"csrf_token": csrf_token(page), "slug": "check", "name": "", "k": "", "lease_minutes": "30",
            "definition": (io.BytesIO(CHECK.read_bytes()), CHECK.name), "beside": [],
            "items": (io.BytesIO(items), "items.jsonl"), "action": action}
    return client.post(NEW_URL, content_type="multipart/form-data", data=data)




def test_the_built_in_check_items_create_the_project_as_they_are(admin):
    response = _create(admin, CHECK_ITEMS.read_bytes())
    assert response.status_code == 302, response.get_data(as_text=True)[:2000]
    assert project_and_item_counts() == (1, 3)
    stored = {item.external_id: item.payload for item in db.session.scalars(select(Item))}
    for row in read_jsonl(CHECK_ITEMS):
        assert stored[row["id"]]["key_point"] == row["key_point"] and stored[row["id"]]["systems"] == row["systems"]


def test_a_key_path_that_leads_nowhere_refuses_the_whole_file_naming_line_and_path(admin):
    rows = read_jsonl(CHECK_ITEMS)
    rows[1]["key_point"] = "Technology moves too fast"
    response = _create(admin, jsonl_bytes(rows))
    assert response.status_code == 400
    page = html_lib.unescape(response.get_data(as_text=True))
    assert "Nothing was imported" in page
    assert "<dt>Line</dt><dd>2</dd>" in page and '<dt>Column</dt><dd>"key_point.text"</dd>' in page
    assert "key_point is text, not an object or a list: 'text' cannot be read in it" in page
    assert project_and_item_counts() == (0, 0)


def test_the_preview_of_the_check_items_draws_the_key_points_text_without_the_systems(admin):
    response = _create(admin, CHECK_ITEMS.read_bytes(), action="check")
    assert response.status_code == 200, response.get_data(as_text=True)[:2000]
    first = read_jsonl(CHECK_ITEMS)[0]
    page = response.get_data(as_text=True)
    assert html_lib.escape(first["key_point"]["text"]) in page and "gamma_con_2" not in page
    assert project_and_item_counts() == (0, 0)


# --- the admin's pages --------------------------------------------------------------------------------------------

def test_the_admin_item_view_names_each_emphasis_word_by_its_text_and_id(login, make_user, api_client):
    items = read_jsonl(DECLARED / "emphasis_items.jsonl")[:1]
    make_declared_project("emph", SHARED_TASKS / "emphasis2020" / "selection.yaml", items=items, k=1)
    api = api_client("bot")
    lease = api.post("/api/v1/projects/emph/next").get_json()["assignment"]
    assert api.post(f"/api/v1/assignments/{lease['id']}/submit", json={"answer": {"emphasis": [0]}}).status_code < 300
    make_user("boss", role="admin")
    response = login("boss").get("/admin/projects/emph/items/?order=position")
    assert response.status_code == 200, response.get_data(as_text=True)[:2000]
    word = items[0]["words"][0]
    # the span with boundaries is drawn as its text (templates/admin/items/custom.html): each word its text, its id
    # and its counts in its title
    assert re.search(rf'title="{word["id"]}: B 1 · I 0 · O 0 of 1">\s*<span class="w">'
                     rf'{re.escape(html_lib.escape(word["text"]))}</span>', response.get_data(as_text=True))


ANSWERS = {
    "kpa2021/match_check.yaml": lambda n: {"verdict": ("yes", "no", "faulty")[n]},
    "kpa2021/set_compare.yaml": lambda n: {"each_summary": {"A": {"stance": "all_support"},
                                                            "B": {"stance": "most_support"}},
                                           "less_redundant": "AB"[n % 2], "more_central": "equal"},
    "emphasis2020/selection.yaml": lambda n: {"emphasis": [0, n + 1]},
}
ITEMS = {"kpa2021/match_check.yaml": CHECK_ITEMS, "kpa2021/set_compare.yaml": DECLARED / "compare_items.jsonl",
         "emphasis2020/selection.yaml": DECLARED / "emphasis_items.jsonl"}


@pytest.mark.parametrize("path", ["", "/dashboard", "/dawid-skene", "/stats", "/items/?order=position"])
@pytest.mark.parametrize("definition", list(ANSWERS))
def test_the_admins_pages_of_a_voted_project_of_nested_items_open(login, make_user, api_client, definition, path):
    """Gold, agreement, Dawid-Skene and the item view are computed from items read by key path and token id."""
    make_declared_project("nested", SHARED_TASKS / definition, items=read_jsonl(ITEMS[definition])[:1], k=3)
    for n in range(3):
        api = api_client(f"a{n}")
        assignment = api.post("/api/v1/projects/nested/next").get_json()["assignment"]
        assert api.post(f"/api/v1/assignments/{assignment['id']}/submit",
                        json={"answer": ANSWERS[definition](n)}).status_code == 201
    make_user("boss", role="admin")
    page = login("boss").get(f"/admin/projects/nested{path}")
    assert page.status_code == 200, page.get_data(as_text=True)[:1000]


@pytest.mark.parametrize("definition, fmt, path, options", [
    ("kpa2021/match.yaml", "kpa2021", DATA / "kpa2021", {"split": "test"}),
    ("kpa2021/match_check.yaml", "kpa2021-check", DATA / "kpa2021_track2", {"split": "test"}),
    ("kpa2021/set_compare.yaml", "kpa2021-compare", DATA / "kpa2021_track2", {"split": "test"}),
    ("emphasis2020/selection.yaml", "emphasis2020", DATA / "emphasis2020" / "dev_excerpt.txt", {}),
])
def test_the_items_file_reader_reads_the_built_in_items_as_they_are(app, tmp_path, definition, fmt, path, options):
    """Every field of the built-in type's item is read or kept, whole; a shown number is kept as its text (the
    import's rule for shown fields)."""
    built_in = load_project(fmt, path, "built-in", **options)
    payloads = [dict(p) for p in db.session.scalars(select(Item.payload).where(Item.project_id == built_in.id)
                                                    .order_by(Item.position))]
    items = tmp_path / "items.jsonl"
    items.write_text("".join(json.dumps(p, ensure_ascii=False) + "\n" for p in payloads), encoding="utf-8")
    loaded = load_definition(SHARED_TASKS / definition)
    shown = {s.field for s in loaded.show}
    read = read_items(items, loaded)
    assert [(item.external_id, item.payload) for item in read] == \
        [(p["id"], {k: str(v) if k in shown and isinstance(v, int) else v for k, v in p.items() if k != "id"})
         for p in payloads]
