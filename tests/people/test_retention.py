"""Retention: `flask purge` deletes the personal records older than their setting, keeps the newer ones, records
what it did, and may run on several hosts at once (each row deleted once, no error)."""
from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from flask import Flask
from sqlalchemy import func, select, text

from annotator.core.audit import record
from annotator.core.extensions import db
from annotator.core.models import AuditEvent, CrowdLink, CrowdSession, CrowdWorker, User, utcnow
from annotator.people.crowd import save_link
from annotator.people.retention import PURGE_LOCK, RetentionError, days_of, purge
from tests.people.conftest import events


@pytest.fixture
def sessions(app: Flask, kpa_project, make_user):  # type: ignore[no-untyped-def]
    """A study link with `n` sessions of a worker started `ages` days ago each: sessions(ages) -> the link's id."""
    def make(ages: list[float]) -> int:
        project = kpa_project()
        link = save_link(project, "prolific", 2, "DONE1")
        worker = User(username="prolific:abc", role="annotator")
        db.session.add(worker)
        db.session.flush()
        db.session.add_all(CrowdSession(link_id=link.id, user_id=worker.id, session_key=f"s{n}",
                                        details={"study_id": "st", "session_id": f"s{n}"},
                                        started_at=utcnow() - timedelta(days=age)) for n, age in enumerate(ages))
        db.session.commit()
        return link.id
    return make


def _keys() -> list[str]:
    db.session.remove()
    return sorted(db.session.scalars(select(CrowdSession.session_key)))


def test_sessions_older_than_the_setting_are_purged_and_newer_ones_kept(app, sessions):
    sessions([200, 181, 179, 1])
    result = app.test_cli_runner().invoke(args=["purge"])
    assert result.exit_code == 0, result.output
    assert "crowd_sessions: 2 deleted" in result.output
    assert _keys() == ["s2", "s3"]


def test_the_purge_records_what_it_deleted(app, sessions):
    sessions([400, 10])
    app.test_cli_runner().invoke(args=["purge"])
    [event] = events("purge")
    assert event.actor.startswith("command line")
    assert event.detail == {"deleted": {"crowd_workers": 0, "crowd_sessions": 1},
                            "days": {"crowd_sessions": 180, "crowd_workers": 365}}


def test_zero_or_empty_keeps_forever(app, sessions):
    sessions([4000])
    app.config["RETENTION_CROWD_SESSIONS_DAYS"] = ""
    app.config["RETENTION_CROWD_WORKERS_DAYS"] = "0"
    result = app.test_cli_runner().invoke(args=["purge"])
    assert "every retention setting keeps records forever" in result.output and _keys() == ["s0"]
    assert days_of({"X": "0"}, "X") is None and days_of({"X": " 30 "}, "X") == 30


def test_a_setting_that_is_not_days_is_refused_and_nothing_is_deleted(app, sessions):
    sessions([400])
    app.config["RETENTION_AUDIT_EVENTS_DAYS"] = "1 year"
    result = app.test_cli_runner().invoke(args=["purge"])
    assert result.exit_code != 0 and "RETENTION_AUDIT_EVENTS_DAYS must be a whole number" in result.output
    assert _keys() == ["s0"]
    with pytest.raises(RetentionError):
        days_of({"X": "-3"}, "X")


def test_old_audit_events_are_purged_when_a_retention_is_set(app):
    record("import", "old")
    record("import", "new")
    db.session.commit()
    old = db.update(AuditEvent).where(AuditEvent.project == "old")
    db.session.execute(old.values(at=utcnow() - timedelta(days=40)))
    db.session.commit()
    assert purge({"RETENTION_AUDIT_EVENTS_DAYS": "30"}) == {"audit_events": 1}
    db.session.remove()
    assert sorted(db.session.scalars(select(AuditEvent.project).where(AuditEvent.action == "import"))) == ["new"]


def test_two_purges_at_once_delete_each_row_once_without_error(app, sessions):
    sessions([300] * 400 + [1])
    db.session.remove()
    results, errors = _at_once(app, 2)
    assert errors == []
    assert len(results) == 2 and sum(r["crowd_sessions"] for r in results) == 400
    assert db.session.scalar(select(func.count()).select_from(CrowdSession)) == 1
    assert len(events("purge")) == 2


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)  # SQLite's write lock serialises purges
def test_a_purge_waits_on_postgresql_while_another_purge_holds_its_lock(app, sessions):
    sessions([300] * 3)
    db.session.remove()
    done: list[int] = []

    def run() -> None:
        with app.app_context():
            done.append(purge(app.config)["crowd_sessions"])
            db.session.remove()
    with db.engine.connect() as other:  # another purge's transaction, holding the lock
        other.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": PURGE_LOCK})
        thread = threading.Thread(target=run)
        thread.start()
        thread.join(timeout=1.0)
        assert thread.is_alive() and done == []
        other.commit()
    thread.join(timeout=30)
    assert done == [3]


