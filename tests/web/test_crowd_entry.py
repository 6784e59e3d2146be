"""Crowd entry through the Flask test client: Prolific and MTurk study links on the KPA excerpt."""
from __future__ import annotations

import re
from urllib.parse import urlsplit

import pytest
from sqlalchemy import func, select

from annotator.core.extensions import db
from annotator.core.models import Assignment, CrowdLink, CrowdSession, CrowdWorker, User
from annotator.people.accounts import AccountError, create_user
from annotator.people.crowd import link_token, save_link
from annotator.quality.blocking import block
from tests.quality.conftest import set_quality
from tests.support.crowd_visits import answer_hit, start_hit
from tests.web.conftest import csrf_token

PROLIFIC = "?PROLIFIC_PID={pid}&STUDY_ID=study1&SESSION_ID={session}"
SANDBOX = "https%3A%2F%2Fworkersandbox.mturk.com"
MTURK = "?workerId={worker}&assignmentId={assignment}&hitId=HIT1&turkSubmitTo=" + SANDBOX


@pytest.fixture
def links(app, kpa_project):  # type: ignore[no-untyped-def]
    """Project `kpa` with a Prolific and an MTurk link of 2 HITs each; their entry paths."""
    project = kpa_project(k=3)
    paths = {}
    for platform in ("prolific", "mturk"):
        link = save_link(project, platform, 2, "DONE123", "SCREEN9")
        paths[platform] = f"/crowd/kpa/{platform}/{link_token(link)}"
    db.session.commit()
    return paths


def _answer(client) -> None:  # type: ignore[no-untyped-def]
    """Take the worker's HIT (Start first) and answer "none of these"."""
    answer_hit(client, "kpa")


def _follow(client, url: str):  # type: ignore[no-untyped-def]
    """GET `url` and follow its redirects one request at a time (each in its own app context)."""
    response = client.get(url)
    for _ in range(10):
        if response.status_code != 302:
            return response
        response = client.get(response.location)
    raise AssertionError(f"redirected in a loop from {url}")


def _workers() -> int:
    return db.session.scalar(select(func.count()).select_from(CrowdWorker))


def test_prolific_first_visit_creates_a_passwordless_account_and_shows_the_start_of_the_hits(app, links):
    client = app.test_client()
    response = client.get(links["prolific"] + PROLIFIC.format(pid="5f1a2b3c4d5e6f7a8b9c0d1e", session="s1"))
    assert response.status_code == 302 and response.location.endswith("/crowd/kpa/")
    assert client.get("/crowd/kpa/").location.endswith("/p/kpa/")
    html = client.get("/p/kpa/").get_data(as_text=True)
    assert 'id="start-form"' in html and "0 / 2 done" in html
    assert "Log out" not in html  # no account menu for crowd workers
    assert 'id="hit-form"' in start_hit(client, "kpa")
    user = db.session.scalar(select(User).where(User.username == "prolific:5f1a2b3c4d5e6f7a8b9c0d1e"))
    assert user.password_hash is None and user.role == "annotator"


def test_a_wrong_or_foreign_token_is_not_found_and_creates_nothing(app, links, kpa_project):
    client = app.test_client()
    query = PROLIFIC.format(pid="abc", session="s1")
    assert client.get("/crowd/kpa/prolific/" + "0" * 40 + query).status_code == 404
    assert client.get(links["mturk"].replace("mturk", "prolific", 1) + query).status_code == 404
    other = kpa_project(slug="other")
    assert client.get(links["prolific"].replace("/kpa/", f"/{other.slug}/") + query).status_code == 404
    assert _workers() == 0


def test_a_visit_without_the_platforms_ids_is_refused_with_a_message(app, links):
    response = app.test_client().get(links["prolific"] + "?STUDY_ID=s&SESSION_ID=x")
    assert response.status_code == 400 and "PROLIFIC_PID" in response.get_data(as_text=True)
    assert _workers() == 0


