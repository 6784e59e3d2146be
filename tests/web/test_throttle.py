"""Login throttling (per account and per address) and the unknown-user path that costs a hash too."""
from __future__ import annotations

import uuid

import pytest

from annotator import create_app
from tests.conftest import PASSWORD, RequestClient, missing
from tests.web.conftest import csrf_token


@pytest.fixture
def throttled(database_url, app):  # type: ignore[no-untyped-def]
    """An app with throttling on (TestConfig switches it off for every other test)."""
    def make(**config):  # type: ignore[no-untyped-def]
        limited = create_app("config.TestConfig", SQLALCHEMY_DATABASE_URI=database_url, RATELIMIT_ENABLED=True,
                             LOGIN_LIMIT_PER_ACCOUNT="3 per minute", LOGIN_LIMIT_PER_ADDRESS="6 per minute", **config)
        limited.test_client_class = RequestClient
        return limited
    return make


def _attempt(client, username: str, password: str, address: str = "10.0.0.1") -> int:  # type: ignore[no-untyped-def]
    environ = {"REMOTE_ADDR": address}
    page = client.get("/login", environ_base=environ).get_data(as_text=True)
    return client.post("/login", environ_base=environ, data={
        "username": username, "password": password, "csrf_token": csrf_token(page)}).status_code


def test_after_too_many_wrong_passwords_even_the_right_one_is_refused(throttled, make_user):
    make_user("ann")
    client = throttled().test_client()
    assert [_attempt(client, "ann", "wrong") for _ in range(3)] == [401] * 3
    assert _attempt(client, "ann", PASSWORD) == 429


def test_the_account_limit_holds_across_addresses(throttled, make_user):
    make_user("ann")
    client = throttled().test_client()
    for n in range(3):
        _attempt(client, "ann", "wrong", address=f"10.0.0.{n}")
    assert _attempt(client, "ann", PASSWORD, address="10.0.9.9") == 429


def test_the_address_limit_holds_across_accounts(throttled, make_user):
    make_user("ann")
    client = throttled().test_client()
    for n in range(6):
        _attempt(client, f"guess{n}", "wrong")
    assert _attempt(client, "ann", PASSWORD) == 429
    assert _attempt(client, "ann", PASSWORD, address="10.0.0.2") == 302


def test_successful_logins_do_not_count(throttled, make_user):
    make_user("ann")
    app = throttled()
    assert [_attempt(app.test_client(), "ann", PASSWORD) for _ in range(5)] == [302] * 5


def test_the_refusal_says_what_to_do(throttled, make_user):
    make_user("ann")
    client = throttled().test_client()
    for _ in range(3):
        _attempt(client, "ann", "wrong")
    page = client.get("/login").get_data(as_text=True)
    html = client.post("/login", data={"username": "ann", "password": "x",
                                       "csrf_token": csrf_token(page)}).get_data(as_text=True)
    assert "Too many failed logins" in html


def test_workers_sharing_redis_count_together(throttled, make_user):
    import redis
    try:
        redis.Redis.from_url("redis://127.0.0.1:6379", socket_connect_timeout=2).ping()
    except redis.RedisError as error:
        missing(f"Redis does not answer at 127.0.0.1:6379: {error}")
    make_user("ann")
    shared = {"RATELIMIT_STORAGE_URI": "redis://127.0.0.1:6379", "RATELIMIT_KEY_PREFIX": uuid.uuid4().hex}
    one, two = throttled(**shared), throttled(**shared)
    for worker in (one, two, one):
        _attempt(worker.test_client(), "ann", "wrong")
    assert _attempt(two.test_client(), "ann", PASSWORD) == 429


def test_an_unknown_user_name_costs_a_password_check_too(app, monkeypatch):
    from annotator.people import accounts
    checked = []
    real = accounts.check_password_hash
    monkeypatch.setattr(accounts, "check_password_hash", lambda h, p: checked.append(p) or real(h, p))
    assert accounts.authenticate("nobody", "guess") is None
    assert checked == ["guess"]
