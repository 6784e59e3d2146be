"""Entering a study through its link (issue 42): it leases nothing, so made-up worker ids hold no slot of a
project; new accounts are rate-limited per client address and capped per link, counted in the database;
a worker who finds every HIT left held by others is told so, not sent round between two pages."""
from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

import pytest
from sqlalchemy import delete, func, select, update

from annotator import create_app
from annotator.core.extensions import db
from annotator.core.models import LEASED, Assignment, CrowdAccountCreation, CrowdWorker, Item, Project, utcnow
from annotator.engine import assignment as engine
from annotator.people.crowd import link_token, save_link
from tests.support.crowd_visits import answer_hit, start_hit
from tests.web.conftest import csrf_token

PROLIFIC = "?PROLIFIC_PID={pid}&STUDY_ID=65b0c0ffee0123456789abcd&SESSION_ID=se{pid}"


def _three_items(kpa_project, k: int) -> Project:  # type: ignore[no-untyped-def]
    """Project `kpa` cut to its first 3 arguments, with k votes each."""
    project = kpa_project(k=k)
    first = db.session.scalars(select(Item.id).where(Item.project_id == project.id)
                               .order_by(Item.position).limit(3)).all()
    db.session.execute(delete(Item).where(Item.project_id == project.id, Item.id.not_in(first)))
    db.session.commit()
    return project


@pytest.fixture
def entry(app, kpa_project):  # type: ignore[no-untyped-def]
    """The Prolific entry path of a 3-item project (k=2, 6 slots), 2 HITs per study."""
    project = _three_items(kpa_project, k=2)
    path = f"/crowd/kpa/prolific/{link_token(save_link(project, 'prolific', 2, 'C0DE77'))}"
    db.session.commit()
    return path


def _pid(n: int) -> str:
    return f"{n:024x}"


def _workers() -> int:
    return db.session.scalar(select(func.count()).select_from(CrowdWorker))


def _leases() -> int:
    return db.session.scalar(select(func.count()).select_from(Assignment).where(Assignment.status == LEASED))


def test_made_up_ids_entering_the_study_hold_none_of_the_projects_slots(app, entry):
    for n in range(6):  # the probe: six GETs of the study link with invented ids
        assert app.test_client().get(entry + PROLIFIC.format(pid=_pid(n))).status_code == 302
    assert _leases() == 0
    genuine = app.test_client()
    genuine.get(entry + PROLIFIC.format(pid="5f1a2b3c4d5e6f7a8b9c0d1e"))
    html = start_hit(genuine, "kpa")
    assert 'id="hit-form"' in html and "0 / 2 done" in html
    answer_hit(genuine, "kpa")
    answer_hit(genuine, "kpa")
    assert genuine.get("/p/kpa/").location.endswith("/crowd/kpa/done")


def test_a_worker_who_finds_every_hit_left_held_by_others_is_told_so_once(app, kpa_project, make_user):
    project = _three_items(kpa_project, k=1)
    path = f"/crowd/kpa/prolific/{link_token(save_link(project, 'prolific', 2, 'C0DE77'))}"
    holders = [make_user(name) for name in ("ann", "bob", "cat")]
    for holder in holders:
        engine.next_for(holder, db.session.get_one(Project, project.id))
    db.session.commit()
    worker = app.test_client()
    worker.get(path + PROLIFIC.format(pid="5f1a2b3c4d5e6f7a8b9c0d1e"))
    page = worker.get("/p/kpa/").get_data(as_text=True)
    response = worker.post("/p/kpa/next", data={"csrf_token": csrf_token(page)})
    html = response.get_data(as_text=True)
    assert response.status_code == 200 and "No HIT is free for you right now" in html
    assert 'id="start">Try again</button>' in html and "0 / 2 done" in html


def test_new_accounts_from_one_address_stop_at_the_limit_with_a_time_to_wait(app, entry):
    app.config["CROWD_NEW_ACCOUNTS_PER_ADDRESS"] = 3
    for n in range(3):
        assert app.test_client().get(entry + PROLIFIC.format(pid=_pid(n))).status_code == 302
    response = app.test_client().get(entry + PROLIFIC.format(pid=_pid(3)))
    assert response.status_code == 429 and "network address" in response.get_data(as_text=True)
    assert 3500 <= int(response.headers["Retry-After"]) <= 3600
    assert _workers() == 3
    other = app.test_client()
    other.environ_base["REMOTE_ADDR"] = "198.51.100.7"
    assert other.get(entry + PROLIFIC.format(pid=_pid(4))).status_code == 302


def test_the_address_limit_lifts_when_its_window_has_passed(app, entry):
    app.config["CROWD_NEW_ACCOUNTS_PER_ADDRESS"] = 1
    assert app.test_client().get(entry + PROLIFIC.format(pid=_pid(0))).status_code == 302
    assert app.test_client().get(entry + PROLIFIC.format(pid=_pid(1))).status_code == 429
    db.session.execute(update(CrowdAccountCreation).values(created_at=utcnow() - timedelta(minutes=61)))
    db.session.commit()
    assert app.test_client().get(entry + PROLIFIC.format(pid=_pid(1))).status_code == 302


