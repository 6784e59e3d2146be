"""Pooled PostgreSQL connections are tested before use only after sitting idle (annotator/core/database.py).

A ping on every checkout cost two round trips per next+submit pair; these pin what the cheaper rule
keeps and what it gives up. The server drops a connection here by pg_terminate_backend, which is what
a restart does to every connection.
"""
from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from flask import Flask
from sqlalchemy import create_engine, text
from sqlalchemy.exc import OperationalError
from sqlalchemy.pool import NullPool

from annotator import create_app
from annotator.core.extensions import db

pytestmark = pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)  # SQLite has no server

IDLE = 0.2  # seconds


@pytest.fixture
def pinging_app(database_url: str) -> Iterator[Flask]:
    app = create_app("config.TestConfig", SQLALCHEMY_DATABASE_URI=database_url, DATABASE_PING_AFTER_IDLE_SECONDS=IDLE)
    with app.app_context():
        yield app
        db.session.remove()
        db.engine.dispose()


def _drop_the_pooled_connection() -> None:
    """End the server process behind the connection the pool holds, from a connection of another engine."""
    pid = db.session.scalar(text("SELECT pg_backend_pid()"))
    db.session.remove()  # the connection goes back to the pool
    other = create_engine(db.engine.url, poolclass=NullPool, isolation_level="AUTOCOMMIT")
    with other.connect() as connection:
        connection.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})
    other.dispose()


def test_a_connection_the_server_dropped_while_it_sat_idle_is_replaced_before_use(pinging_app):
    _drop_the_pooled_connection()
    time.sleep(IDLE + 0.1)
    assert db.session.scalar(text("SELECT 1")) == 1  # pinged, found dead, replaced: the request did not fail


def test_a_connection_used_a_moment_ago_is_not_pinged_so_a_drop_fails_one_request_then_the_pool_is_renewed(
        pinging_app):
    _drop_the_pooled_connection()
    with pytest.raises(OperationalError):  # on the web a 503 that says "send it again" (web/unavailable.py)
        db.session.scalar(text("SELECT 1"))
    db.session.remove()
    assert db.session.scalar(text("SELECT 1")) == 1  # the failure renewed the pool's connections
