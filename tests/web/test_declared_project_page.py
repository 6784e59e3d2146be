"""The admin's page for a declared campaign's project: upload the definition and the items, see the located
problem or a preview of the HIT (nothing stored), then create the project (all or nothing)."""
from __future__ import annotations

import csv
import html as html_lib
import io
from pathlib import Path

import pytest
from sqlalchemy import select

from annotator.core.extensions import db
from annotator.core.models import Item, Project
from annotator.declared.definition_reader import definition_from_file
from tests.conftest import stored
from tests.support.declared_projects import DECLARED, EVERY_KIND, make_declared_project, project_and_item_counts
from tests.web.conftest import csrf_token

URL = "/admin/projects/declared/new"
CONTROLS = DECLARED / "controls.csv"


@pytest.fixture
def admin(login, make_user):  # type: ignore[no-untyped-def]
    make_user("boss", role="admin")
    return login("boss")


def _file(path: Path, content: bytes | None = None) -> tuple[io.BytesIO, str]:
    return io.BytesIO(path.read_bytes() if content is None else content), path.name


def _post(client, action: str = "preview", definition=None, items=None, **fields):  # type: ignore[no-untyped-def]
    page = client.get(URL).get_data(as_text=True)
    data = {"csrf_token": csrf_token(page), "slug": "quotes", "name": "", "k": "", "lease_minutes": "30",
            "definition": definition or _file(EVERY_KIND), "beside": [_file(DECLARED / "guidelines.md")],
            "items": items or _file(CONTROLS), "action": action,
            **fields}
    return client.post(URL, content_type="multipart/form-data", data=data)



def test_the_new_project_page_links_to_it(admin):
    assert f'href="{URL}"' in admin.get("/admin/projects/new").get_data(as_text=True)
    assert admin.get("/admin/projects/new/custom").headers["Location"] == URL


def test_an_items_file_with_a_problem_shows_it_located_and_stores_nothing(admin):
    bad = (b"id,text,other,text_id,other_id\nQ_0,Life is defined more by its risks .,Back to Life,Q_0,S_78\n"
           b"S_1,,x,S_1,Q_0\n")
    response = _post(admin, items=_file(DECLARED / "items.csv", bad))
    assert response.status_code == 400
    page = html_lib.unescape(response.get_data(as_text=True))
    assert "Nothing was imported" in page
    assert "<dt>File</dt><dd>items.csv</dd>" in page and "<dt>Line</dt><dd>3</dd>" in page
    assert '<dt>Column</dt><dd>"text"</dd>' in page and "<dt>Problem</dt><dd>empty</dd>" in page
    assert project_and_item_counts() == (0, 0)


def test_a_definition_with_a_problem_shows_its_line_and_key_path(admin):
    bad = b"name: Bad\nshow: [text]\nquestions:\n  - {id: tone, kind: choice, options: [a]}\n"
    response = _post(admin, definition=_file(DECLARED / "task.yaml", bad))
    page = html_lib.unescape(response.get_data(as_text=True))
    assert response.status_code == 400
    assert "<dt>File</dt><dd>task.yaml</dd>" in page and "<dt>Line</dt><dd>4</dd>" in page
    assert "questions[0].options: must list at least two options" in page
    assert project_and_item_counts() == (0, 0)


def test_a_mis_indented_definition_shows_its_line_column_and_what_is_wrong(admin):
    bad = b"name: Tone\nshow: [text]\nquestions:\n  - id: tone\n   kind: choice\n"
    response = _post(admin, definition=_file(DECLARED / "task.yaml", bad))
    page = html_lib.unescape(response.get_data(as_text=True))
    assert response.status_code == 400
    assert "<dt>Line</dt><dd>5</dd>" in page and "<dt>Column</dt><dd>4</dd>" in page
    assert "this line (column 4) is indented less than line 4 above it (its key: column 5)" in page
    assert "<block" not in page
    assert project_and_item_counts() == (0, 0)


def test_a_semicolon_separated_items_file_is_previewed_like_a_comma_separated_one(admin):
    out = io.StringIO()
    csv.writer(out, delimiter=";").writerows(csv.reader(io.StringIO(CONTROLS.read_text(encoding="utf-8"))))
    response = _post(admin, items=_file(CONTROLS, out.getvalue().encode("utf-8")))
    assert response.status_code == 200, html_lib.unescape(response.get_data(as_text=True))
    assert "3 items, 2 of them control items (known answers); 7 questions." in \
        " ".join(response.get_data(as_text=True).split())


