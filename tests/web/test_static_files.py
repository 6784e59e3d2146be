"""Static files are named by their content on every page and kept by browsers; an address without the current
content hash is checked again every time (annotator/web/static_files.py)."""
from __future__ import annotations

import hashlib
import re
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from flask import url_for

from annotator import create_app
from annotator.web.static_files import Versions
from tests.web.conftest import open_hit_page

STATIC = Path(__file__).resolve().parents[2] / "static"
YEAR = 31536000


def content_hash(filename: str) -> str:
    """The hash as the test computes it: the first 12 hexadecimal digits of the file's SHA-256."""
    return hashlib.sha256((STATIC / filename).read_bytes()).hexdigest()[:12]


def static_addresses(html: str) -> list[str]:
    return re.findall(r'(?:href|src)="(/static/[^"]*)"', html)


def test_the_login_page_names_its_style_sheet_and_icon_by_their_content(app):
    html = app.test_client().get("/login").get_data(as_text=True)
    addresses = {urlsplit(a).path: parse_qs(urlsplit(a).query) for a in static_addresses(html)}
    assert addresses == {"/static/style.css": {"v": [content_hash("style.css")]},
                         "/static/favicon.svg": {"v": [content_hash("favicon.svg")]}}


def test_every_static_address_of_a_hit_page_carries_its_files_content_hash(login, make_user, kpa_project):
    make_user("ann")
    html = open_hit_page(login("ann"), kpa_project().slug).get_data(as_text=True)
    addresses = static_addresses(html)
    assert any("/static/js/" in a for a in addresses), addresses  # the page's scripts are among them
    for address in addresses:
        parts = urlsplit(address.replace("&amp;", "&"))
        assert parse_qs(parts.query) == {"v": [content_hash(parts.path.removeprefix("/static/"))]}, address


def test_a_file_asked_for_by_its_current_hash_is_kept_for_a_year_and_never_checked_again(app):
    response = app.test_client().get(f"/static/js/hit.js?v={content_hash('js/hit.js')}")
    assert response.status_code == 200
    assert response.data == (STATIC / "js" / "hit.js").read_bytes()
    cache = response.cache_control
    assert (cache.public, cache.max_age, cache.immutable, cache.no_cache) == (True, YEAR, True, None)
    assert "Expires" not in response.headers


def test_a_browser_checking_a_kept_file_gets_not_modified_still_kept_for_a_year(app):
    client = app.test_client()
    address = f"/static/style.css?v={content_hash('style.css')}"
    etag = client.get(address).headers["ETag"]
    response = client.get(address, headers={"If-None-Match": etag})
    assert response.status_code == 304
    assert (response.cache_control.max_age, response.cache_control.immutable) == (YEAR, True)


@pytest.mark.parametrize("query", ["", "?v=0123456789ab", "?v="])
def test_a_file_asked_for_without_its_current_hash_is_checked_every_time(app, query):
    """An old page (cached before a release) names an old hash: the file it gets is today's, not to be kept."""
    response = app.test_client().get(f"/static/style.css{query}")
    assert response.status_code == 200 and response.data == (STATIC / "style.css").read_bytes()
    assert response.cache_control.no_cache and response.cache_control.max_age is None
    assert not response.cache_control.immutable


def test_a_missing_static_file_is_not_found_and_its_address_has_no_hash(app):
    client = app.test_client()
    assert client.get("/static/no-such-file.js?v=0123456789ab").status_code == 404
    with app.test_request_context():
        assert url_for("static", filename="no-such-file.js") == "/static/no-such-file.js"


def test_under_the_debug_server_a_changed_file_gets_a_new_hash_and_the_same_content_the_same(tmp_path):
    (tmp_path / "a.js").write_text("one")
    versions = Versions(tmp_path.resolve(), watch=True)
    first = versions.of("a.js")
    assert first == hashlib.sha256(b"one").hexdigest()[:12]
    (tmp_path / "a.js").write_text("two, longer")
    assert versions.of("a.js") == hashlib.sha256(b"two, longer").hexdigest()[:12]
    (tmp_path / "a.js").write_text("one")
    assert versions.of("a.js") == first


def test_a_served_process_hashes_a_file_once_a_release_restarts_it(tmp_path):
    (tmp_path / "a.js").write_text("one")
    versions = Versions(tmp_path.resolve())
    first = versions.of("a.js")
    (tmp_path / "a.js").write_text("two, longer")
    assert versions.of("a.js") == first
    assert Versions(tmp_path.resolve()).of("a.js") == hashlib.sha256(b"two, longer").hexdigest()[:12]


def test_the_debug_server_watches_its_files_and_a_served_app_does_not(app):
    assert app.extensions["static_versions"].watch is False
    debug = create_app("config.TestConfig", SQLALCHEMY_DATABASE_URI=app.config["SQLALCHEMY_DATABASE_URI"], DEBUG=True)
    assert debug.extensions["static_versions"].watch is True


@pytest.mark.parametrize("watch", [False, True])
@pytest.mark.parametrize("name", ["../outside.js", "sub", "sub/../../outside.js", "/etc/hostname", "none.js"])
def test_no_hash_is_given_for_a_name_outside_the_folder_for_a_folder_or_for_no_file(tmp_path, name, watch):
    (tmp_path / "static" / "sub").mkdir(parents=True)
    (tmp_path / "outside.js").write_text("secret")
    versions = Versions((tmp_path / "static").resolve(), watch=watch)
    assert versions.of(name) is None
    assert versions.of(name) is None  # asked again: the answer it keeps
