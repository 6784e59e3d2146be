"""The `table` and `dialogue` display kinds through the Flask test client and `flask export`: the HIT page draws
the table with its headers in a region the keyboard reaches and the dialogue turn by turn with its speakers, crowd
text escaped; the API gives the fields as the item has them; a bad items file is refused whole with its line and
field; the published dataset keeps the rows and turns as the items gave them."""
from __future__ import annotations

import html as html_lib
import io
import json
import re
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from tests.conftest import load_project
from tests.support.declared_projects import jsonl_bytes, make_declared_project, project_and_item_counts, read_jsonl
from tests.web.conftest import csrf_token, open_hit_page

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
TABLE = EXAMPLES / "table_claim_check.yaml"
TABLE_ITEMS = EXAMPLES / "table_claim_check_items.jsonl"
DIALOGUE = EXAMPLES / "dialogue_quality.yaml"
DIALOGUE_ITEMS = EXAMPLES / "dialogue_quality_items.jsonl"
HOSTILE = '<script>alert("x")</script>'
NEW_URL = "/admin/projects/declared/new"


def _page(client, slug: str) -> str:  # type: ignore[no-untyped-def]
    page = open_hit_page(client, slug)
    assert page.status_code == 200
    return page.get_data(as_text=True)


def test_the_table_is_drawn_with_its_headers_row_headers_and_cells_in_a_named_region(app, login, make_user):
    make_declared_project("cities", TABLE, items=read_jsonl(TABLE_ITEMS)[:1])
    make_user("ann")
    html = _page(login("ann"), "cities")
    assert '<div class="shown-table" tabindex="0" role="region" aria-label="The table">' in html
    table = html.split('role="region" aria-label="The table">', 1)[1].split("</table>", 1)[0]
    assert re.findall(r'<th scope="col">([^<]*)</th>', table) == ["City", "Country", "Population (thousands)",
                                                                 "Capital"]
    rows = re.findall(r"<tr><th scope=\"row\">([^<]*)</th>((?:<td>[^<]*</td>)*)</tr>", table)
    assert [(head, re.findall(r"<td>([^<]*)</td>", cells)) for head, cells in rows] == [
        ("Saint Petersburg", ["Russia", "5600", "false"]), ("Stockholm", ["Sweden", "980", "true"]),
        ("Riga", ["Latvia", "610", "true"]), ("Gdańsk", ["Poland", "470", "false"])]


def test_the_dialogue_is_drawn_turn_by_turn_after_each_speaker_on_alternating_sides(app, login, make_user):
    make_declared_project("talk", DIALOGUE, items=read_jsonl(DIALOGUE_ITEMS)[:1])
    make_user("ann")
    html = _page(login("ann"), "talk")
    turns = re.findall(r'<li class="shown-turn shown-turn-(\d)"><span class="shown-speaker">([^<]*)<span '
                       r'class="visually-hidden">:</span></span><span class="shown-turn-text">([^<]*)</span></li>',
                       html)
    assert turns == [("0", "User", "I forgot my password and the reset e-mail never arrives."),
                     ("1", "Assistant", "Check your spam folder first; the message comes from no-reply@example.org."),
                     ("0", "User", "Found it, thanks!")]


def test_crowd_text_in_a_table_and_a_dialogue_is_escaped(app, login, make_user):
    cities = {**read_jsonl(TABLE_ITEMS)[0], "table": [{"city": HOSTILE, "country": "<b>x</b>", "population": 1,
                                                      "capital": None}]}
    make_declared_project("cities", TABLE, items=[cities])
    make_declared_project("talk", DIALOGUE, items=[{"id": "c9", "dialogue": [{"speaker": HOSTILE, "text": HOSTILE}]}])
    make_user("ann")
    client = login("ann")
    for slug, count in (("cities", 1), ("talk", 2)):
        shown = re.search(r'<section class="card shown".*?</section>', _page(client, slug), re.S).group(0)  # type: ignore[union-attr]
        assert "<script>" not in shown and "<b>" not in shown
        assert shown.count("&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;") == count


