"""A change of k says first which items it moves between pending and complete and is saved on confirmation;
k never drops below the votes (and open leases) an item already has, and the page says what to do instead;
an import never changes k of a running project."""
from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select, update

from annotator.analysis.results import AnnotatorProgress, ProjectProgress
from annotator.core.extensions import db
from annotator.core.models import Assignment, Item, Project, utcnow
from annotator.engine import assignment as engine
from annotator.engine.invariants import load_snapshot, votes_per_item
from annotator.quality import QUALITY_OPTIONS
from tests.conftest import DATA
from tests.web.conftest import csrf_token


def _vote(project, users):  # type: ignore[no-untyped-def]
    """Each user votes on every item, so every item has len(users) votes."""
    for user in users:
        while (lease := engine.next_for(user, project)) is not None:
            engine.submit(lease.id, user, {"matches": []})


def _save_k(client, k: str, confirm: str | None = None):  # type: ignore[no-untyped-def]
    page = client.get("/admin/projects/kpa").get_data(as_text=True)
    return client.post("/admin/projects/kpa", data={
        "csrf_token": csrf_token(page), "name": "KPA", "k": k, "lease_minutes": "30",
        "positive_threshold": "0.6", "negative_threshold": "0.15", **({"confirm_k": confirm} if confirm else {})})


def _stored_k() -> int:
    db.session.remove()
    return db.session.scalar(select(Project.k))


def test_the_settings_form_refuses_a_k_below_the_votes_an_item_has(login, make_user, kpa_project):
    project = kpa_project(k=3)
    _vote(project, [make_user(n) for n in ("a", "b", "c")])
    make_user("boss", role="admin")
    html = _save_k(login("boss"), "2").get_data(as_text=True)
    assert "k cannot be 2: arg_1_0 has 3 votes" in html and "so k must be at least 3" in html
    assert _stored_k() == 3


def test_the_refusal_says_what_to_do_when_the_votes_do_not_allow_a_lower_k(login, make_user, kpa_project):
    project = kpa_project(k=3)
    _vote(project, [make_user(n) for n in ("a", "b", "c")])
    make_user("boss", role="admin")
    html = _save_k(login("boss"), "2").get_data(as_text=True)
    assert "Votes are never taken back" in html and "start a new project with the lower k" in html


def test_the_settings_form_accepts_k_down_to_the_votes_once_confirmed(login, make_user, kpa_project):
    project = kpa_project(k=5)
    _vote(project, [make_user(n) for n in ("a", "b")])
    make_user("boss", role="admin")
    assert _save_k(login("boss"), "2", confirm="2").status_code == 302 and _stored_k() == 2


def test_raising_k_over_complete_items_says_what_it_does_and_saves_nothing(login, make_user, kpa_project):
    project = kpa_project(k=2)
    _vote(project, [make_user(n) for n in ("a", "b")])  # all 26 items complete
    make_user("boss", role="admin")
    response = _save_k(login("boss"), "3")
    html = response.get_data(as_text=True)
    assert response.status_code == 200 and 'id="k-change"' in html
    assert ("Raising k from 2 to 3: 26 complete items go back to pending and leave gold, agreement, the charts and "
            "the exports until a 3rd vote.") in html
    assert 'name="confirm_k" value="3"' in html
    assert _stored_k() == 2


def test_raising_k_is_saved_once_confirmed(login, make_user, kpa_project):
    project = kpa_project(k=2)
    _vote(project, [make_user(n) for n in ("a", "b")])
    make_user("boss", role="admin")
    assert _save_k(login("boss"), "3", confirm="3").status_code == 302 and _stored_k() == 3


def test_a_confirmation_of_another_k_saves_nothing(login, make_user, kpa_project):
    project = kpa_project(k=2)
    _vote(project, [make_user(n) for n in ("a", "b")])
    make_user("boss", role="admin")
    assert 'id="k-change"' in _save_k(login("boss"), "4", confirm="3").get_data(as_text=True)
    assert _stored_k() == 2


def test_raising_k_before_any_item_is_complete_is_saved_at_once(login, make_user, kpa_project):
    project = kpa_project(k=2)
    _vote(project, [make_user("a")])
    make_user("boss", role="admin")
    assert _save_k(login("boss"), "3").status_code == 302 and _stored_k() == 3


def test_k_raised_by_mistake_goes_back_down_once_confirmed(login, make_user, kpa_project):
    project = kpa_project(k=3)
    _vote(project, [make_user(n) for n in ("a", "b", "c")])
    make_user("boss", role="admin")
    client = login("boss")
    assert _save_k(client, "4", confirm="4").status_code == 302
    html = _save_k(client, "3").get_data(as_text=True)
    assert "Lowering k from 4 to 3: 26 pending items become complete with 3 votes and enter gold" in html
    assert _save_k(client, "3", confirm="3").status_code == 302 and _stored_k() == 3


