"""`flask users unlock`: an admin ends the login refusals of an owner at once, by forgetting the failed logins typed
with their name, or those from an address (an owner behind the same address as a guesser)."""
from __future__ import annotations

from sqlalchemy import func, select

from annotator.core.extensions import db
from annotator.core.models import LoginFailure
from annotator.people.login_counters import account_key
from tests.conftest import PASSWORD
from tests.people.conftest import events
from tests.web.test_throttle import GUESSER, _status, throttled  # noqa: F401 - the fixture


def _unlock(app, *args: str):  # type: ignore[no-untyped-def]
    with app.app_context():
        return app.test_cli_runner().invoke(args=["users", "unlock", *args])


def test_unlocking_a_name_lets_its_owner_log_in_at_once_and_is_audited(throttled, make_user):  # noqa: F811
    ann = make_user("ann")
    limited = throttled()
    client = limited.test_client()
    for _ in range(3):
        _status(client, "ann", "wrong")
    assert _status(client, "ann", PASSWORD) == 429
    result = _unlock(limited, "ann")
    assert result.exit_code == 0 and result.output == "Forgot 3 failed login(s) typed as 'ann'.\n"
    assert _status(client, "ann", PASSWORD) == 302
    [event] = events("account.unlock")
    assert event.detail == {"user_id": ann.id, "address": False, "failures": 3}


def test_unlocking_a_name_keeps_the_failures_typed_with_other_names(throttled, make_user):  # noqa: F811
    limited = throttled()
    for name in ("ann", "bob", "bob"):
        _status(limited.test_client(), name, "wrong")
    _unlock(limited, "ann")
    db.session.remove()
    assert db.session.scalar(select(func.count()).select_from(LoginFailure)
                             .where(LoginFailure.account == account_key("bob"))) == 2
    assert db.session.scalar(select(func.count()).select_from(LoginFailure)) == 2


def test_unlocking_an_address_ends_its_refusal_for_every_account(throttled, make_user):  # noqa: F811
    make_user("ann")
    limited = throttled()
    client = limited.test_client()
    for n in range(6):
        _status(client, f"guess{n}", "wrong")
    assert _status(client, "ann", PASSWORD) == 429
    result = _unlock(limited, "--address", GUESSER)
    assert result.exit_code == 0 and result.output == f"Forgot 6 failed login(s) from {GUESSER}.\n"
    assert _status(client, "ann", PASSWORD) == 302


def test_unlock_needs_a_name_or_an_address(throttled):  # noqa: F811
    result = _unlock(throttled())
    assert result.exit_code == 2 and "give a user name, --address, or both" in result.output
