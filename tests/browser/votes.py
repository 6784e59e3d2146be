"""What the browser tests' annotators submitted, as the server thread committed it."""
from __future__ import annotations

from sqlalchemy import select

from annotator.core.extensions import db
from annotator.core.models import SUBMITTED, Assignment


def submitted(user_id: int) -> list[Assignment]:
    """The user's submitted votes in the order they were made, read in a fresh session (the server runs in a
    thread of its own and commits there)."""
    db.session.remove()
    return list(db.session.scalars(select(Assignment).where(
        Assignment.user_id == user_id, Assignment.status == SUBMITTED).order_by(Assignment.id)))
