"""Admin pages: project list, project page (settings, progress, agreement, gold), annotators."""
from __future__ import annotations

import re
from datetime import timedelta

from sqlalchemy import select

from annotator.core.extensions import db
from annotator.core.models import Project, User
from annotator.engine import assignment as engine
from tests.conftest import DATA, load_project, stored
from tests.web.conftest import csrf_token


def _admin(login, make_user):  # type: ignore[no-untyped-def]
    make_user("boss", role="admin")
    return login("boss")


def test_project_list_shows_progress_bars(login, make_user, kpa_project):
    kpa_project(k=3)
    html = _admin(login, make_user).get("/admin/").get_data(as_text=True)
    assert '<progress max="78" value="0">' in html and "0 / 78" in html


def test_project_page_shows_progress_agreement_and_gold_counts(login, make_user, kpa_project):
    project = kpa_project(k=1)  # each vote completes its item, so gold counts it
    for name in ("a", "b"):
        user = make_user(name)
        lease = engine.next_for(user, project)
        engine.submit(lease.id, user, {"matches": []})
    html = _admin(login, make_user).get("/admin/projects/kpa").get_data(as_text=True)
    assert "2 of 26" in html
    assert "Fleiss' kappa" in html and "Krippendorff's alpha" in html
    assert "undefined" in html and "nan" not in html
    assert "<dt>matches: 0</dt><dd>10</dd>" in html   # the declared gold by value: 10 pairs no match


def test_project_page_counts_pending_items_and_leaves_them_out_of_gold(login, make_user, kpa_project):
    project = kpa_project(k=2)
    user = make_user("a")
    engine.submit(engine.next_for(user, project).id, user, {"matches": []})
    html = _admin(login, make_user).get("/admin/projects/kpa").get_data(as_text=True)
    assert re.search(r'id="pending">26 ', html) and "<dt>matches: 0</dt><dd>0</dd>" in html


def test_the_admin_export_form_includes_pending_items_when_ticked(login, make_user, kpa_project):
    import io
    import zipfile
    project = kpa_project(k=2)
    user = make_user("a")
    engine.submit(engine.next_for(user, project).id, user, {"matches": []})
    client = _admin(login, make_user)
    names = {flag: zipfile.ZipFile(io.BytesIO(client.get(f"/admin/projects/kpa/export.zip{flag}").data)).namelist()
             for flag in ("", "?include_incomplete=1")}
    assert "README.txt" not in names[""] and "README.txt" in names["?include_incomplete=1"]


def _comparison() -> Project:
    """A KPA-2021 comparison project (declared, of set_compare.yaml), whose "equal" and linked check project are
    project settings (the bridge's kept settings; its rules are its definition's)."""
    return load_project("kpa2021-compare", DATA / "kpa2021_track2", "kpa", split="test", k=3)


def test_settings_are_saved_including_the_projects_own_settings(login, make_user):
    _comparison()
    client = _admin(login, make_user)
    page = client.get("/admin/projects/kpa").get_data(as_text=True)
    response = client.post("/admin/projects/kpa", data={
        "csrf_token": csrf_token(page), "name": "Renamed", "k": "5", "lease_minutes": "15",
        "guidelines": "Be careful.", "equal": "drop", "check_project": "kpa-check"})
    assert response.status_code == 302
    project = db.session.scalar(select(Project))
    db.session.refresh(project)
    assert (project.name, project.k, project.lease_minutes, project.guidelines) == ("Renamed", 5, 15, "Be careful.")
    assert project.settings == {"equal": "drop", "check_project": "kpa-check"}


def test_guidelines_sent_back_with_crlf_line_ends_are_stored_with_lf(login, make_user, kpa_project):
    kpa_project()
    client = _admin(login, make_user)
    page = client.get("/admin/projects/kpa").get_data(as_text=True)
    client.post("/admin/projects/kpa", data={  # a browser sends a textarea's line ends as CRLF
        "csrf_token": csrf_token(page), "name": "KPA", "k": "3", "lease_minutes": "30",
        "guidelines": "Read the argument.\r\n\r\n1. Choose the key points.\r\n2. Submit.",
        "positive_threshold": "0.6", "negative_threshold": "0.15"})
    assert stored(Project, slug="kpa").guidelines == "Read the argument.\n\n1. Choose the key points.\n2. Submit."


