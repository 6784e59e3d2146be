"""Projects from the browser: new project from uploaded files, more items, archive, delete, who may annotate."""
from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest
from flask import url_for
from markupsafe import escape
from sqlalchemy import func, select

from annotator.core.extensions import db
from annotator.core.models import Item, Project, User
from annotator.engine import assignment as engine
from annotator.lookups.formats import FORMATS
from tests.conftest import DATA, stored
from tests.web.conftest import csrf_token

KPA = DATA / "kpa2021"
EMPHASIS = DATA / "emphasis2020"
KPA_FILES = ("arguments_test.csv", "key_points_test.csv", "labels_test.csv")


@pytest.fixture
def admin(login, make_user):  # type: ignore[no-untyped-def]
    make_user("boss", role="admin")
    return login("boss")


def _upload(path: Path, name: str | None = None) -> tuple[io.BytesIO, str]:
    return io.BytesIO(path.read_bytes()), name or path.name


def _zip(files: dict[str, bytes]) -> tuple[io.BytesIO, str]:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, content in files.items():
            archive.writestr(name, content)
    buffer.seek(0)
    return buffer, "upload.zip"


def _ticked(format_name: str) -> dict[str, str]:
    """The format's boxes ticked by default, as a browser sends the form untouched (emphasis2020's `declared`)."""
    return {o.name: "y" for o in FORMATS[format_name].import_options if o.type is bool and o.default}


def _new_project(client, format_name: str, files, **fields):  # type: ignore[no-untyped-def]
    url = f"/admin/projects/new/{format_name}"
    page = client.get(url).get_data(as_text=True)
    data = {"csrf_token": csrf_token(page), "name": "My project", "slug": "mine", "k": "3", "lease_minutes": "20",
            "guidelines": "Read carefully.", "files": files, **_ticked(format_name), **fields}
    return client.post(url, content_type="multipart/form-data", data=data)


def _projects() -> int:
    db.session.remove()
    return db.session.scalar(select(func.count()).select_from(Project))


def test_the_new_project_page_offers_every_registered_format(app, admin):
    html = admin.get("/admin/projects/new").get_data(as_text=True)
    for name, fmt in FORMATS.items():
        with app.test_request_context():  # a format with a new-project page of its own is linked to it
            href = url_for(fmt.new_project) if fmt.new_project else f"/admin/projects/new/{name}"
        assert f'href="{href}"' in html and escape(fmt.title) in html


def test_a_project_is_created_from_uploaded_files_with_its_fields_and_settings(admin):
    response = _new_project(admin, "kpa2021", [_upload(KPA / name) for name in KPA_FILES], split="test",
                            positive_threshold="0.7", negative_threshold="0.2")
    assert response.status_code == 302 and response.headers["Location"] == "/admin/projects/mine"
    project = stored(Project, slug="mine")
    assert (project.name, project.k, project.lease_minutes, project.guidelines) == ("My project", 3, 20,
                                                                                  "Read carefully.")
    assert project.source == {"format": "kpa2021", "split": "test"}
    # a declared project of match.yaml (the box ticked by default): the thresholds are its share rule's
    gold = project.definition["questions"][0]["gold"]
    assert (project.task_type, project.settings, gold["positive"], gold["negative"]) == ("custom", {}, 0.7, 0.2)
    assert db.session.scalar(select(func.count()).select_from(Item)) == 26
    reference = db.session.scalar(select(Item.reference).where(Item.external_id == "arg_1_0"))
    assert reference and set(reference.values()) <= {0, 1}


def test_a_new_projects_guidelines_typed_in_a_browser_are_stored_with_lf_line_ends(admin):
    response = _new_project(admin, "kpa2021", [_upload(KPA / name) for name in KPA_FILES], split="test",
                            guidelines="Read carefully.\r\n\r\nThen choose.\rOld Mac line.")
    assert response.status_code == 302
    assert stored(Project, slug="mine").guidelines == "Read carefully.\n\nThen choose.\nOld Mac line."


def test_a_zip_of_the_folder_works_as_well(admin):
    files = {f"kpm_data/{name}": (KPA / name).read_bytes() for name in KPA_FILES}
    assert _new_project(admin, "kpa2021", [_zip(files)], split="test").status_code == 302
    assert stored(Project, slug="mine").source["split"] == "test"


