"""The admin moves a project from the browser: the project page's archive link, and the upload form."""
from __future__ import annotations

import io
import re

from sqlalchemy import select

from annotator.core.extensions import db
from annotator.core.models import Project
from tests.conftest import DEMO_PASSWORDS, PASSWORD, stored
from tests.lifecycle.conftest import counts
from tests.web.conftest import csrf_token


def upload(client, content: bytes, **fields):  # type: ignore[no-untyped-def]
    page = client.get("/admin/projects/import-archive").get_data(as_text=True)
    data = {"csrf_token": csrf_token(page), "archive": (io.BytesIO(content), "kpa-demo-archive.zip"), **fields}
    return client.post("/admin/projects/import-archive", data=data, content_type="multipart/form-data")


def test_the_project_page_links_to_its_archive_which_the_upload_form_imports(app, demo, login):
    admin = login("admin", DEMO_PASSWORDS["ANNOTATOR_ADMIN_PASSWORD"])
    page = admin.get("/admin/projects/kpa-demo").get_data(as_text=True)
    link = re.search(r'id="project-archive-link" href="([^"]+)"', page) or re.search(
        r'href="([^"]+)" id="project-archive-link"', page)
    assert link
    archive = admin.get(link.group(1))
    assert archive.status_code == 200 and archive.mimetype == "application/zip"
    response = upload(admin, archive.data, slug="kpa-moved", reuse_accounts="y")
    assert response.status_code == 302 and response.headers["Location"].endswith("/admin/projects/kpa-moved")
    moved, source = stored(Project, slug="kpa-moved"), stored(Project, slug="kpa-demo")
    assert moved.id != source.id and moved.name == source.name


def test_an_archive_the_form_refuses_says_why_and_changes_nothing(app, demo, login):
    admin = login("admin", DEMO_PASSWORDS["ANNOTATOR_ADMIN_PASSWORD"])
    archive = admin.get("/admin/projects/kpa-demo/archive.zip").data
    before = counts()
    response = upload(admin, archive[: len(archive) // 2], slug="kpa-moved")
    assert response.status_code == 400
    assert "Nothing was imported: kpa-demo-archive.zip: the zip cannot be read" in response.get_data(as_text=True)
    assert counts() == before


def test_annotators_cannot_download_a_project_archive(app, demo, make_user, login):
    make_user("someone")
    client = login("someone", PASSWORD)
    assert client.get("/admin/projects/kpa-demo/archive.zip").status_code == 403
    db.session.remove()
    assert db.session.scalar(select(Project.id).where(Project.slug == "kpa-demo"))


def test_an_uploaded_archive_past_the_upload_limits_is_refused_before_it_is_read(app, demo, login):
    admin = login("admin", DEMO_PASSWORDS["ANNOTATOR_ADMIN_PASSWORD"])
    archive = admin.get("/admin/projects/kpa-demo/archive.zip").data
    app.config["UPLOAD_MAX_BYTES"] = 1000
    before = counts()
    response = upload(admin, archive, slug="kpa-moved", reuse_accounts="y")
    assert response.status_code == 400
    assert ("Nothing was imported: kpa-demo-archive.zip: the zip unpacks to more than this server accepts"
            in response.get_data(as_text=True))
    assert counts() == before


def test_an_upload_without_its_csrf_token_is_refused(app, demo, login):
    admin = login("admin", DEMO_PASSWORDS["ANNOTATOR_ADMIN_PASSWORD"])
    archive = admin.get("/admin/projects/kpa-demo/archive.zip").data
    before = counts()
    response = admin.post("/admin/projects/import-archive", content_type="multipart/form-data",
                          data={"archive": (io.BytesIO(archive), "a.zip"), "slug": "kpa-moved"})
    assert response.status_code == 400
    assert counts() == before


def test_an_upload_larger_than_the_request_limit_is_refused(app, demo, login):
    admin = login("admin", DEMO_PASSWORDS["ANNOTATOR_ADMIN_PASSWORD"])
    archive = admin.get("/admin/projects/kpa-demo/archive.zip").data
    app.config["MAX_CONTENT_LENGTH"] = len(archive) // 2
    before = counts()
    assert upload(admin, archive, slug="kpa-moved").status_code == 413
    assert counts() == before


def test_a_download_that_fails_leaves_no_temporary_folder(app, demo, login, monkeypatch, tmp_path):
    import tempfile

    from annotator.web import project_move as page
    admin = login("admin", DEMO_PASSWORDS["ANNOTATOR_ADMIN_PASSWORD"])
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))

    def failing(slug, out):  # type: ignore[no-untyped-def]
        raise OSError("disk full")
    monkeypatch.setattr(page, "export_project", failing)
    app.config["PROPAGATE_EXCEPTIONS"] = False
    assert admin.get("/admin/projects/kpa-demo/archive.zip").status_code == 500
    assert not list(tmp_path.glob("project-archive-*"))


def test_an_aborted_archive_leaves_no_temporary_file_even_when_closing_fails(app, tmp_path):
    import pytest

    from annotator.lifecycle.archive import ArchiveWriter
    writer = ArchiveWriter(tmp_path / "out.zip")
    close = writer.zip.close

    def broken() -> None:
        raise OSError("closing failed")
    writer.zip.close = broken  # type: ignore[method-assign]
    with pytest.raises(OSError):
        writer.abort()
    assert not list(tmp_path.iterdir())
    writer.zip.close = close  # type: ignore[method-assign]
    close()