def _worker(app: Flask, name: str, created_days_ago: int, session_days_ago: int | None = None) -> int:
    """A Prolific worker who came in through the link (entry path's functions), backdated."""
    from annotator.people.crowd import Visit, create_worker_account, start_session
    link = db.session.scalar(select(CrowdLink))
    user = create_worker_account("prolific", name)
    db.session.execute(db.update(CrowdWorker).where(CrowdWorker.user_id == user.id)
                       .values(created_at=utcnow() - timedelta(days=created_days_ago)))
    if session_days_ago is not None:
        session = start_session(link, user, Visit(name, f"S-{name}", {"study_id": "st", "session_id": f"S-{name}"}))
        session.started_at = utcnow() - timedelta(days=session_days_ago)
    db.session.commit()
    return user.id


def test_workers_not_seen_for_a_year_are_erased_and_their_votes_kept(app, kpa_project):
    save_link(kpa_project(), "prolific", 2, "DONE1")
    gone = _worker(app, "OLDWORKER1", created_days_ago=500, session_days_ago=400)
    back = _worker(app, "CAMEBACK22", created_days_ago=500, session_days_ago=20)
    new = _worker(app, "NEWWORKER3", created_days_ago=5)
    assert purge(app.config)["crowd_workers"] == 1
    db.session.remove()
    names = dict(db.session.execute(select(User.id, User.username)).all())
    assert names[gone].startswith("erased-") and names[back] == "prolific:CAMEBACK22"
    assert names[new] == "prolific:NEWWORKER3"
    assert sorted(db.session.scalars(select(CrowdWorker.worker_id).where(CrowdWorker.worker_id.is_not(None)))) \
        == ["CAMEBACK22", "NEWWORKER3"]


def test_each_worker_erased_by_retention_is_an_erase_event_naming_only_the_pseudonym(app, kpa_project):
    save_link(kpa_project(), "prolific", 2, "DONE1")
    gone = [_worker(app, name, created_days_ago=500, session_days_ago=400) for name in ("OLDWORKER1", "OLDWORKER2")]
    _worker(app, "NEWWORKER3", created_days_ago=5)
    assert purge(app.config)["crowd_workers"] == 2
    erased = events("erase")
    names = dict(db.session.execute(select(User.id, User.username)).all())
    assert [(e.actor, e.actor_id, e.detail["user_id"], e.detail["pseudonym"]) for e in erased] \
        == [("retention", None, user_id, names[user_id]) for user_id in gone]
    assert not any("OLDWORKER" in str(e.detail) for e in erased)


def test_two_purges_at_once_erase_each_unseen_worker_once(app, kpa_project):
    save_link(kpa_project(), "prolific", 2, "DONE1")
    for n in range(30):
        _worker(app, f"W{n:04d}", created_days_ago=400)
    db.session.remove()
    results, errors = _at_once(app, 2)
    assert errors == [] and sum(r["crowd_workers"] for r in results) == 30
    db.session.remove()
    assert db.session.scalar(select(func.count()).select_from(CrowdWorker)
                             .where(CrowdWorker.worker_id.is_not(None))) == 0
    assert db.session.scalar(select(func.count()).select_from(User).where(User.username.like("erased-%"))) == 30
    assert sorted(e.detail["user_id"] for e in events("erase")) == sorted(
        db.session.scalars(select(User.id).where(User.username.like("erased-%"))))


def _at_once(app: Flask, runs: int) -> tuple[list[dict[str, int]], list[Exception]]:
    """`runs` purges started together in threads, each with its own session; what each returned, and errors."""
    barrier, results, errors = threading.Barrier(runs), [], []

    def run() -> None:
        with app.app_context():
            try:
                barrier.wait()
                results.append(purge(app.config))
            except Exception as error:  # noqa: BLE001 - reported to the test
                errors.append(error)
            finally:
                db.session.remove()

    threads = [threading.Thread(target=run) for _ in range(runs)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return results, errors