def test_a_bad_file_is_refused_with_file_line_and_column_and_nothing_is_created(admin):
    lines = (KPA / "arguments_test.csv").read_text(encoding="utf-8").splitlines(keepends=True)
    lines[5] = lines[5].rsplit(",", 1)[0] + ",2\n"  # stance 2 on the sixth physical line
    files = [(io.BytesIO("".join(lines).encode()), "arguments_test.csv"),
             *(_upload(KPA / name) for name in KPA_FILES[1:])]
    response = _new_project(admin, "kpa2021", files, split="test")
    html = response.get_data(as_text=True)
    assert response.status_code == 400 and "Nothing was imported" in html
    assert "<dt>File</dt><dd>arguments_test.csv</dd>" in html
    assert "<dt>Line</dt><dd>6</dd>" in html and "<dt>Column</dt><dd>stance</dd>" in html
    assert _projects() == 0


def test_a_format_option_that_does_not_fit_is_refused_before_anything_is_read(admin):
    response = _new_project(admin, "kpa2021", [_upload(KPA / name) for name in KPA_FILES], split="../etc")
    assert response.status_code == 400 and "Must be 1 to 40 letters, digits, - or _" in response.get_data(as_text=True)
    assert _projects() == 0


def test_a_slug_in_use_is_refused(admin, kpa_project):
    kpa_project(slug="mine")
    response = _new_project(admin, "kpa2021", [_upload(KPA / name) for name in KPA_FILES], split="test")
    assert response.status_code == 400 and "already a project with this slug" in response.get_data(as_text=True)


def test_a_file_format_takes_exactly_one_file(admin):
    files = [_upload(EMPHASIS / "dev_excerpt.txt"), _upload(EMPHASIS / "train_excerpt.txt")]
    html = _new_project(admin, "emphasis2020", files).get_data(as_text=True)
    assert "this format reads one file; the upload holds 2" in html and _projects() == 0


def test_a_zip_member_that_climbs_out_of_the_upload_folder_is_refused(admin):
    files = [_zip({"../../evil.txt": b"x", "dev.txt": (EMPHASIS / "dev_excerpt.txt").read_bytes()})]
    html = _new_project(admin, "emphasis2020", files).get_data(as_text=True)
    assert "would land outside the upload folder" in html and _projects() == 0


def _more(client, slug: str, files, **fields):  # type: ignore[no-untyped-def]
    url = f"/admin/projects/{slug}/import"
    page = client.get(url).get_data(as_text=True)
    return client.post(url, content_type="multipart/form-data",
                       data={"csrf_token": csrf_token(page), "files": files, **fields})


def test_more_items_are_loaded_into_a_project_and_repeated_ones_refused(admin):
    assert _new_project(admin, "emphasis2020", [_upload(EMPHASIS / "dev_excerpt.txt", "data.txt")]).status_code == 302
    before = db.session.scalar(select(func.count()).select_from(Item))
    extra = "".join(line for line in (EMPHASIS / "train_excerpt.txt").open(encoding="utf-8"))
    assert _more(admin, "mine", [(io.BytesIO(extra.encode()), "data.txt")], **_ticked("emphasis2020")).status_code \
        == 302
    after = db.session.scalar(select(func.count()).select_from(Item))
    assert after > before
    again = _more(admin, "mine", [(io.BytesIO(extra.encode()), "data.txt")], **_ticked("emphasis2020"))
    assert again.status_code == 400 and "already has item" in again.get_data(as_text=True)
    db.session.remove()
    assert db.session.scalar(select(func.count()).select_from(Item)) == after


def _annotator_client(login, make_user, name="ann"):  # type: ignore[no-untyped-def]
    make_user(name)
    return login(name)


def test_an_archived_project_is_hidden_and_closed_to_annotators_and_reopens(admin, login, make_user, kpa_project):
    kpa_project()
    ann = _annotator_client(login, make_user)
    page = admin.get("/admin/projects/kpa").get_data(as_text=True)
    admin.post("/admin/projects/kpa/archive", data={"csrf_token": csrf_token(page), "archived": "1"})
    assert stored(Project, slug="kpa").archived
    assert "/p/kpa/" not in ann.get("/").get_data(as_text=True)
    closed = ann.get("/p/kpa/")
    assert closed.status_code == 403 and "is closed" in closed.get_data(as_text=True)
    admin.post("/admin/projects/kpa/archive", data={"csrf_token": csrf_token(page), "archived": "0"})
    assert not stored(Project, slug="kpa").archived and ann.get("/p/kpa/").status_code == 200


def test_a_project_open_to_listed_annotators_only(admin, login, make_user, kpa_project):
    kpa_project()
    listed, other = _annotator_client(login, make_user, "listed"), _annotator_client(login, make_user, "other")
    listed_id = stored(User, username="listed").id
    page = admin.get("/admin/projects/kpa").get_data(as_text=True)
    admin.post("/admin/projects/kpa/audience", data={"csrf_token": csrf_token(page), "audience": "listed",
                                                     "annotators": [str(listed_id)]})
    project = stored(Project, slug="kpa")
    assert project.audience == "listed" and [u.username for u in project.annotators] == ["listed"]
    assert "/p/kpa/" in listed.get("/").get_data(as_text=True) and listed.get("/p/kpa/").status_code == 200
    assert "/p/kpa/" not in other.get("/").get_data(as_text=True)
    assert "not open to you" in other.get("/p/kpa/").get_data(as_text=True)


