"""Blocking careless annotators, and taking their votes out when the project says so.

`evaluate` runs inside a submit's transaction (after a control answer, or after any submit when a
minimum time is set) and blocks by the project's rules; `exclude_votes` runs after that transaction,
one vote per transaction under its item's lock (the engine's rule: a transaction locks one item), so
done_count and the label rows change together and the item is offered again. Both are idempotent.
"""
from __future__ import annotations

import statistics
from datetime import datetime
from typing import Any

from sqlalchemy import Row, delete, select, update

from annotator.analysis import prior_counts
from annotator.core.audit import record
from annotator.core.database import write_transaction
from annotator.core.extensions import db
from annotator.core.models import EXPIRED, LEASED, SUBMITTED, Assignment, Item, Label, Project, User, utcnow
from annotator.core.quality_settings import Quality
from annotator.figures.kept import results_changed
from annotator.quality import spammers
from annotator.quality.controls import accuracy
from annotator.quality.state import state_for_update, state_of

MIN_HITS_FOR_TIME = 5  # the median time of fewer HITs says too little to block anyone


def evaluate(user_id: int, project: Project, q: Quality, control: bool, now: datetime,
             state: Row[Any] | None) -> str | None:
    """Block the annotator if a rule says so; the reason in words, or None. `state`: the annotator's state
    as the submit read it (`state_of`), read once for this and `refusal`."""
    if state is not None and (state.exempt or state.blocked_at is not None):
        return None
    reason = None
    if control and q.block_min_controls > 0:
        count, mean = accuracy(project.id, user_id)
        if count >= q.block_min_controls and mean is not None and mean < q.block_accuracy:
            reason = f"accuracy {mean:.2f} on {count} control items is below {q.block_accuracy:.2f}"
    if reason is None and q.block_min_median_seconds > 0:
        spent = db.session.scalars(select(Assignment.seconds_spent).where(
            Assignment.project_id == project.id, Assignment.user_id == user_id, Assignment.status == SUBMITTED))
        seconds = [s for s in spent if s is not None]
        if len(seconds) >= max(MIN_HITS_FOR_TIME, q.block_min_controls):
            median = statistics.median(seconds)
            if median < q.block_min_median_seconds:
                reason = f"a median of {median:.1f} s per HIT is under the minimum of {q.block_min_median_seconds:g} s"
    if reason is None and not control and q.blocking_on_votes:
        reason = spammers.reason(user_id, project, q)   # one-coin spammer score, one-button answering
    if reason is not None:
        block(user_id, project, reason, now)
    return reason


def block(user_id: int, project: Project, reason: str, now: datetime | None = None) -> None:
    """Mark the annotator blocked and release any open lease of theirs in the project."""
    state = state_for_update(user_id, project.id)
    state.blocked_at, state.blocked_reason = now or utcnow(), reason
    record("annotator.block", project, {"user_id": user_id, "reason": reason}, system="quality control")
    db.session.execute(update(Assignment).where(Assignment.project_id == project.id, Assignment.user_id == user_id,
                                                Assignment.status == LEASED).values(status=EXPIRED))


def refusal(state: Row[Any] | None) -> str | None:
    """Why the answer of an annotator in this state (`state_of`) is not taken (the page's message); None
    when they are not blocked."""
    if state is None or state.blocked_at is None:
        return None
    return ("You have been blocked from this project: " + (state.blocked_reason or "quality control")
            + ", so this answer was not stored. Please contact the organisers if you think this is a mistake.")


def is_blocked(user_id: int, project: Project) -> bool:
    """Read afresh (outside the submit's transaction): whether the annotator is blocked now."""
    state = state_of(user_id, project.id)
    return state is not None and state.blocked_at is not None


def unblock(user: User, project: Project) -> None:
    """Admin: the annotator may work again and the automatic rules leave them alone from now on.

    Votes already excluded stay excluded: their items may have got other votes in their place.
    """
    state = state_for_update(user.id, project.id)
    state.blocked_at, state.blocked_reason, state.exempt = None, None, True


def exclude_votes(user_id: int, project: Project) -> int:
    """Take the annotator's ordinary votes out of the project; how many were taken out.

    Each in its own transaction: lock the item, mark the vote excluded, delete its label rows and
    decrement done_count, so the item has a free slot again and gold and agreement no longer see it.
    """
    ids = list(db.session.execute(select(Assignment.id, Assignment.item_id).join(Item, Item.id == Assignment.item_id)
                                  .where(Assignment.project_id == project.id, Assignment.user_id == user_id,
                                         Assignment.status == SUBMITTED, Assignment.excluded.is_(False),
                                         Item.is_control.is_(False))))
    db.session.commit()  # end the read so each write below starts its own transaction
    taken = 0
    for assignment_id, item_id in ids:
        with write_transaction():
            item = db.session.scalars(select(Item).where(Item.id == item_id).with_for_update()
                                      .execution_options(populate_existing=True)).one()
            vote = db.session.get_one(Assignment, assignment_id, populate_existing=True)
            if vote.excluded or vote.status != SUBMITTED:
                continue
            vote.excluded = True
            item.done_count = Item.done_count - 1
            prior_counts.take_out(assignment_id, item, project)   # a prior per group counts it no more
            db.session.execute(delete(Label).where(Label.assignment_id == assignment_id))
            results_changed(project.id)  # no count changes with an exclusion: kept figures are dropped
            taken += 1
    if taken:
        with write_transaction():
            record("annotator.exclude", project, {"user_id": user_id, "votes": taken}, system="quality control")
    return taken
