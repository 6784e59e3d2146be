"""Login throttling: failed logins per (account, address) and per address, counted in the database, so that a
guesser is stopped at their address while the owner logs in from theirs; the unknown-user path costs a hash too."""
from __future__ import annotations

import logging
from datetime import timedelta

import pytest
from sqlalchemy import func, select

from annotator import create_app
from annotator.core.extensions import db
from annotator.core.models import LoginFailure, utcnow
from annotator.people.login_counters import Limit, account_key, address_key, client_address, parse_limits
from tests.conftest import PASSWORD, RequestClient
from tests.web.conftest import csrf_token

GUESSER, OWNER = "203.0.113.5", "198.51.100.7"


@pytest.fixture
def throttled(database_url, app):  # type: ignore[no-untyped-def]
    """An app with throttling on (TestConfig switches it off for every other test): 3 failures per account at an
    address, 6 per address, each a minute."""
    def make(**config):  # type: ignore[no-untyped-def]
        limits = {"LOGIN_LIMIT_PER_ACCOUNT_AT_ADDRESS": "3 per minute", "LOGIN_LIMIT_PER_ADDRESS": "6 per minute"}
        limited = create_app("config.TestConfig", SQLALCHEMY_DATABASE_URI=database_url, LOGIN_THROTTLE_ENABLED=True,
                             **{**limits, **config})
        limited.test_client_class = RequestClient
        return limited
    return make


def _attempt(client, username: str, password: str, address: str = GUESSER,  # type: ignore[no-untyped-def]
             headers: dict[str, str] | None = None):
    environ = {"REMOTE_ADDR": address}
    page = client.get("/login", environ_base=environ).get_data(as_text=True)
    return client.post("/login", environ_base=environ, headers=headers or {}, data={
        "username": username, "password": password, "csrf_token": csrf_token(page)})


def _status(client, username: str, password: str, address: str = GUESSER) -> int:  # type: ignore[no-untyped-def]
    return _attempt(client, username, password, address).status_code


def test_after_too_many_wrong_passwords_even_the_right_one_is_refused_at_that_address(throttled, make_user):
    make_user("ann")
    client = throttled().test_client()
    assert [_status(client, "ann", "wrong") for _ in range(3)] == [401] * 3
    assert _status(client, "ann", PASSWORD) == 429


def test_the_owner_at_another_address_logs_in_while_a_guesser_fails_as_them(throttled, make_user):
    make_user("admin", role="admin")
    client = throttled().test_client()
    statuses = [_status(client, "admin", f"guess-{n}") for n in range(40)]
    assert statuses[:3] == [401] * 3 and set(statuses[3:]) == {429}
    assert _status(client, "admin", PASSWORD, address=OWNER) == 302


def test_the_guessers_address_is_refused_for_every_account(throttled, make_user):
    make_user("ann")
    client = throttled().test_client()
    for n in range(6):
        _status(client, f"guess{n}", "wrong")
    assert _status(client, "ann", PASSWORD) == 429
    assert _status(client, "ann", PASSWORD, address=OWNER) == 302


def test_refused_attempts_do_not_count_so_the_lock_ends_with_the_window(throttled, make_user):
    make_user("ann")
    client = throttled().test_client()
    for _ in range(10):
        _status(client, "ann", "wrong")
    assert db.session.scalar(select(func.count()).select_from(LoginFailure)) == 3


def test_successful_logins_do_not_count(throttled, make_user):
    make_user("ann")
    app = throttled()
    assert [_status(app.test_client(), "ann", PASSWORD) for _ in range(5)] == [302] * 5
    assert db.session.scalar(select(func.count()).select_from(LoginFailure)) == 0


def test_the_refusal_says_how_long_to_wait(throttled, make_user):
    make_user("ann")
    client = throttled().test_client()
    for _ in range(3):
        _status(client, "ann", "wrong")
    refused = _attempt(client, "ann", "x")
    assert "Too many failed logins from here: wait 1 minute, then try again." in refused.get_data(as_text=True)
    assert 55 <= int(refused.headers["Retry-After"]) <= 60


def test_variants_of_a_name_count_as_that_name(throttled, make_user):
    make_user("ann")
    client = throttled().test_client()
    for name in ("ann", "ANN", " Ann "):
        _status(client, name, "wrong")
    assert _status(client, "ann", PASSWORD) == 429


def test_workers_on_one_database_count_together(throttled, make_user):
    make_user("ann")
    one, two = throttled(), throttled()  # two processes' apps, as two gunicorn workers or hosts have them
    for worker in (one, two, one):
        _status(worker.test_client(), "ann", "wrong")
    assert _status(two.test_client(), "ann", PASSWORD) == 429


def test_a_restart_forgets_no_failure(throttled, make_user):
    make_user("ann")
    before = throttled()
    for _ in range(3):
        _status(before.test_client(), "ann", "wrong")
    assert _status(throttled().test_client(), "ann", PASSWORD) == 429


