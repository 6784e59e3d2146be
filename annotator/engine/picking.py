"""Which item an annotator gets next: the least-loaded open item they have not had, found in time
independent of the project's size.

The rule (annotator/engine/assignment.py): the item with the fewest active assignments (submitted votes plus
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
from functools import cache
from typing import Any

from sqlalchemy import Integer, Select, bindparam, exists, func, literal, select, true

from annotator.core.models import LEASED
from annotator.engine.rows import ASSIGNMENTS, ITEM_COLUMNS, ITEMS, ItemRow, execute

_PROJECT, _USER, _NOW = bindparam("project_id"), bindparam("user_id"), bindparam("now")
_K = bindparam("k", type_=Integer)


def _target(dynamic: bool) -> Any:
    """The votes an item needs: its own target while dynamic overlap is on, else the constant k (which
    keeps `done_count < k` an index condition)."""
    return func.coalesce(ITEMS.c.target, _K) if dynamic else _K


def _leases() -> Any:
    """Unexpired leases of the project, per item."""
    a = ASSIGNMENTS.c
    return (select(a.item_id, func.count().label("n"))
            .where(a.project_id == _PROJECT, a.status == LEASED, a.expires_at > _NOW)
            .group_by(a.item_id).subquery())


def _not_mine_nor_control() -> list[Any]:
    # NOT IN over this annotator's items is one hashed subplan; a correlated NOT EXISTS became a
    # nested loop per item on PostgreSQL before the table was analysed.
    a = ASSIGNMENTS.c
    mine = ITEMS.c.id.in_(select(a.item_id).where(a.user_id == _USER, a.project_id == _PROJECT))
    return [ITEMS.c.is_control.is_(False), ~mine]


def _open_items(dynamic: bool) -> list[Any]:
    return [ITEMS.c.project_id == _PROJECT, ITEMS.c.done_count < _target(dynamic), *_not_mine_nor_control()]


def _whole_row(best_id: Any) -> Select:  # type: ignore[type-arg]
    # The sort sees ids only, not every candidate's JSON.
    return select(*ITEM_COLUMNS).where(ITEMS.c.id == best_id.scalar_subquery())


def _untouched_id(dynamic: bool, *also: Any) -> Select:  # type: ignore[type-arg]
    a = ASSIGNMENTS.c
    leased = select(a.item_id).where(a.project_id == _PROJECT, a.status == LEASED, a.expires_at > _NOW)
    return (select(ITEMS.c.id).where(*_open_items(dynamic), ITEMS.c.id.not_in(leased), *also)
            .order_by(ITEMS.c.done_count, ITEMS.c.position).limit(1)
            .with_for_update(of=ITEMS, skip_locked=True))


@cache
def untouched_statement(dynamic: bool) -> Select:  # type: ignore[type-arg]
    """The first open item in (done_count, position) order with no unexpired lease, locked, SKIP LOCKED."""
    return _whole_row(_untouched_id(dynamic))


@cache
def leased_statement(dynamic: bool) -> Select:  # type: ignore[type-arg]
    """The best open item that has unexpired leases and a free slot: (id, load, position), not locked."""
    leases = _leases()
    load = (ITEMS.c.done_count + leases.c.n).label("load")
    # Not _open_items: the leases are of this project already, and `load < target` implies `done_count <
    # target`. Given those conditions too, SQLite walked every open item along ix_items_pick and looked
    # each up among the leases (O(items) per `next`) instead of looking up the few leased items by id.
    return (select(ITEMS.c.id, load, ITEMS.c.position).select_from(leases).join(ITEMS, ITEMS.c.id == leases.c.item_id)
            .where(*_not_mine_nor_control(), load < _target(dynamic))
            .order_by(load, ITEMS.c.position).limit(1))


_LOCK_IF_FREE = select(*ITEM_COLUMNS).where(ITEMS.c.id == bindparam("item_id")).with_for_update(skip_locked=True)


@cache
def complete_statement(dynamic: bool) -> Select:  # type: ignore[type-arg]
    """Every open item's load, sorted: the least-loaded item, waiting for its lock when it is held."""
    leases = _leases()
    load = ITEMS.c.done_count + func.coalesce(leases.c.n, 0)
    best = (select(ITEMS.c.id).outerjoin(leases, leases.c.item_id == ITEMS.c.id)
            .where(*_open_items(dynamic), load < _target(dynamic))
            .order_by(load, ITEMS.c.position).limit(1)
            .with_for_update(of=ITEMS))
    return _whole_row(best)


