"""Which item an annotator gets next: the least-loaded open item they have not had, found in time
independent of the project's size.

The rule (annotator/assignment.py): the item with the fewest active assignments (submitted votes plus
unexpired leases), then the lowest position; never an item the annotator had, a control item, or an
item whose target is reached by votes and leases together.

Computing every open item's load and sorting by it is O(items) on every `next`: with 200,000 items a
pair cost ~364 ms of PostgreSQL CPU (bench/README.md). But only leased items have a load above their
`done_count`, and at most one lease per annotator is open, so they are few. The best item is therefore
either
  * the first item in (done_count, position) order that nobody is working on: a walk along the
    `ix_items_pick` index (project_id, done_count, position) that stops at the first match, or
  * the best of the few leased items that still have a free slot,
whichever has the lower (load, position). Each is one cheap statement. The first locks its row
(FOR UPDATE SKIP LOCKED, so concurrent annotators spread over different items); the second is only
read, and its item is locked (SKIP LOCKED) only when it wins. When neither gives an unlocked item, the
complete query of old waits for a lock instead of skipping (so nobody is told "nothing left" while
another annotator's transaction only holds an item for a moment); near the end of a campaign that
query is cheap too, since the index range `done_count < k` holds only the open items.

Locks: a transaction may end up holding the free walk's row besides the leased item it takes. It
took both with SKIP LOCKED, which never waits, so no lock cycle can form from them. The locks
are released at commit a few statements later.

All statements are built once per variant with bind parameters (project_id, user_id, now, k):
composing them on every call was about a tenth of a worker's CPU per pair.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from sqlalchemy import Integer, Select, bindparam, exists, func, literal, select, true

from .extensions import db
from .models import LEASED, Assignment, Item

_PROJECT, _USER, _NOW = bindparam("project_id"), bindparam("user_id"), bindparam("now")
_K = bindparam("k", type_=Integer)


def _target(dynamic: bool) -> Any:
    """The votes an item needs: its own target while dynamic overlap is on, else the constant k (which
    keeps `done_count < k` an index condition)."""
    return func.coalesce(Item.target, _K) if dynamic else _K


def _leases() -> Any:
    """Unexpired leases of the project, per item."""
    return (select(Assignment.item_id, func.count().label("n"))
            .where(Assignment.project_id == _PROJECT, Assignment.status == LEASED, Assignment.expires_at > _NOW)
            .group_by(Assignment.item_id).subquery())


def _not_mine_nor_control() -> list[Any]:
    # NOT IN over this annotator's items is one hashed subplan; a correlated NOT EXISTS became a
    # nested loop per item on PostgreSQL before the table was analysed.
    mine = Item.id.in_(select(Assignment.item_id).where(Assignment.user_id == _USER,
                                                        Assignment.project_id == _PROJECT))
    return [Item.is_control.is_(False), ~mine]


def _open_items(dynamic: bool) -> list[Any]:
    return [Item.project_id == _PROJECT, Item.done_count < _target(dynamic), *_not_mine_nor_control()]


def _whole_row(best_id: Any) -> Select:  # type: ignore[type-arg]
    # The sort sees ids only, not every candidate's JSON; populate_existing: the locked row is current.
    return select(Item).where(Item.id == best_id.scalar_subquery()).execution_options(populate_existing=True)


def _untouched_id(dynamic: bool, *also: Any) -> Select:  # type: ignore[type-arg]
    leased = select(Assignment.item_id).where(Assignment.project_id == _PROJECT, Assignment.status == LEASED,
                                              Assignment.expires_at > _NOW)
    return (select(Item.id).where(*_open_items(dynamic), Item.id.not_in(leased), *also)
            .order_by(Item.done_count, Item.position).limit(1)
            .with_for_update(of=Item, skip_locked=True))


@lru_cache(maxsize=None)
def untouched_statement(dynamic: bool) -> Select:  # type: ignore[type-arg]
    """The first open item in (done_count, position) order with no unexpired lease, locked, SKIP LOCKED."""
    return _whole_row(_untouched_id(dynamic))


@lru_cache(maxsize=None)
def leased_statement(dynamic: bool) -> Select:  # type: ignore[type-arg]
    """The best open item that has unexpired leases and a free slot: (id, load, position), not locked."""
    leases = _leases()
    load = (Item.done_count + leases.c.n).label("load")
    # Not _open_items: the leases are of this project already, and `load < target` implies `done_count <
    # target`. Given those conditions too, SQLite walked every open item along ix_items_pick and looked
    # each up among the leases (O(items) per `next`) instead of looking up the few leased items by id.
    return (select(Item.id, load, Item.position).select_from(leases).join(Item, Item.id == leases.c.item_id)
            .where(*_not_mine_nor_control(), load < _target(dynamic))
            .order_by(load, Item.position).limit(1))


_LOCK_IF_FREE = (select(Item).where(Item.id == bindparam("item_id")).with_for_update(skip_locked=True)
                 .execution_options(populate_existing=True))


@lru_cache(maxsize=None)
def complete_statement(dynamic: bool) -> Select:  # type: ignore[type-arg]
    """Every open item's load, sorted: the least-loaded item, waiting for its lock when it is held."""
    leases = _leases()
    load = Item.done_count + func.coalesce(leases.c.n, 0)
    best = (select(Item.id).outerjoin(leases, leases.c.item_id == Item.id)
            .where(*_open_items(dynamic), load < _target(dynamic))
            .order_by(load, Item.position).limit(1)
            .with_for_update(of=Item))
    return _whole_row(best)