def test_an_open_lease_holds_k_up_until_it_is_submitted(login, make_user, kpa_project):
    project = kpa_project(k=3)
    _vote(project, [make_user(n) for n in ("a", "b")])
    late = make_user("c")
    lease = engine.next_for(late, project)
    make_user("boss", role="admin")
    client = login("boss")
    html = _save_k(client, "2", confirm="2").get_data(as_text=True)
    assert f"{lease.item.external_id} has 2 votes and 1 open lease" in html
    assert "k can be 3 now and 2 once those leases are submitted or run out" in html
    assert _stored_k() == 3
    engine.submit(lease.id, late, {"matches": []})
    assert votes_per_item(load_snapshot("kpa"), complete=False).passed


def test_an_expired_lease_no_longer_holds_k_up(login, make_user, kpa_project):
    project = kpa_project(k=3)
    _vote(project, [make_user(n) for n in ("a", "b")])
    lease = engine.next_for(make_user("c"), project)
    db.session.execute(update(Assignment).where(Assignment.id == lease.id).values(
        expires_at=utcnow() - timedelta(minutes=1)))
    db.session.commit()
    make_user("boss", role="admin")
    assert _save_k(login("boss"), "2", confirm="2").status_code == 302 and _stored_k() == 2
    assert votes_per_item(load_snapshot("kpa"), complete=False).passed


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


def _with_dynamic_overlap(project, target: int) -> None:  # type: ignore[no-untyped-def]
    """Dynamic overlap on (max_k 4), and every item's target raised to `target` as the overlap would have."""
    project.quality = {"max_k": 4}
    db.session.execute(update(Item).where(Item.project_id == project.id).values(target=target))
    db.session.commit()


def _save_quality(client, confirm: str | None = None, **changes: str):  # type: ignore[no-untyped-def]
    page = client.get("/admin/projects/kpa").get_data(as_text=True)
    data = {o.name: o.text(o.default) for o in QUALITY_OPTIONS if o.type is not bool}
    return client.post("/admin/projects/kpa/quality", data={
        "csrf_token": csrf_token(page), **data, **changes, **({"confirm_max_k": confirm} if confirm else {})})


def _stored_max_k() -> int:
    db.session.remove()
    return (db.session.scalar(select(Project.quality)) or {}).get("max_k", 0)


def test_turning_dynamic_overlap_off_says_which_items_it_completes_and_saves_nothing(login, make_user,
                                                                                      kpa_project):
    project = kpa_project(k=2)
    _with_dynamic_overlap(project, target=3)
    _vote(project, [make_user(n) for n in ("a", "b")])  # 2 votes each: pending while their target is 3
    make_user("boss", role="admin")
    response = _save_quality(login("boss"), max_k="0")
    html = response.get_data(as_text=True)
    assert response.status_code == 200 and 'id="overlap-change"' in html
    assert ("Turning dynamic overlap off: every item needs k = 2 votes again: 26 pending items become complete and "
            "enter gold") in html
    assert _stored_max_k() == 4


def test_turning_dynamic_overlap_off_is_saved_once_confirmed(login, make_user, kpa_project):
    project = kpa_project(k=2)
    _with_dynamic_overlap(project, target=3)
    _vote(project, [make_user(n) for n in ("a", "b")])
    make_user("boss", role="admin")
    assert _save_quality(login("boss"), confirm="0", max_k="0").status_code == 302 and _stored_max_k() == 0
    assert votes_per_item(load_snapshot("kpa"), complete=True).passed


def test_dynamic_overlap_cannot_be_turned_off_over_items_with_more_votes_than_k(login, make_user, kpa_project):
    project = kpa_project(k=2)
    _with_dynamic_overlap(project, target=3)
    _vote(project, [make_user(n) for n in ("a", "b", "c")])  # 3 votes each, above k
    make_user("boss", role="admin")
    client = login("boss")
    assert _save_quality(client, confirm="0", max_k="0").status_code == 302
    html = client.get("/admin/projects/kpa").get_data(as_text=True)
    assert "dynamic overlap cannot be turned off: arg_1_0 has 3 votes" in html and "raise k to 3 first" in html
    assert _stored_max_k() == 4


def test_max_k_cannot_go_below_a_target_the_overlap_has_raised(login, make_user, kpa_project):
    project = kpa_project(k=2)
    _with_dynamic_overlap(project, target=4)
    make_user("boss", role="admin")
    client = login("boss")
    assert _save_quality(client, max_k="3").status_code == 302
    html = client.get("/admin/projects/kpa").get_data(as_text=True)
    assert "max_k cannot be 3: dynamic overlap has raised an item" in html
    assert "target to 4 already, so max_k must be at least 4" in html
    assert _stored_max_k() == 4