def test_failures_older_than_the_longest_window_are_deleted_when_one_is_written(throttled, make_user):
    make_user("ann")
    app = throttled(LOGIN_LIMIT_PER_ADDRESS="6 per minute;10 per hour")
    with app.app_context():
        old = LoginFailure(account=account_key("ann"), address=address_key(GUESSER),
                           at=utcnow() - timedelta(hours=1, seconds=5))
        recent = LoginFailure(account=account_key("bob"), address=address_key(OWNER),
                              at=utcnow() - timedelta(minutes=59))
        db.session.add_all([old, recent])
        db.session.commit()
    _status(app.test_client(), "ann", "wrong")
    db.session.remove()
    rows = db.session.execute(select(LoginFailure.account, LoginFailure.address)).all()
    assert sorted(rows) == sorted([(account_key("bob"), address_key(OWNER)),
                                   (account_key("ann"), address_key(GUESSER))])


def test_failures_keep_neither_the_typed_name_nor_the_address(throttled, make_user):
    client = throttled().test_client()
    _status(client, "my secret password", "wrong")
    row = db.session.scalars(select(LoginFailure)).one()
    assert "secret" not in row.account and GUESSER not in row.address
    assert len(row.account) == len(row.address) == 64


def test_one_ipv6_network_counts_as_one_address(throttled, make_user):
    make_user("ann")
    client = throttled().test_client()
    for n in range(1, 7):
        _status(client, f"guess{n}", "wrong", address=f"2001:db8:0:1::{n:x}")
    assert _status(client, "ann", PASSWORD, address="2001:db8:0:1:ffff::1") == 429
    assert _status(client, "ann", PASSWORD, address="2001:db8:0:2::1") == 302


@pytest.mark.parametrize(("remote", "counted_as"), [
    ("192.0.2.7", "192.0.2.7"), ("::ffff:192.0.2.7", "192.0.2.7"), ("2001:db8::1", "2001:db8::/64"),
    ("2001:DB8::abcd:1", "2001:db8::/64"), (None, "unknown"), ("", "unknown")])
def test_a_client_address_counts_as_its_ipv4_address_or_ipv6_network(remote, counted_as):
    assert client_address(remote) == counted_as


def test_behind_a_proxy_the_forwarded_address_counts(throttled, make_user):
    make_user("ann")
    client = throttled(PROXIES=1).test_client()
    proxy = "10.0.0.1"
    for _ in range(3):
        response = _attempt(client, "ann", "wrong", address=proxy, headers={"X-Forwarded-For": GUESSER})
        assert response.status_code == 401
    refused = _attempt(client, "ann", PASSWORD, address=proxy, headers={"X-Forwarded-For": GUESSER})
    assert refused.status_code == 429
    owner = _attempt(client, "ann", PASSWORD, address=proxy, headers={"X-Forwarded-For": OWNER})
    assert owner.status_code == 302


def test_a_refusal_through_a_proxy_that_is_not_configured_warns(throttled, make_user, caplog):
    make_user("ann")
    client = throttled().test_client()
    for _ in range(3):
        _attempt(client, "ann", "wrong", headers={"X-Forwarded-For": OWNER})
    with caplog.at_level(logging.WARNING):
        assert _attempt(client, "ann", PASSWORD, headers={"X-Forwarded-For": OWNER}).status_code == 429
    assert "without ANNOTATOR_PROXIES every client behind it counts as that one address" in caplog.text


def test_a_direct_refusal_does_not_warn_of_a_proxy(throttled, make_user, caplog):
    make_user("ann")
    client = throttled().test_client()
    for _ in range(3):
        _status(client, "ann", "wrong")
    with caplog.at_level(logging.WARNING):
        assert _status(client, "ann", PASSWORD) == 429
    assert "ANNOTATOR_PROXIES" not in caplog.text


@pytest.mark.parametrize(("text", "limits"), [
    ("5 per minute;20 per hour", (Limit(5, 60), Limit(20, 3600))), ("10/hour", (Limit(10, 3600),)),
    ("100 per 2 days, 3 per 30 seconds", (Limit(100, 172800), Limit(3, 30))), (" 1 PER Second ", (Limit(1, 1),))])
def test_limits_are_written_as_counts_per_period(text, limits):
    assert parse_limits(text, "LOGIN_LIMIT_PER_ADDRESS") == limits


@pytest.mark.parametrize("text", ["lots", "5 per fortnight", "0 per minute", "5 per 0 minutes", "", " ; "])
def test_an_unreadable_limit_stops_the_app_from_starting_and_names_the_setting(database_url, text):
    with pytest.raises(ValueError, match="LOGIN_LIMIT_PER_ADDRESS"):
        create_app("config.TestConfig", SQLALCHEMY_DATABASE_URI=database_url, LOGIN_LIMIT_PER_ADDRESS=text)


def test_an_unknown_user_name_costs_a_password_check_too(app, monkeypatch):
    from annotator.people import accounts
    checked = []
    real = accounts.check_password_hash
    monkeypatch.setattr(accounts, "check_password_hash", lambda h, p: checked.append(p) or real(h, p))
    assert accounts.authenticate("nobody", "guess") is None
    assert checked == ["guess"]
