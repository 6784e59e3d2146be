"""k never drops below the votes an item already has, and an import never changes k of a running project."""
from __future__ import annotations

from sqlalchemy import select

from annotator.analysis.results import AnnotatorProgress, ProjectProgress
from annotator.core.extensions import db
from annotator.core.models import Item, Project
from annotator.engine import assignment as engine
from tests.conftest import DATA
from tests.web.conftest import csrf_token


def _vote(project, users):  # type: ignore[no-untyped-def]
    """Each user votes on every item, so every item has len(users) votes."""
    for user in users:
        while (lease := engine.next_for(user, project)) is not None:
            engine.submit(lease.id, user, {"matches": []})


def _save_k(client, k: str):  # type: ignore[no-untyped-def]
    page = client.get("/admin/projects/kpa").get_data(as_text=True)
    return client.post("/admin/projects/kpa", data={
        "csrf_token": csrf_token(page), "name": "KPA", "k": k, "lease_minutes": "30",
        "positive_threshold": "0.6", "negative_threshold": "0.15"})


def test_the_settings_form_refuses_a_k_below_the_votes_an_item_has(login, make_user, kpa_project):
    project = kpa_project(k=3)
    _vote(project, [make_user(n) for n in ("a", "b", "c")])
    make_user("boss", role="admin")
    html = _save_k(login("boss"), "2").get_data(as_text=True)
    assert "already has 3 votes, so k must be at least 3" in html
    assert db.session.scalar(select(Project.k)) == 3


def test_the_settings_form_accepts_k_down_to_the_votes(login, make_user, kpa_project):
    project = kpa_project(k=5)
    _vote(project, [make_user(n) for n in ("a", "b")])
    make_user("boss", role="admin")
    assert _save_k(login("boss"), "2").status_code == 302 and db.session.scalar(select(Project.k)) == 2


def test_import_k_for_an_existing_project_is_refused_unless_it_is_the_same(app, kpa_project):
    kpa_project(k=3)
    runner = app.test_cli_runner()
    args = ["import", "kpa2021", str(DATA / "kpa2021"), "--split", "test", "--project", "kpa"]
    refused = runner.invoke(args=[*args, "--k", "5"])
    assert refused.exit_code != 0 and "already exists with k = 3" in refused.output
    assert db.session.scalar(select(Project.k)) == 3
    same = runner.invoke(args=[*args, "--k", "3"])
    assert "already exists with k" not in same.output


def test_progress_never_shows_more_than_100_percent():
    assert ProjectProgress(items=1, complete=1, votes=27, votes_needed=3, open_leases=0).percent == 100.0
    assert AnnotatorProgress(done=5, available=3).percent == 100.0


def test_no_item_ever_counts_more_votes_than_k_after_a_refused_change(login, make_user, kpa_project):
    project = kpa_project(k=2)
    _vote(project, [make_user(n) for n in ("a", "b")])
    make_user("boss", role="admin")
    _save_k(login("boss"), "1")
    assert db.session.scalar(select(Item.done_count).order_by(Item.done_count.desc()).limit(1)) <= \
        db.session.scalar(select(Project.k))