def test_a_worker_comes_back_to_the_same_account_and_never_to_anothers(app, links):
    first, second = app.test_client(), app.test_client()
    first.get(links["prolific"] + PROLIFIC.format(pid="aaa", session="s1"))
    _answer(first)
    _answer(first)  # aaa's session s1 is complete
    second.get(links["prolific"] + PROLIFIC.format(pid="bbb", session="s2"))
    assert "0 / 2 done" in second.get("/p/kpa/").get_data(as_text=True)  # not aaa's votes
    again = app.test_client()
    again.get(links["prolific"] + PROLIFIC.format(pid="aaa", session="s3"))
    assert "0 / 2 done" in again.get("/p/kpa/").get_data(as_text=True)  # a new session counts from 0
    assert _workers() == 2
    sessions = db.session.execute(select(CrowdSession.session_key, User.username)
                                  .join(User, User.id == CrowdSession.user_id).order_by(CrowdSession.id)).all()
    assert [tuple(row) for row in sessions] == [("s1", "prolific:aaa"), ("s2", "prolific:bbb"),
                                                ("s3", "prolific:aaa")]


def test_a_session_id_of_another_worker_is_refused(app, links):
    app.test_client().get(links["prolific"] + PROLIFIC.format(pid="aaa", session="s1"))
    response = app.test_client().get(links["prolific"] + PROLIFIC.format(pid="bbb", session="s1"))
    assert response.status_code == 400 and "another worker" in response.get_data(as_text=True)


def test_crowd_names_cannot_be_taken_by_ordinary_accounts(app):
    with pytest.raises(AccountError):
        create_user("prolific:aaa")


def test_after_the_studys_hits_the_code_is_shown_and_prolific_is_next(app, links):
    client = app.test_client()
    client.get(links["prolific"] + PROLIFIC.format(pid="aaa", session="s1"))
    _answer(client)
    _answer(client)
    response = client.get("/p/kpa/")
    assert response.status_code == 302 and response.location.endswith("/crowd/kpa/done")
    html = client.get("/crowd/kpa/done").get_data(as_text=True)
    assert '<strong id="completion-code">DONE123</strong>' in html
    # At once: a timed refresh the worker cannot stop fails WCAG 2.2.1; the code is also in the URL.
    assert 'content="0; url=https://app.prolific.com/submissions/complete?cc=DONE123"' in html
    assert db.session.scalar(select(CrowdSession.completed_at)) is not None
    assert db.session.scalar(select(func.count()).select_from(Assignment)) == 2  # no third lease


def test_the_done_page_before_the_end_sends_back_to_the_hits(app, links):
    client = app.test_client()
    client.get(links["prolific"] + PROLIFIC.format(pid="aaa", session="s1"))
    assert client.get("/crowd/kpa/done").location.endswith("/p/kpa/")


def test_a_screened_out_worker_gets_the_screen_out_code(app, links):
    client = app.test_client()
    client.get(links["prolific"] + PROLIFIC.format(pid="aaa", session="s1"))
    set_quality(_project(), block_min_controls=2)  # the project blocks; quality control blocks the worker
    worker = db.session.scalar(select(User).where(User.username == "prolific:aaa"))
    block(worker.id, _project(), "your answers to the control items were too often wrong")
    db.session.commit()
    response = client.get("/p/kpa/")
    assert response.location.endswith("/crowd/kpa/screened-out")
    html = client.get("/crowd/kpa/screened-out").get_data(as_text=True)
    assert "too often wrong" in html and '<strong id="screen-out-code">SCREEN9</strong>' in html
    assert "https://app.prolific.com/submissions/complete?cc=SCREEN9" in html
    assert "too often wrong" in db.session.scalar(select(CrowdSession.screened_out))
    assert db.session.scalar(select(func.count()).select_from(Assignment)  # no vote, and no HIT after the block
                             .where(Assignment.status.in_(["leased", "submitted"]))) == 0


def test_a_crowd_account_sees_only_its_studys_project(app, links, kpa_project):
    kpa_project(slug="other")
    client = app.test_client()
    client.get(links["prolific"] + PROLIFIC.format(pid="aaa", session="s1"))
    assert client.get("/p/other/").status_code == 403
    index = client.get("/").get_data(as_text=True)
    assert "/p/kpa/" in index and "/p/other/" not in index


