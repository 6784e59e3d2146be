"""What a change of a project's k (votes per item) does, told before it is saved; and how low k may go.

Why: an item is complete, and in gold, agreement, the charts and the exports, once it has k counted votes.
Raising k quietly took finished items out of all of them ("6 of 8 items become pending"), and the organiser
learnt it only from the figures. The settings page now shows what a change will do and asks to confirm
(web/admin.py); this module counts it.

How low k may go: to the most votes an item whose k it is already has, counting its open leases. Votes are
never taken back or left out (no vote lost), so an item never holds more counted votes than its k
(engine/invariants.py, votes_per_item), and gold is always computed on all the counted votes of a complete
item. An open lease may still bring its vote (the engine stores a vote sent within its lease whatever the
counts), so the item it is on counts it already: once the lease is submitted or has run out, k may go lower.
Items with a target of their own (dynamic overlap) and control items do not follow k and are not counted.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import ColumnElement, and_, false, func, or_, select

from annotator.core.errors import FormatError
from annotator.core.extensions import db
from annotator.core.models import LEASED, Assignment, Item, Project, utcnow
from annotator.quality.settings import quality_settings

EXAMPLES = 3  # items a refusal names


@dataclass(frozen=True)
class KChange:
    """A change of k from `old` to `new`, and the items it moves between pending and complete."""

    old: int
    new: int
    to_pending: int  # complete items that need more votes again (raising k)
    to_complete: int  # pending items complete at the new k (lowering k)

    @property
    def moves_items(self) -> bool:
        return bool(self.to_pending or self.to_complete)

    def in_words(self) -> str:
        """What saving does, for the confirmation ("6 items go back to pending and leave gold until a 4th vote")."""
        if self.to_pending:
            few = "item goes" if self.to_pending == 1 else "items go"
            return (f"Raising k from {self.old} to {self.new}: {self.to_pending} complete {few} back to pending and "
                    f"leave gold, agreement, the charts and the exports until a {ordinal(self.new)} vote. Their "
                    f"votes are kept.")
        if self.to_complete:
            few = "item becomes" if self.to_complete == 1 else "items become"
            return (f"Lowering k from {self.old} to {self.new}: {self.to_complete} pending {few} complete with "
                    f"{self.new} vote{'s' if self.new != 1 else ''} and enter gold, agreement, the charts and the "
                    f"exports; no more votes are asked for on them.")
        return f"k from {self.old} to {self.new}: no item changes between pending and complete."


@dataclass(frozen=True)
class Lowest:
    """The lowest k the votes and open leases allow now, and the items that hold it there."""

    k: int
    by_votes: int  # the most counted votes of one item: k can never be lower
    holders: list[tuple[str, int, int, datetime | None]]  # (item, votes, open leases, last lease's end)


def ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _follows_k(project: Project) -> ColumnElement[bool]:
    """SQL: the project's items whose needed votes are its k (not control items, no target of their own)."""
    own_target = Item.target.is_not(None) if quality_settings(project).dynamic else false()
    return and_(Item.project_id == project.id, Item.is_control.is_(False), ~own_target)


def k_change(project: Project, new: int) -> KChange:
    """The items a change of k to `new` moves, counted on the project's rows now."""
    old = project.k
    low, high = sorted((old, new))
    moved = db.session.scalar(select(func.count()).select_from(Item).where(
        _follows_k(project), Item.done_count >= low, Item.done_count < high)) or 0
    return KChange(old, new, to_pending=moved if new > old else 0, to_complete=moved if new < old else 0)


def lowest_k(project: Project, now: datetime | None = None) -> Lowest:
    """The lowest k allowed now: 1, or the most votes plus open leases an item following k has."""
    now = now or utcnow()
    leases = (select(Assignment.item_id, func.count().label("n"), func.max(Assignment.expires_at).label("until"))
              .where(Assignment.project_id == project.id, Assignment.status == LEASED, Assignment.expires_at > now)
              .group_by(Assignment.item_id).subquery())
    held = (Item.done_count + func.coalesce(leases.c.n, 0)).label("held")
    rows = db.session.execute(
        select(Item.external_id, Item.done_count, func.coalesce(leases.c.n, 0), leases.c.until, held)
        .outerjoin(leases, leases.c.item_id == Item.id)
        .where(_follows_k(project), or_(Item.done_count > 0, leases.c.n.is_not(None)))
        .order_by(held.desc(), Item.position).limit(50)).all()
    if not rows:
        return Lowest(1, 0, [])
    most = rows[0].held
    by_votes = db.session.scalar(select(func.max(Item.done_count)).where(_follows_k(project))) or 0
    holders = [(r.external_id, r.done_count, r[2], r.until) for r in rows if r.held == most]
    return Lowest(max(1, most), by_votes, holders)


def check_k(project: Project, k: int, now: datetime | None = None) -> None:
    """Refuse (FormatError, saying what to do) a k below the votes and open leases an item already has.

    Such a k would leave the item with more votes than its k ("4 of 3 votes"): the votes cannot be taken
    back, and gold would have to drop some of them.
    """
    if k >= project.k:
        return  # raising k (or keeping it) is always possible
    lowest = lowest_k(project, now)
    if k >= lowest.k:
        return
    named = "; ".join(f"{item} has {votes} vote{'s' if votes != 1 else ''}"
                      + (f" and {leased} open lease{'s' if leased != 1 else ''} (until {until:%H:%M} UTC)"
                         if leased and until is not None else "")
                      for item, votes, leased, until in lowest.holders[:EXAMPLES])
    more = f" (and {len(lowest.holders) - EXAMPLES} more items)" if len(lowest.holders) > EXAMPLES else ""
    if k < lowest.by_votes:
        advice = (f"Votes are never taken back, so k can be {lowest.by_votes} at the least here. To read gold from "
                  f"fewer votes per item, export the votes (pending items included) and aggregate them yourself, "
                  f"or start a new project with the lower k.")
    else:
        advice = (f"An open lease may still bring its vote, so k can be {lowest.k} now and {lowest.by_votes} once "
                  f"those leases are submitted or run out: try again then.")
    raise FormatError(f"k cannot be {k}: {named}{more}, so k must be at least {lowest.k}. {advice}")