def test_valid_files_show_the_hit_of_the_first_item_and_store_nothing(admin):
    response = _post(admin)
    assert response.status_code == 200
    page = response.get_data(as_text=True)
    assert "3 items, 2 of them control items (known answers); 7 questions." in " ".join(page.split())
    preview = html_lib.unescape(page[page.index('srcdoc="') + 8:page.index('"', page.index('srcdoc="') + 8)])
    assert "Life is defined more by its risks than by its samenesses ." in preview   # the first item's quote
    assert "What is the quote&#39;s sentiment?" in preview or "What is the quote's sentiment?" in preview
    assert 'id="create-form"' in page
    assert project_and_item_counts() == (0, 0)


def test_create_after_the_preview_makes_the_project_with_its_items_and_controls(admin):
    page = _post(admin).get_data(as_text=True)
    form = page[page.index('id="create-form"'):]
    response = admin.post("/admin/projects/declared/create", data={"csrf_token": csrf_token(form),
                                                                   "token": _token(form)})
    assert response.status_code == 302 and response.headers["Location"] == "/admin/projects/quotes"
    project = stored(Project, slug="quotes")
    assert (project.task_type, project.name, project.k) == ("custom", "Quotes - tone, cues and pairs", 3)
    assert project.definition == definition_from_file(EVERY_KIND).to_data()
    items = list(db.session.scalars(select(Item).order_by(Item.position)))
    assert [(i.external_id, i.is_control) for i in items] == [("Q_0", True), ("S_1", False), ("S_78", True)]


def test_the_checked_files_create_one_project_only(admin):
    page = _post(admin).get_data(as_text=True)
    form = page[page.index('id="create-form"'):]
    data = {"csrf_token": csrf_token(form), "token": _token(form)}
    assert admin.post("/admin/projects/declared/create", data=data).status_code == 302
    again = admin.post("/admin/projects/declared/create", data=data)
    assert again.status_code == 302 and again.headers["Location"] == URL
    assert project_and_item_counts() == (1, 3)


def test_create_without_a_preview_takes_the_form_fields(admin):
    response = _post(admin, action="create", name="Poster quotes", k="5")
    assert response.status_code == 302
    project = stored(Project, slug="quotes")
    assert (project.name, project.k) == ("Poster quotes", 5)


def test_create_needs_the_csrf_token(admin):
    page = _post(admin).get_data(as_text=True)
    form = page[page.index('id="create-form"'):]
    response = admin.post("/admin/projects/declared/create", data={"token": _token(form)})
    assert response.status_code in (302, 400)
    assert project_and_item_counts() == (0, 0)


def test_a_taken_slug_is_refused_before_reading(admin):
    assert _post(admin, action="create").status_code == 302
    response = _post(admin)
    assert response.status_code == 400
    assert "There is already a project with this slug." in response.get_data(as_text=True)
    assert project_and_item_counts() == (1, 3)


def _token(form_html: str) -> str:
    start = form_html.index('name="token"')
    tag = form_html[form_html.rindex("<", 0, start):form_html.index(">", start)]
    return tag[tag.index('value="') + 7:tag.index('"', tag.index('value="') + 7)]


def test_a_zip_of_the_items_file_is_read_like_the_file(admin):
    import zipfile
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("controls.csv", CONTROLS.read_bytes())
    buffer.seek(0)
    response = _post(admin, action="create", items=(buffer, "items.zip"))
    assert response.status_code == 302, response.get_data(as_text=True)[:2000]
    assert project_and_item_counts() == (1, 3)


# --- more items ------------------------------------------------------------------------------------------

def _more(client, content: bytes, name: str = "more.jsonl"):  # type: ignore[no-untyped-def]
    url = "/admin/projects/declared/quotes/more"
    page = client.get(url).get_data(as_text=True)
    return client.post(url, content_type="multipart/form-data",
                       data={"csrf_token": csrf_token(page), "items": (io.BytesIO(content), name)})