def test_the_api_refuses_next_on_a_closed_project_but_takes_a_running_lease(kpa_project, make_user, api_client):
    project = kpa_project()
    user = make_user("bot")
    client = api_client("bot")
    lease = engine.next_for(user, project)
    project = stored(Project, slug="kpa")
    project.archived = True
    db.session.commit()
    refused = client.post("/api/v1/projects/kpa/next")
    assert refused.status_code == 403 and "closed" in refused.get_json()["error"]
    done = client.post(f"/api/v1/assignments/{lease.id}/submit", json={"answer": {"matches": []}})
    assert done.status_code == 201


def _delete(client, slug: str, confirm: str):  # type: ignore[no-untyped-def]
    page = client.get(f"/admin/projects/{slug}").get_data(as_text=True)
    return client.post(f"/admin/projects/{slug}/delete", data={"csrf_token": csrf_token(page), "confirm": confirm})


def test_an_empty_project_is_deleted_once_its_slug_is_typed(admin, kpa_project):
    kpa_project()
    _delete(admin, "kpa", "wrong")
    assert _projects() == 1
    response = _delete(admin, "kpa", "kpa")
    assert response.headers["Location"] == "/admin/" and _projects() == 0
    assert db.session.scalar(select(func.count()).select_from(Item)) == 0


def test_a_project_with_votes_is_not_deleted(admin, kpa_project, make_user):
    project = kpa_project()
    user = make_user("ann")
    engine.submit(engine.next_for(user, project).id, user, {"matches": []})
    page = admin.get("/admin/projects/kpa").get_data(as_text=True)
    assert "Delete the project" not in page
    admin.post("/admin/projects/kpa/delete", data={"csrf_token": csrf_token(page), "confirm": "kpa"})
    assert _projects() == 1


def test_export_of_a_project_without_a_recorded_format_says_why(admin, kpa_project):
    project = kpa_project()
    project = stored(Project, slug="kpa")
    project.source = {}
    db.session.commit()
    response = admin.get("/admin/projects/kpa/export.zip")
    assert response.status_code == 302
    assert "no recorded source format" in admin.get("/admin/projects/kpa").get_data(as_text=True)


def test_annotators_cannot_reach_the_setup_pages(login, make_user, kpa_project):
    kpa_project()
    client = _annotator_client(login, make_user)
    for url in ("/admin/projects/new", "/admin/projects/new/kpa2021", "/admin/projects/kpa/import"):
        assert client.get(url).status_code == 403, url
    for url in ("/admin/projects/kpa/archive", "/admin/projects/kpa/delete", "/admin/projects/kpa/audience"):
        assert client.post(url).status_code in (400, 403), url
    assert not stored(Project, slug="kpa").archived


def test_a_missing_file_of_the_split_is_named_without_the_servers_folder(admin):
    """Before: 'file not found in folder /tmp/upload-...', the server's temporary path on the page."""
    import tempfile
    response = _new_project(admin, "kpa2021", [_upload(KPA / "arguments_test.csv")], split="test")
    html = response.get_data(as_text=True)
    assert response.status_code == 400 and "key_points_test.csv" in html and tempfile.gettempdir() not in html


def test_the_split_is_read_from_the_file_names_when_left_empty_and_the_page_says_which(admin):
    """No silent "dev": files named arguments_test.csv ... are the test split, and the admin is told so."""
    response = _new_project(admin, "kpa2021", [_upload(KPA / name) for name in KPA_FILES], split="")
    assert response.status_code == 302
    assert stored(Project, slug="mine").source["split"] == "test"
    assert "The split &#39;test&#39; was read from the file names." in admin.get(response.headers["Location"]).get_data(
        as_text=True)


def test_files_of_several_splits_with_no_split_chosen_are_refused_naming_them(admin):
    """Which of two splits to read is the admin's choice, never a default."""
    files = {name: (KPA / name).read_bytes() for name in KPA_FILES}
    files["arguments_dev.csv"] = files["arguments_test.csv"]
    response = _new_project(admin, "kpa2021", [_zip(files)], split="")
    assert response.status_code == 400 and "the files hold the splits dev, test: choose which one" in \
        response.get_data(as_text=True)
    assert _projects() == 0


