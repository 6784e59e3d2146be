"""Votes for tests: each annotator takes every HIT of a project through the assignment engine."""
from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from annotator.core.models import Item, Project, User
from annotator.engine import assignment as engine


def vote_everywhere(project: Project, users: list[User], answer_for: Callable[[Item, User], dict[str, Any]],
                    start: datetime | None = None, seconds: float = 0.0) -> int:
    """Each user leases and answers every item they can get (lease then submit, one by one); returns the votes.

    With `start`, the n-th vote is leased at start + n * seconds (so progress over time and time per HIT
    have known values); otherwise now.
    """
    votes = 0
    for user in users:
        while True:
            now = start + timedelta(seconds=seconds * 2 * votes) if start else None
            lease = engine.next_for(user, project, now=now)
            if lease is None:
                break
            done = now + timedelta(seconds=seconds) if now else None
            engine.submit(lease.id, user, answer_for(lease.item, user), now=done)
            votes += 1
    return votes
