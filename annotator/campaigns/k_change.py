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

from sqlalchemy import ColumnElement, and_, false, func, literal, or_, select

from annotator.core.errors import FormatError
from annotator.core.extensions import db
from annotator.core.models import LEASED, Assignment, Item, Project, utcnow
from annotator.core.quality_settings import quality_settings

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


@dataclass(frozen=True)
class OverlapChange:
    """Dynamic overlap turned on or off (quality setting max_k): the items with a target of their own then need
    that target, or k again, and some move between pending and complete."""

    on: bool  # dynamic overlap after the change
    k: int
    to_pending: int
    to_complete: int

    @property
    def moves_items(self) -> bool:
        return bool(self.to_pending or self.to_complete)

    def in_words(self) -> str:
        turning = ("Turning dynamic overlap on: the items whose target it raised need that target again"
                   if self.on else f"Turning dynamic overlap off: every item needs k = {self.k} votes again")
        moved = []
        if self.to_pending:
            moved.append(f"{self.to_pending} complete item{' goes' if self.to_pending == 1 else 's go'} back to "
                         "pending and leave gold, agreement, the charts and the exports until their next vote")
        if self.to_complete:
            moved.append(f"{self.to_complete} pending item{' becomes' if self.to_complete == 1 else 's become'} "
                         "complete and enter gold, agreement, the charts and the exports")
        return f"{turning}: {'; '.join(moved)}. Their votes are kept."


def _targets(project: Project, dynamic: bool) -> ColumnElement[int]:
    return func.coalesce(Item.target, project.k) if dynamic else literal(project.k)


def overlap_change(project: Project, max_k: int) -> OverlapChange:
    """What setting the quality setting max_k to `max_k` (0: dynamic overlap off) does to the items' targets."""
    before, after = quality_settings(project).dynamic, max_k > 0
    own = and_(Item.project_id == project.id, Item.is_control.is_(False), Item.target.is_not(None))
    if before == after:
        return OverlapChange(after, project.k, 0, 0)
    old, new = _targets(project, before), _targets(project, after)
    counts = db.session.execute(select(
        func.count().filter(Item.done_count >= old, Item.done_count < new),
        func.count().filter(Item.done_count < old, Item.done_count >= new)).where(own)).one()
    return OverlapChange(after, project.k, counts[0] or 0, counts[1] or 0)


def check_overlap(project: Project, max_k: int, now: datetime | None = None) -> None:
    """Refuse (FormatError, saying what to do) a max_k that leaves an item with more votes than it needs, or a
    target above max_k (the engine's invariant votes_per_item): the votes cannot be taken back."""
    now = now or utcnow()
    own = and_(Item.project_id == project.id, Item.is_control.is_(False), Item.target.is_not(None))
    if max_k > 0:
        highest = db.session.scalar(select(func.max(Item.target)).where(own)) or 0
        if highest > max(max_k, project.k):
            raise FormatError(f"max_k cannot be {max_k}: dynamic overlap has raised an item's target to {highest} "
                              f"already, so max_k must be at least {highest} (or 0 to turn dynamic overlap off)")
        return
    leases = (select(func.count()).where(Assignment.item_id == Item.id, Assignment.status == LEASED,
                                         Assignment.expires_at > now).scalar_subquery())
    held = Item.done_count + leases
    over = db.session.execute(select(Item.external_id, Item.done_count, held).where(own, held > project.k)
                              .order_by(held.desc(), Item.position).limit(EXAMPLES + 1)).all()
    if over:
        named = "; ".join(f"{row[0]} has {row[1]} votes" + (f" and {row[2] - row[1]} open lease(s)"
                                                           if row[2] > row[1] else "") for row in over[:EXAMPLES])
        more = " (and more)" if len(over) > EXAMPLES else ""
        raise FormatError(f"dynamic overlap cannot be turned off: {named}{more}, more than k = {project.k}. "
                          f"Votes are never taken back: raise k to {over[0][2]} first, or keep dynamic overlap on")