NEW = (b'{"id": "N_1", "text": "Keep calm and carry on .", "other": "Back to Life", "text_id": "N_1", '
       b'"other_id": "S_78"}\n')


def test_the_project_page_links_to_more_items_for_a_declared_project(admin):
    assert _post(admin, action="create").status_code == 302
    assert 'href="/admin/projects/declared/quotes/more"' in admin.get("/admin/projects/quotes").get_data(as_text=True)


def test_more_items_are_read_against_the_projects_definition_and_added(admin):
    assert _post(admin, action="create").status_code == 302
    response = _more(admin, NEW)
    assert response.status_code == 302, response.get_data(as_text=True)[:2000]
    db.session.remove()
    assert [i.external_id for i in db.session.scalars(select(Item).order_by(Item.position))] == \
        ["Q_0", "S_1", "S_78", "N_1"]


def test_more_items_with_a_problem_are_refused_located_and_add_nothing(admin):
    assert _post(admin, action="create").status_code == 302
    response = _more(admin, NEW + NEW.replace(b'"text": "Keep calm and carry on ."', b'"text": ""'))
    page = html_lib.unescape(response.get_data(as_text=True))
    assert response.status_code == 400
    assert "<dt>File</dt><dd>more.jsonl</dd>" in page and "<dt>Line</dt><dd>2</dd>" in page
    assert '<dt>Column</dt><dd>"text"</dd>' in page
    assert project_and_item_counts() == (1, 3)


def test_an_items_file_of_another_kind_is_told_what_it_looks_like(admin):
    """A JSON array is not JSON Lines: the page says what the file looks like and what the campaign reads."""
    items = b'[{"id": "Q_0", "text": "Life", "other": "Back", "text_id": "Q_0", "other_id": "S_78"},\n {"id": "S_1"}]\n'
    response = _post(admin, items=(io.BytesIO(items), "items.jsonl"))
    page = html_lib.unescape(response.get_data(as_text=True))
    assert response.status_code == 400
    assert "items.jsonl looks like JSON; this import expects a CSV, TSV or JSON Lines file of items" in page


def _kept_tokens(page: str) -> dict[str, str]:
    import re
    return dict(re.findall(r'id="(kept_\w+)" name="kept_\w+" type="hidden" value="([^"]*)"', page))


def test_a_refused_check_keeps_the_files_so_only_the_wrong_one_is_chosen_again(admin):
    """A browser cannot fill a file input again: the definition corrected, the items and the guidelines come from
    the last try, and the project is created from them."""
    bad = b"name: Bad\nshow: [text]\nquestions:\n  - {id: tone, kind: choice, options: [a]}\n"
    refused = _post(admin, action="create", definition=_file(DECLARED / "task.yaml", bad))
    page = html_lib.unescape(refused.get_data(as_text=True))
    assert refused.status_code == 400 and "Kept from your last try: " in page and "controls.csv" in page
    tokens = _kept_tokens(page)
    assert tokens["kept_items"] and tokens["kept_beside"]
    again = admin.post(URL, content_type="multipart/form-data", data={
        "csrf_token": csrf_token(page), "slug": "quotes", "name": "", "k": "", "lease_minutes": "30",
        "definition": _file(EVERY_KIND), "action": "create", **tokens})
    assert again.status_code == 302, again.get_data(as_text=True)
    assert stored(Project, slug="quotes") is not None and project_and_item_counts()[1] > 0


def test_a_refused_slug_keeps_both_files(admin):
    _post(admin, action="create")
    refused = _post(admin, action="create")   # the slug is taken now
    page = html_lib.unescape(refused.get_data(as_text=True))
    assert refused.status_code == 400 and "There is already a project with this slug." in page
    assert "Kept from your last try: " in page and EVERY_KIND.name in page and "controls.csv" in page


# --- uploads that used to end in a 500 (issue 42) ----------------------------------------------------------------

@pytest.fixture
def staging(admin, tmp_path, monkeypatch):  # type: ignore[no-untyped-def]
    """The staging folders of this test alone (under its own instance folder)."""
    monkeypatch.setitem(admin.application.config, "INSTANCE_DIR", tmp_path)
    return tmp_path / "staged-declared-projects"


def _staged(root: Path) -> list[Path]:
    return sorted(root.iterdir()) if root.is_dir() else []


