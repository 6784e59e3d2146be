"""Retention: `flask purge` deletes the personal records older than their setting, keeps the newer ones, records
what it did, and may run on several hosts at once (each row deleted once, no error)."""
from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from flask import Flask
from sqlalchemy import func, select

from annotator.core.audit import record
from annotator.core.extensions import db
from annotator.core.models import AuditEvent, CrowdSession, User, utcnow
from annotator.people.crowd import save_link
from annotator.people.retention import RetentionError, days_of, purge
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
    assert event.detail == {"deleted": {"crowd_sessions": 1}, "days": {"crowd_sessions": 180}}


def test_zero_or_empty_keeps_forever(app, sessions):
    sessions([4000])
    app.config["RETENTION_CROWD_SESSIONS_DAYS"] = ""
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
    barrier, results, errors = threading.Barrier(2), [], []

    def run() -> None:
        with app.app_context():
            try:
                barrier.wait()
                results.append(purge(app.config))
            except Exception as error:  # noqa: BLE001 - reported below
                errors.append(error)
            finally:
                db.session.remove()

    threads = [threading.Thread(target=run) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert errors == []
    assert len(results) == 2 and sum(r["crowd_sessions"] for r in results) == 400
    assert db.session.scalar(select(func.count()).select_from(CrowdSession)) == 1
    assert len(events("purge")) == 2