def test_settings_refuse_a_value_a_setting_does_not_take(login, make_user):
    """A comparison's "equal" is half or drop (thresholds the wrong way round are refused at a KPA match's import:
    tests/cli/test_kpa2021_declared_settings.py, its rules being its definition's)."""
    _comparison()
    before = db.session.scalar(select(Project.settings))
    client = _admin(login, make_user)
    page = client.get("/admin/projects/kpa").get_data(as_text=True)
    response = client.post("/admin/projects/kpa", data={
        "csrf_token": csrf_token(page), "name": "x", "k": "5", "lease_minutes": "15", "equal": "most"})
    assert response.status_code == 200 and "equal" in response.get_data(as_text=True)
    db.session.remove()
    assert db.session.scalar(select(Project.settings)) == before


def test_annotators_page_shows_counts_and_median_time_per_hit(login, make_user, kpa_project):
    project = kpa_project()
    ann = make_user("ann")
    for seconds in (10, 20, 60):
        lease = engine.next_for(ann, project)
        engine.submit(lease.id, ann, {"matches": []}, now=lease.leased_at + timedelta(seconds=seconds))
    html = _admin(login, make_user).get("/admin/annotators").get_data(as_text=True)
    row = re.search(r"<tr><td><a [^>]*>ann</a></td>(.*?)</tr>", html, re.S).group(1)
    assert re.findall(r"<td[^>]*>([^<]*)</td>", row) == ["annotator", "active", "3", "20.0 s"]


def test_admin_creates_an_annotator_account(login, make_user):
    client = _admin(login, make_user)
    page = client.get("/admin/annotators").get_data(as_text=True)
    client.post("/admin/annotators", data={"csrf_token": csrf_token(page), "username": "new.one",
                                           "password": "long-enough", "role": "annotator"})
    assert db.session.scalar(select(User).where(User.username == "new.one")).check_password("long-enough")


def test_the_export_download_hands_the_pages_ticket_back_as_a_cookie(login, make_user, kpa_project):
    """The project page's script shows the export as under way until the cookie with its ticket arrives."""
    kpa_project(k=2)
    client = _admin(login, make_user)
    response = client.get("/admin/projects/kpa/export.zip?ticket=l3x9q2abcd")
    assert response.mimetype == "application/zip"
    cookie = response.headers["Set-Cookie"]
    assert cookie.startswith("export-ticket=l3x9q2abcd;") and "Path=/admin/projects/kpa" in cookie


def test_an_export_ticket_that_is_not_one_sets_no_cookie(login, make_user, kpa_project):
    kpa_project(k=2)
    response = _admin(login, make_user).get("/admin/projects/kpa/export.zip?ticket=<script>")
    assert response.mimetype == "application/zip" and "Set-Cookie" not in response.headers


def test_the_settings_form_shows_a_kpa_matchs_thresholds_and_saves_them(login, make_user, kpa_project):
    """The thresholds the built-in match type's form offered, now its definition's share rule (declared/
    rule_settings.py): shown at ArgKP's values, changed by the form, read back in a fresh session."""
    kpa_project()
    client = _admin(login, make_user)
    page = client.get("/admin/projects/kpa").get_data(as_text=True)
    assert re.search(r'name="gold_matches_positive"[^>]*value="0.6"', page)
    assert re.search(r'name="gold_matches_negative"[^>]*value="0.15"', page)
    response = client.post("/admin/projects/kpa", data={
        "csrf_token": csrf_token(page), "name": "KPA", "k": "3", "lease_minutes": "30",
        "gold_matches_positive": "0.75", "gold_matches_negative": "0.25"})
    assert response.status_code == 302
    gold = stored(Project, slug="kpa").definition["questions"][0]["gold"]
    assert (gold["positive"], gold["negative"]) == (0.75, 0.25)
    again = client.get("/admin/projects/kpa").get_data(as_text=True)
    assert re.search(r'name="gold_matches_positive"[^>]*value="0.75"', again)


def test_the_settings_form_refuses_thresholds_the_wrong_way_round_saying_why(login, make_user, kpa_project):
    kpa_project()
    client = _admin(login, make_user)
    page = client.get("/admin/projects/kpa").get_data(as_text=True)
    response = client.post("/admin/projects/kpa", data={
        "csrf_token": csrf_token(page), "name": "Renamed", "k": "3", "lease_minutes": "30",
        "gold_matches_positive": "0.3", "gold_matches_negative": "0.4"})
    assert response.status_code == 200
    assert "negative (0.4) must be below positive (0.3)" in response.get_data(as_text=True)
    saved = stored(Project, slug="kpa")
    assert saved.name != "Renamed" and saved.definition["questions"][0]["gold"]["positive"] == 0.6