def test_a_definition_larger_than_the_limit_is_refused_in_words_unread(admin, staging, monkeypatch):
    monkeypatch.setitem(admin.application.config, "DEFINITION_MAX_BYTES", 4096)
    big = EVERY_KIND.read_bytes() + b"\n# " + b"x" * 5000 + b"\n"
    response = _post(admin, definition=_file(EVERY_KIND, big))
    page = html_lib.unescape(response.get_data(as_text=True))
    assert response.status_code == 400
    assert "<dt>File</dt><dd>every_kind.yaml</dd>" in page
    assert f"the file 'every_kind.yaml' has {len(big):,} bytes; at most 4,096 are read" in page
    assert project_and_item_counts() == (0, 0) and _staged(staging) == []


@pytest.mark.parametrize("line", ['{"id": "S_1", "text": ' + "[" * 50_000 + "]" * 50_000 + "}",
                                  '{"id": "S_1", "text": ' + "9" * 5000 + "}",
                                  '{"id": "S_1", "text": "\\udfff", "other": "x", "text_id": "S_1", '
                                  '"other_id": "Q_0"}'])
@pytest.mark.parametrize("action", ["preview", "create"])
def test_a_jsonl_line_no_database_keeps_is_refused_located(admin, staging, line, action):
    first = b'{"id": "Q_0", "text": "Life", "other": "Back", "text_id": "Q_0", "other_id": "S_78"}\n'
    response = _post(admin, action=action, items=(io.BytesIO(first + line.encode() + b"\n"), "items.jsonl"))
    page = html_lib.unescape(response.get_data(as_text=True))
    assert response.status_code == 400
    assert "<dt>File</dt><dd>items.jsonl</dd>" in page and "<dt>Line</dt><dd>2</dd>" in page
    assert project_and_item_counts() == (0, 0) and _staged(staging) == []


def test_a_preview_names_both_lines_of_an_id_given_twice(admin, staging):
    items = b"id,text,other,text_id,other_id\na,One,Two,a,b\nb,Three,Four,b,c\na,Five,Six,c,d\n"
    response = _post(admin, items=(io.BytesIO(items), "items.csv"))
    page = html_lib.unescape(response.get_data(as_text=True))
    assert response.status_code == 400
    assert "<dt>Line</dt><dd>4</dd>" in page and "the id 'a' is also the id of line 2" in page


def test_create_without_a_preview_names_both_lines_of_an_id_given_twice(admin, staging):
    items = b"id,text,other,text_id,other_id\na,One,Two,a,b\nb,Three,Four,b,c\na,Five,Six,c,d\n"
    response = _post(admin, action="create", items=(io.BytesIO(items), "items.csv"))
    page = html_lib.unescape(response.get_data(as_text=True))
    assert response.status_code == 400
    assert "<dt>Line</dt><dd>4</dd>" in page and "the id 'a' is also the id of line 2" in page
    assert project_and_item_counts() == (0, 0) and _staged(staging) == []


@pytest.mark.parametrize("action", ["preview", "create"])
def test_a_try_that_fails_unexpectedly_leaves_no_staged_files(admin, staging, monkeypatch, action):
    from annotator.declared import items as items_module

    def failing(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise MemoryError("interrupted")
        yield
    monkeypatch.setattr(items_module, "iter_items", failing)
    monkeypatch.setattr("annotator.web.declared_projects.iter_items", failing)
    monkeypatch.setattr("annotator.shared_tasks.custom.exchange.iter_items", failing)
    with pytest.raises(MemoryError):
        _post(admin, action=action)
    assert project_and_item_counts() == (0, 0) and _staged(staging) == []


def test_a_refused_create_after_the_preview_leaves_no_staged_files(admin, staging):
    page = _post(admin).get_data(as_text=True)
    assert len(_staged(staging)) == 1
    form = page[page.index('id="create-form"'):]
    make_declared_project("quotes")     # the slug is taken meanwhile
    response = admin.post("/admin/projects/declared/create", data={"csrf_token": csrf_token(form),
                                                                  "token": _token(form)})
    assert response.status_code == 400
    assert "there is already a project 'quotes'" in html_lib.unescape(response.get_data(as_text=True))
    assert _staged(staging) == []
