"""Erasure clears the failed-login counters kept under the person's name (they would name them for up to an hour)."""
from __future__ import annotations

from annotator.core.extensions import db
from annotator.people.erasure import erase, find_person
from tests.web.test_throttle import _attempt, throttled  # noqa: F401 - the fixture


def test_the_counters_of_the_erased_name_are_cleared(throttled, make_user):  # noqa: F811
    make_user("ann")
    limited = throttled()
    client = limited.test_client()
    assert [_attempt(client, "ann", "wrong", address=f"10.0.0.{n}") for n in range(3)] == [401] * 3
    assert _attempt(client, "ann", "wrong", address="10.0.1.1") == 429
    with limited.app_context():
        done = erase(find_person(account="ann"))
        db.session.remove()
    assert done.login_counters_cleared
    assert _attempt(client, "ann", "wrong", address="10.0.2.2") == 401  # counted from zero again
