"""Helpers for the personal-data tests: the audit events as a fresh session reads them."""
from __future__ import annotations

import pytest
from sqlalchemy import select

from annotator.core.extensions import db
from annotator.core.models import AuditEvent


def events(action: str) -> list[AuditEvent]:
    """The events of `action`, oldest first, read back in a fresh session."""
    db.session.remove()
    return list(db.session.scalars(select(AuditEvent).where(AuditEvent.action == action).order_by(AuditEvent.id)))


@pytest.fixture
def boss(make_user, login):  # type: ignore[no-untyped-def]
    """An admin ("boss") logged in through the form: the client, with the account as `.user`."""
    user = make_user("boss", role="admin")
    client = login("boss")
    client.user = user  # type: ignore[attr-defined]
    return client