def test_mturk_preview_shows_an_example_item_without_account_or_lease(app, links):
    response = app.test_client().get(links["mturk"] + "?assignmentId=ASSIGNMENT_ID_NOT_AVAILABLE&hitId=HIT1")
    html = response.get_data(as_text=True)
    assert response.status_code == 200 and 'id="preview-note"' in html
    assert re.search(r'<button type="submit" id="submit" disabled>', html)
    assert "Social media platforms should be regulated" in html
    assert "frame-ancestors https://*.mturk.com" in response.headers["Content-Security-Policy"]
    assert _workers() == 0 and db.session.scalar(select(func.count()).select_from(Assignment)) == 0


def test_mturk_pages_may_be_framed_by_mturk_with_a_cross_site_cookie(app, links, login, make_user):
    client = app.test_client()
    response = client.get(links["mturk"] + MTURK.format(worker="A1B2C3", assignment="ASG1"),
                          base_url="https://localhost")
    cookie = response.headers["Set-Cookie"]
    assert "SameSite=None" in cookie and "Secure" in cookie and "Partitioned" in cookie
    assert "frame-ancestors https://*.mturk.com" in response.headers["Content-Security-Policy"]
    hit = client.get("/p/kpa/", base_url="https://localhost")
    assert hit.status_code == 200 and "frame-ancestors https://*.mturk.com" in hit.headers["Content-Security-Policy"]
    make_user("boss", role="admin")
    admin = login("boss").get("/admin/")
    assert "frame-ancestors 'none'" in admin.headers["Content-Security-Policy"]
    assert "SameSite=None" not in admin.headers.get("Set-Cookie", "")


def test_mturk_completion_posts_the_assignment_back_to_mturk(app, links):
    from annotator.engine import assignment as engine
    client = app.test_client()
    client.get(links["mturk"] + MTURK.format(worker="A1B2C3", assignment="ASG1"), base_url="https://localhost")
    user = db.session.scalar(select(User).where(User.username == "mturk:A1B2C3"))
    project = db.session.scalar(select(CrowdSession)).link.project
    for _ in range(2):
        engine.submit(engine.next_for(user, project).id, user, {"matches": []})
    html = client.get("/crowd/kpa/done", base_url="https://localhost").get_data(as_text=True)
    form = re.search(r'<form method="post" action="([^"]+)" id="crowd-submit">', html).group(1)
    assert form == "https://workersandbox.mturk.com/mturk/externalSubmit"
    assert '<input type="hidden" name="assignmentId" value="ASG1">' in html
    assert '<input type="hidden" name="code" value="DONE123">' in html
    assert "js/crowd_submit.js" in html and "<script>" not in html


@pytest.mark.parametrize("target", ["https%3A%2F%2Fevil.example.org", "http%3A%2F%2Fwww.mturk.com",
                                    "https%3A%2F%2Fwww.mturk.com.evil.org",
                                    "https%3A%2F%2F%5B%3A%3A1", "A%3A%2F%2F%5B"])  # what urlsplit will not split
def test_mturk_submit_targets_other_than_mturk_are_refused(app, links, target):
    query = MTURK.format(worker="A1", assignment="ASG1").replace(SANDBOX, target)
    response = app.test_client().get(links["mturk"] + query)
    assert response.status_code == 400 and "turkSubmitTo" in response.get_data(as_text=True)
    assert _workers() == 0


def test_a_new_secret_stops_the_old_link(app, links):
    save_link(_project(), "prolific", 2, "DONE123", new_secret=True)
    db.session.commit()
    response = app.test_client().get(links["prolific"] + PROLIFIC.format(pid="aaa", session="s1"))
    assert response.status_code == 404


def _project():  # type: ignore[no-untyped-def]
    from annotator.core.models import Project
    return db.session.scalar(select(Project).where(Project.slug == "kpa"))