def test_the_split_field_has_no_default(admin):
    """An empty field, described: the old "dev" default imported the wrong files' split without a word."""
    html = admin.get("/admin/projects/new/kpa2021").get_data(as_text=True)
    assert 'name="split" type="text" value=""' in html and "read from the file names" in html


def test_a_json_lines_file_given_for_a_token_file_is_told_what_it_looks_like(admin):
    """Before: "carriage return (CRLF line ends?)", the first thing the token-file reader tripped over."""
    response = _new_project(admin, "emphasis2020", [_upload(DATA / "recam2021" / "Task_1_dev_excerpt.jsonl",
                                                            "dev.txt")])
    html = response.get_data(as_text=True)
    assert response.status_code == 400
    assert "dev.txt looks like JSON Lines; this import expects one token file" in html


def test_a_json_lines_file_named_as_the_arguments_csv_is_told_what_it_looks_like(admin):
    """In a folder format the hint is about the file the problem is in."""
    files = [_upload(DATA / "recam2021" / "Task_1_dev_excerpt.jsonl", "arguments_test.csv"),
             _upload(KPA / "key_points_test.csv")]
    html = _new_project(admin, "kpa2021", files, split="test").get_data(as_text=True)
    assert "arguments_test.csv looks like JSON Lines; this import expects arguments_&lt;split&gt;.csv" in html


def _hidden(html: str, name: str) -> str:
    import re
    found = re.search(rf'id="{name}" name="{name}" type="hidden" value="([^"]*)"', html)
    assert found, f"no hidden field {name}"
    return found.group(1)


def test_a_form_refused_for_its_slug_keeps_the_chosen_files_for_the_next_try(admin, make_user):
    """A browser cannot fill a file input again: the files stay on the server, the page says so, and the
    next try with the slug corrected imports them without choosing them again."""
    from annotator.campaigns.projects import get_or_create_project
    from annotator.declared.items import load_definition
    from annotator.shared_tasks.kpa2021.declared_gold import MATCH_DEFINITION
    get_or_create_project("mine", "custom", name="Taken", k=3, definition=load_definition(MATCH_DEFINITION).to_data())
    db.session.commit()
    refused = _new_project(admin, "kpa2021", [_upload(KPA / name) for name in KPA_FILES], split="test")
    html = refused.get_data(as_text=True)
    assert refused.status_code == 400 and "There is already a project with this slug" in html
    assert "Kept from your last try: arguments_test.csv, key_points_test.csv, labels_test.csv" in html
    retry = _new_project(admin, "kpa2021", [], split="test", slug="mine-2", kept=_hidden(html, "kept"))
    assert retry.status_code == 302, retry.get_data(as_text=True)
    db.session.remove()
    assert db.session.scalar(select(func.count()).select_from(Item).join(Project).where(Project.slug == "mine-2")) == 26


def test_kept_files_are_removed_once_imported(app, admin):
    """Nothing of a finished import stays on the server."""
    first = _new_project(admin, "kpa2021", [_upload(KPA / name) for name in KPA_FILES], split="../bad")
    token = _hidden(first.get_data(as_text=True), "kept")
    assert (Path(app.config["KEPT_UPLOADS_DIR"]) / token).is_dir()
    assert _new_project(admin, "kpa2021", [], split="test", kept=token).status_code == 302
    assert not (Path(app.config["KEPT_UPLOADS_DIR"]) / token).exists()


def test_a_token_that_names_no_kept_files_still_asks_for_files(admin):
    """A made-up or expired token keeps nothing: the form asks for the files, naming no folder."""
    response = _new_project(admin, "kpa2021", [], split="test", kept="../../etc")
    assert response.status_code == 400 and "Choose the file(s) to import." in response.get_data(as_text=True)


def test_files_the_server_cannot_keep_are_refused_in_words_and_leave_no_folder(app, admin, monkeypatch):
    """A full disk while keeping a try's files: the page says so next to the file field, and no folder of the
    try stays behind (issue 42)."""
    from werkzeug.datastructures import FileStorage

    def disk_full(self, destination, buffer_size=16384):  # type: ignore[no-untyped-def]
        if hasattr(destination, "write"):   # an open file (kept uploads are opened 0600 first) or a path
            destination.write(b"half")
        else:
            Path(destination).write_bytes(b"half")
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(FileStorage, "save", disk_full)
    response = _new_project(admin, "kpa2021", [_upload(KPA / name) for name in KPA_FILES], split="test")
    assert response.status_code == 400
    assert "the uploaded files could not be kept on the server (No space left on device)" in \
        response.get_data(as_text=True)
    kept = Path(app.config["KEPT_UPLOADS_DIR"])
    assert not kept.is_dir() or list(kept.iterdir()) == []
    db.session.remove()
    assert db.session.scalar(select(func.count()).select_from(Project)) == 0
