"""Erasure deletes the failed logins typed with the person's name (their rows would link it to addresses for up to
an hour), from the erasure page as from `flask erase`: they are rows of the database, which both reach."""
from __future__ import annotations

from sqlalchemy import func, select

from annotator.core.extensions import db
from annotator.core.models import LoginFailure
from annotator.people.erasure import erase, find_person
from annotator.people.login_counters import account_key
from tests.people.conftest import events
from tests.web.test_throttle import _status, throttled  # noqa: F401 - the fixture


def _failures_of(name: str) -> int:
    db.session.remove()
    return db.session.scalar(select(func.count()).select_from(LoginFailure)
                             .where(LoginFailure.account == account_key(name)))


def test_the_failed_logins_of_the_erased_name_are_deleted(throttled, make_user):  # noqa: F811
    make_user("ann")
    limited = throttled()
    client = limited.test_client()
    assert [_status(client, "ann", "wrong") for _ in range(3)] == [401] * 3
    assert _status(client, "ann", "wrong") == 429
    with limited.test_request_context():  # as the erasure page does, in the server's process
        done = erase(find_person(account="ann"))
        db.session.remove()
    assert done.login_counters_cleared
    with limited.app_context():
        assert _failures_of("ann") == 0
        [event] = events("erase")
        assert event.detail["login_counters_cleared"] is True
    assert _status(client, "ann", "wrong") == 401  # counted from zero again


def test_a_command_line_erasure_deletes_them_too(throttled, make_user):  # noqa: F811
    make_user("ann")
    make_user("bob")
    limited = throttled()
    for name in ("ann", "bob"):
        _status(limited.test_client(), name, "wrong")
    with limited.app_context():
        result = limited.test_cli_runner().invoke(args=["erase", "--account", "ann", "--yes"])
        assert result.exit_code == 0, result.output
        assert "not deleted" not in result.output
        assert (_failures_of("ann"), _failures_of("bob")) == (0, 1)
        [event] = events("erase")
        assert event.detail["login_counters_cleared"] is True