@dataclass(frozen=True)
class Pick:
    """What `pick_statement` found in one round trip."""

    open_lease_id: int | None  # the annotator's open lease in this project: resume it, nothing was locked
    item: ItemRow | None  # the best item, locked; None: nothing is left (or a lease is open)


_ITEM_SLICE = slice(1, 1 + len(ITEM_COLUMNS))  # where the untouched item's columns are in a pick row


@cache
def pick_statement(dynamic: bool) -> Select:  # type: ignore[type-arg]
    """The common `next` in one statement: the annotator's open lease (its id), the first untouched item
    (locked; only when no lease is open, so that a resume locks nothing) and the best leased candidate.

    Three round trips before (open lease, untouched, leased); one row always comes back, its parts NULL
    where there is nothing.
    """
    a = ASSIGNMENTS.c
    mine_open = (a.user_id == _USER, a.project_id == _PROJECT, a.status == LEASED)
    open_lease = select(a.id).where(*mine_open).limit(1).scalar_subquery()
    untouched = _untouched_id(dynamic, ~exists().where(*mine_open)).scalar_subquery()
    leased = leased_statement(dynamic).subquery("leased")
    one = select(literal(1).label("one")).subquery("one")
    return (select(open_lease.label("open_lease_id"), *ITEM_COLUMNS, leased.c.id.label("leased_id"),
                   leased.c.load.label("leased_load"), leased.c.position.label("leased_position"))
            .select_from(one).outerjoin(ITEMS, ITEMS.c.id == untouched).outerjoin(leased, true()))


def pick(project_id: int, user_id: int, now: Any, k: int, dynamic: bool) -> Pick:
    """The annotator's open lease, else the least-loaded item for them, locked; usually one statement."""
    params = {"project_id": project_id, "user_id": user_id, "now": now, "k": k}
    row = execute(pick_statement(dynamic), params).one()
    if row.open_lease_id is not None:
        return Pick(row.open_lease_id, None)
    untouched = None if row.id is None else ItemRow._make(row[_ITEM_SLICE])
    leased = None if row.leased_id is None else (row.leased_id, row.leased_load, row.leased_position)
    return Pick(None, _best(untouched, leased, params, dynamic))


def least_loaded(project_id: int, user_id: int, now: Any, k: int, dynamic: bool) -> ItemRow | None:
    """The least-loaded item for this annotator, locked; None when there is none."""
    params = {"project_id": project_id, "user_id": user_id, "now": now, "k": k}
    untouched = _item(execute(untouched_statement(dynamic), params).first())
    return _best(untouched, execute(leased_statement(dynamic), params).first(), params, dynamic)


def _item(row: Any) -> ItemRow | None:
    return None if row is None else ItemRow._make(row)


def _best(untouched: ItemRow | None, leased: Any, params: dict[str, Any], dynamic: bool) -> ItemRow | None:
    """The lower (load, position) of the locked untouched item and the leased candidate (id, load, position),
    the candidate locked now; the complete query when neither is to be had."""
    if leased is not None and (untouched is None or tuple(leased[1:]) < (untouched.done_count, untouched.position)):
        taken = _item(execute(_LOCK_IF_FREE, {"item_id": leased[0]}).first())
        if taken is not None:
            return taken
    if untouched is not None:
        return untouched
    return _item(execute(complete_statement(dynamic), params).first())