def test_entry_paths_carry_no_guessable_token(app, links):
    tokens = {urlsplit(path).path.rsplit("/", 1)[1] for path in links.values()}
    assert len(tokens) == 2 and all(re.fullmatch(r"[0-9a-f]{40}", t) for t in tokens)


def test_a_deactivated_worker_is_turned_away(app, links):
    from annotator.people.accounts import set_active
    app.test_client().get(links["prolific"] + PROLIFIC.format(pid="aaa", session="s1"))
    set_active(db.session.scalar(select(User).where(User.username == "prolific:aaa")), False)
    db.session.commit()
    response = app.test_client().get(links["prolific"] + PROLIFIC.format(pid="aaa", session="s2"))
    assert response.status_code == 403 and "may not take part" in response.get_data(as_text=True)


def test_admin_creates_and_changes_a_link_on_the_crowd_page(app, kpa_project, login, make_user):
    kpa_project()
    make_user("boss", role="admin")
    client = login("boss")
    assert "/admin/projects/kpa/crowd" in client.get("/admin/projects/kpa").get_data(as_text=True)
    page = client.get("/admin/projects/kpa/crowd").get_data(as_text=True)
    assert "No link yet." in page
    response = client.post("/admin/projects/kpa/crowd", data={
        "mturk-csrf_token": csrf_token(page), "mturk-platform": "mturk", "mturk-hits": "4",
        "mturk-completion_code": "DONE1", "mturk-screen_out_code": ""})
    assert response.status_code == 302
    link = db.session.scalar(select(CrowdLink))
    assert (link.platform, link.hits, link.completion_code) == ("mturk", 4, "DONE1")
    html = client.get("/admin/projects/kpa/crowd").get_data(as_text=True)
    assert f"/crowd/kpa/mturk/{link_token(link)}" in html and "flask mturk-question" in html


def test_the_crowd_page_refuses_a_bad_code_and_saves_nothing(app, kpa_project, login, make_user):
    kpa_project()
    make_user("boss", role="admin")
    client = login("boss")
    page = client.get("/admin/projects/kpa/crowd").get_data(as_text=True)
    html = client.post("/admin/projects/kpa/crowd", data={
        "prolific-csrf_token": csrf_token(page), "prolific-platform": "prolific", "prolific-hits": "4",
        "prolific-completion_code": "not a code"}).get_data(as_text=True)
    assert "letters, digits" in html and db.session.scalar(select(func.count()).select_from(CrowdLink)) == 0


def test_a_worker_who_finds_nothing_left_is_asked_to_return_the_study(app, kpa_project, make_user):
    from tests.support.voting import vote_everywhere
    project = kpa_project(k=1, slug="full")
    vote_everywhere(project, [make_user("ann")], lambda item, user: {"matches": []})
    link = save_link(project, "prolific", 2, "DONE123")
    db.session.commit()
    client = app.test_client()
    client.get(f"/crowd/full/prolific/{link_token(link)}" + PROLIFIC.format(pid="aaa", session="s1"))
    response = _follow(client, "/crowd/full/")
    assert response.status_code == 409 and "no HITs left" in response.get_data(as_text=True)
    assert "DONE123" not in response.get_data(as_text=True)


def test_a_worker_who_runs_out_after_some_hits_gets_the_completion_code(app, kpa_project, make_user):
    from tests.support.voting import vote_everywhere
    project = kpa_project(k=1, slug="full")
    link = save_link(project, "prolific", 30, "DONE123")
    db.session.commit()
    client = app.test_client()
    client.get(f"/crowd/full/prolific/{link_token(link)}" + PROLIFIC.format(pid="aaa", session="s1"))
    html = start_hit(client, "full")
    action = re.search(r'action="(/p/full/a/\d+)"', html).group(1)
    vote_everywhere(project, [make_user("ann")], lambda item, user: {"matches": []})  # the rest goes to ann
    client.post(action, data={"csrf_token": csrf_token(html), "q_matches__none": "y"})
    response = _follow(client, "/p/full/")
    assert '<strong id="completion-code">DONE123</strong>' in response.get_data(as_text=True)