def test_a_worker_with_an_account_is_not_counted_again(app, entry):
    app.config["CROWD_NEW_ACCOUNTS_PER_ADDRESS"] = 1
    query = entry + PROLIFIC.format(pid=_pid(0))
    for _ in range(3):  # reloads, a second browser: the same session
        assert app.test_client().get(query).status_code == 302
    assert db.session.scalar(select(func.count()).select_from(CrowdAccountCreation)) == 1


def test_the_address_limit_counts_the_accounts_every_worker_process_made(app, entry, database_url):
    app.config["CROWD_NEW_ACCOUNTS_PER_ADDRESS"] = 2
    other_process = create_app("config.TestConfig", SQLALCHEMY_DATABASE_URI=database_url,
                               CROWD_NEW_ACCOUNTS_PER_ADDRESS=2)
    try:
        assert app.test_client().get(entry + PROLIFIC.format(pid=_pid(0))).status_code == 302
        assert other_process.test_client().get(entry + PROLIFIC.format(pid=_pid(1))).status_code == 302
        assert app.test_client().get(entry + PROLIFIC.format(pid=_pid(2))).status_code == 429
        assert other_process.test_client().get(entry + PROLIFIC.format(pid=_pid(3))).status_code == 429
    finally:
        with other_process.app_context():
            db.session.remove()
            db.engine.dispose()


def test_a_link_makes_no_more_accounts_than_its_cap(app, entry):
    app.config.update(CROWD_ACCOUNTS_PER_LINK_MIN=2, CROWD_ACCOUNTS_PER_LINK_FACTOR=0)
    for n in range(2):
        assert app.test_client().get(entry + PROLIFIC.format(pid=_pid(n))).status_code == 302
    elsewhere = app.test_client()
    elsewhere.environ_base["REMOTE_ADDR"] = "198.51.100.7"
    response = elsewhere.get(entry + PROLIFIC.format(pid=_pid(2)))
    assert response.status_code == 409 and "takes no new workers" in response.get_data(as_text=True)
    assert "Retry-After" not in response.headers and _workers() == 2
    assert app.test_client().get(entry + PROLIFIC.format(pid=_pid(0))).status_code == 302  # a known worker


def test_the_cap_by_default_is_twice_the_workers_the_project_needs(app, entry):
    app.config.update(CROWD_ACCOUNTS_PER_LINK_MIN=1, CROWD_NEW_ACCOUNTS_PER_ADDRESS=100)
    for n in range(6):  # 3 items x k=2 / 2 HITs per study = 3 workers needed; twice that is 6
        assert app.test_client().get(entry + PROLIFIC.format(pid=_pid(n))).status_code == 302
    assert app.test_client().get(entry + PROLIFIC.format(pid=_pid(6))).status_code == 409


def test_the_address_is_kept_as_a_keyed_hash_and_only_for_the_window(app, entry):
    app.test_client().get(entry + PROLIFIC.format(pid=_pid(0)))
    [first] = db.session.scalars(select(CrowdAccountCreation.address_key)).all()
    assert first is not None and "127.0.0.1" not in first and len(first) == 64
    db.session.execute(update(CrowdAccountCreation).values(created_at=utcnow() - timedelta(minutes=61)))
    db.session.commit()
    app.test_client().get(entry + PROLIFIC.format(pid=_pid(1)))
    keys = db.session.scalars(select(CrowdAccountCreation.address_key).order_by(CrowdAccountCreation.id)).all()
    assert keys == [None, first]  # the same address, the same key; the old row's is gone


def test_the_crowd_page_shows_the_accounts_a_link_made_and_its_cap(app, entry, login, make_user):
    for n in range(2):
        app.test_client().get(entry + PROLIFIC.format(pid=_pid(n)))
    make_user("boss", role="admin")
    html = login("boss").get("/admin/projects/kpa/crowd").get_data(as_text=True)
    assert '<dd id="crowd-prolific-accounts">2 of at most 20</dd>' in html


def test_entries_at_the_same_moment_make_no_more_accounts_than_the_cap(app, entry):
    app.config.update(CROWD_ACCOUNTS_PER_LINK_MIN=2, CROWD_ACCOUNTS_PER_LINK_FACTOR=0)
    barrier = threading.Barrier(6)

    def enter(n: int) -> int:
        with app.app_context():  # a thread of its own, as a server's
            client = app.test_client()
            barrier.wait()
            return client.get(entry + PROLIFIC.format(pid=_pid(n))).status_code

    with ThreadPoolExecutor(6) as pool:
        statuses = sorted(pool.map(enter, range(6)))
    assert statuses == [302, 302, 409, 409, 409, 409]
    assert _workers() == 2