def test_the_api_gives_the_table_and_the_dialogue_as_the_item_has_them(api_client, app):
    make_declared_project("cities", TABLE, items=read_jsonl(TABLE_ITEMS)[:1])
    make_declared_project("talk", DIALOGUE, items=read_jsonl(DIALOGUE_ITEMS)[:1])
    bot = api_client("bot")
    table = bot.post("/api/v1/projects/cities/next").get_json()["assignment"]["item"]["table"]
    dialogue = bot.post("/api/v1/projects/talk/next").get_json()["assignment"]["item"]["dialogue"]
    assert table == read_jsonl(TABLE_ITEMS)[0]["table"]
    assert dialogue == read_jsonl(DIALOGUE_ITEMS)[0]["dialogue"]


@pytest.fixture
def admin(login, make_user):  # type: ignore[no-untyped-def]
    make_user("boss", role="admin")
    return login("boss")


def _create(client, definition: Path, items: bytes) -> object:  # type: ignore[no-untyped-def]
    page = client.get(NEW_URL).get_data(as_text=True)
    data = {"csrf_token": csrf_token(page), "slug": "shown", "name": "", "k": "", "lease_minutes": "30",
            "definition": (io.BytesIO(definition.read_bytes()), definition.name), "beside": [],
            "items": (io.BytesIO(items), "items.jsonl"), "action": "create"}
    return client.post(NEW_URL, content_type="multipart/form-data", data=data)


def test_a_short_row_refuses_the_whole_file_naming_the_line_field_and_row(admin):
    rows = read_jsonl(TABLE_ITEMS)
    rows[2]["table"] = [["Vienna", "Austria", 2000, True], ["Budapest", "Hungary"]]
    response = _create(admin, TABLE, jsonl_bytes(rows))
    assert response.status_code == 400  # type: ignore[attr-defined]
    page = html_lib.unescape(response.get_data(as_text=True))  # type: ignore[attr-defined]
    assert "Nothing was imported" in page
    assert "<dt>Line</dt><dd>3</dd>" in page and '<dt>Column</dt><dd>"table"</dd>' in page
    assert "mixes rows" not in page and "row 2 has 2 cells; the header has 4" in page
    assert project_and_item_counts() == (0, 0)


def test_a_turn_without_text_refuses_the_whole_file_naming_the_line_field_and_turn(admin):
    rows = read_jsonl(DIALOGUE_ITEMS)
    rows[1]["dialogue"][1] = {"speaker": "Assistant"}
    response = _create(admin, DIALOGUE, jsonl_bytes(rows))
    assert response.status_code == 400  # type: ignore[attr-defined]
    page = html_lib.unescape(response.get_data(as_text=True))  # type: ignore[attr-defined]
    assert "<dt>Line</dt><dd>2</dd>" in page and '<dt>Column</dt><dd>"dialogue"</dd>' in page
    assert "turn 2 has no 'text' key (its text)" in page
    assert project_and_item_counts() == (0, 0)


def test_the_published_dataset_keeps_the_rows_and_the_turns_as_the_items_gave_them(app, tmp_path):
    for slug, definition, items, field in (("cities", TABLE, TABLE_ITEMS, "table"),
                                           ("talk", DIALOGUE, DIALOGUE_ITEMS, "dialogue")):
        load_project("custom", items, slug, definition=definition)
        out = tmp_path / slug
        result = app.test_cli_runner().invoke(args=["export", "custom", "--project", slug, "--out", str(out)])
        assert result.exit_code == 0, result.output
        kept = pq.read_table(out / "dataset" / "items.parquet").column(field).to_pylist()
        values = [json.loads(v) if isinstance(v, str) else v for v in kept]
        assert values == [row[field] for row in read_jsonl(items)]
