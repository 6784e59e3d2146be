"""Erasure clears the failed-login counters kept under the person's name (they would name them for up to an hour)."""
from __future__ import annotations

from annotator.core.extensions import db
from annotator.people.erasure import erase, find_person
from tests.people.conftest import events
from tests.web.test_throttle import _attempt, throttled  # noqa: F401 - the fixture


def test_the_counters_of_the_erased_name_are_cleared(throttled, make_user):  # noqa: F811
    make_user("ann")
    limited = throttled()
    client = limited.test_client()
    assert [_attempt(client, "ann", "wrong", address=f"10.0.0.{n}") for n in range(3)] == [401] * 3
    assert _attempt(client, "ann", "wrong", address="10.0.1.1") == 429
    with limited.test_request_context():  # as the erasure page does, in the server's process
        done = erase(find_person(account="ann"))
        db.session.remove()
    assert done.login_counters_cleared
    assert _attempt(client, "ann", "wrong", address="10.0.2.2") == 401  # counted from zero again
    with limited.app_context():
        [event] = events("erase")
        assert event.detail["login_counters_cleared"] is True


def test_a_command_line_erasure_with_a_memory_store_says_the_counters_were_not_cleared(throttled, make_user):  # noqa: F811
    make_user("ann")
    limited = throttled()
    with limited.app_context():
        result = limited.test_cli_runner().invoke(args=["erase", "--account", "ann", "--yes"])
        assert result.exit_code == 0, result.output
        assert "failed-login counters were not cleared" in result.output
        [event] = events("erase")
        assert event.detail["login_counters_cleared"] is False