@dataclass(frozen=True)
class Pick:
    """What `pick_statement` found in one round trip."""

    open_lease_id: int | None  # the annotator's open lease in this project: resume it, nothing was locked
    item: Item | None  # the best item, locked; None: nothing is left (or a lease is open)


@lru_cache(maxsize=None)
def pick_statement(dynamic: bool) -> Select:  # type: ignore[type-arg]
    """The common `next` in one statement: the annotator's open lease (its id), the first untouched item
    (locked; only when no lease is open, so that a resume locks nothing) and the best leased candidate.

    Three round trips before (open lease, untouched, leased); one row always comes back, its parts NULL
    where there is nothing.
    """
    mine_open = (Assignment.user_id == _USER, Assignment.project_id == _PROJECT, Assignment.status == LEASED)
    open_lease = select(Assignment.id).where(*mine_open).limit(1).scalar_subquery()
    untouched = _untouched_id(dynamic, ~exists().where(*mine_open)).scalar_subquery()
    leased = leased_statement(dynamic).subquery("leased")
    one = select(literal(1).label("one")).subquery("one")
    return (select(open_lease.label("open_lease_id"), Item, leased.c.id.label("leased_id"),
                   leased.c.load.label("leased_load"), leased.c.position.label("leased_position"))
            .select_from(one).outerjoin(Item, Item.id == untouched).outerjoin(leased, true())
            .execution_options(populate_existing=True))


def pick(project_id: int, user_id: int, now: Any, k: int, dynamic: bool) -> Pick:
    """The annotator's open lease, else the least-loaded item for them, locked; usually one statement."""
    params = {"project_id": project_id, "user_id": user_id, "now": now, "k": k}
    row = db.session.execute(pick_statement(dynamic), params).one()
    if row.open_lease_id is not None:
        return Pick(row.open_lease_id, None)
    leased = None if row.leased_id is None else (row.leased_id, row.leased_load, row.leased_position)
    return Pick(None, _best(row.Item, leased, params, dynamic))


def least_loaded(project_id: int, user_id: int, now: Any, k: int, dynamic: bool) -> Item | None:
    """The least-loaded item for this annotator, locked; None when there is none."""
    params = {"project_id": project_id, "user_id": user_id, "now": now, "k": k}
    untouched = db.session.scalars(untouched_statement(dynamic), params).first()
    return _best(untouched, db.session.execute(leased_statement(dynamic), params).first(), params, dynamic)


def _best(untouched: Item | None, leased: Any, params: dict[str, Any], dynamic: bool) -> Item | None:
    """The lower (load, position) of the locked untouched item and the leased candidate (id, load, position),
    the candidate locked now; the complete query when neither is to be had."""
    if leased is not None and (untouched is None or tuple(leased[1:]) < (untouched.done_count, untouched.position)):
        taken = db.session.scalars(_LOCK_IF_FREE, {"item_id": leased[0]}).first()
        if taken is not None:
            return taken
    if untouched is not None:
        return untouched
    return db.session.scalars(complete_statement(dynamic), params).first()
