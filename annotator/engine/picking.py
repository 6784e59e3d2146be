"""Which item an annotator gets next: the least-loaded open item they have not had, found in time
independent of the project's size.

The rule (annotator/engine/assignment.py): the item with the fewest active assignments (submitted votes plus
unexpired leases), then the lowest position; never an item the annotator had, a control item, or an
item whose target is reached by votes and leases together.

Computing every open item's load and sorting by it is O(items) on every `next`, which on a big project
costs more than the rest of the pair together (figures in bench/results/2026-11-23-hot-path-second-round.md). But only
leased items have a load above their `done_count`, and at most one lease per annotator is open, so they are few.
The best item is therefore either
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

from sqlalchemy import Integer, Row, Select, bindparam, exists, func, literal, literal_column, select, true
from sqlalchemy.sql.elements import BindParameter

from annotator.core.models import LEASED
from annotator.core.statements import ASSIGNMENTS, ITEM_COLUMNS, ITEMS, execute

# Constants the planner must see: PostgreSQL plans a prepared statement once for every value of its
# parameters (its generic plan), and SQLite plans a statement before its parameters are bound.
# * 'leased' written into the SQL: only a literal lets the plan use uq_assignments_one_open_lease, the
#   partial index WHERE status = 'leased'; with a parameter, each lookup of an annotator's open lease read
#   every assignment the annotator ever had.
# * LIMIT 1 and OFFSET 0 as literals: a LIMIT parameter is costed as a tenth of the rows, which made
#   PostgreSQL judge the generic plan dearer than planning each `next` anew, the pick's dearest part.
# Figures in bench/results/2026-11-27-pick-plan-and-speed-aim.md.
IS_LEASED = ASSIGNMENTS.c.status == literal_column(f"'{LEASED}'")
_ONE = literal_column("1", Integer)
_ZERO = literal_column("0", Integer)


_PROJECT: BindParameter[Any] = bindparam("project_id")
_USER: BindParameter[Any] = bindparam("user_id")
_NOW: BindParameter[Any] = bindparam("now")
_K = bindparam("k", type_=Integer)


def _target(dynamic: bool) -> Any:
    """The votes an item needs: its own target while dynamic overlap is on, else the constant k (which
    keeps `done_count < k` an index condition)."""
    return func.coalesce(ITEMS.c.target, _K) if dynamic else _K


def _leases() -> Any:
    """Unexpired leases of the project, per item."""
    a = ASSIGNMENTS.c
    return (select(a.item_id, func.count().label("n"))
            .where(a.project_id == _PROJECT, IS_LEASED, a.expires_at > _NOW)
            .group_by(a.item_id).subquery())


def _not_mine_nor_control() -> list[Any]:
    # Whether the annotator had the item: one probe of ix_assignments_user_project per item the walk visits,
    # which stops at the first free one. OFFSET 0 keeps PostgreSQL from turning the NOT EXISTS into an
    # anti-join, which it planned (generic plan, tables not yet analysed) to read all the annotator's
    # assignments for every item visited. NOT IN, before, hashed all of them on every `next`: time that grew
    # with the annotator's work.
    a = ASSIGNMENTS.c
    mine = select(a.item_id).where(a.user_id == _USER, a.project_id == _PROJECT, a.item_id == ITEMS.c.id).offset(_ZERO)
    return [ITEMS.c.is_control.is_(False), ~mine.exists()]


def _open_items(dynamic: bool) -> list[Any]:
    return [ITEMS.c.project_id == _PROJECT, ITEMS.c.done_count < _target(dynamic), *_not_mine_nor_control()]


def _whole_row(best_id: Any) -> Select[Any]:
    # The sort sees ids only, not every candidate's JSON.
    return select(*ITEM_COLUMNS).where(ITEMS.c.id == best_id.scalar_subquery())


def _untouched_id(dynamic: bool, *also: Any) -> Select[Any]:
    a = ASSIGNMENTS.c
    leased = select(a.item_id).where(a.project_id == _PROJECT, IS_LEASED, a.expires_at > _NOW)
    return (select(ITEMS.c.id).where(*_open_items(dynamic), ITEMS.c.id.not_in(leased), *also)
            .order_by(ITEMS.c.done_count, ITEMS.c.position).limit(_ONE)
            .with_for_update(of=ITEMS, skip_locked=True))


@cache
def leased_statement(dynamic: bool) -> Select[Any]:
    """The best open item that has unexpired leases and a free slot: (id, load, position), not locked."""
    leases = _leases()
    load = (ITEMS.c.done_count + leases.c.n).label("load")
    # Not _open_items: the leases are of this project already, and `load < target` implies `done_count <
    # target`. Given those conditions too, SQLite walked every open item along ix_items_pick and looked
    # each up among the leases (O(items) per `next`) instead of looking up the few leased items by id.
    return (select(ITEMS.c.id, load, ITEMS.c.position).select_from(leases).join(ITEMS, ITEMS.c.id == leases.c.item_id)
            .where(*_not_mine_nor_control(), load < _target(dynamic))
            .order_by(load, ITEMS.c.position).limit(_ONE))


_LOCK_IF_FREE = select(*ITEM_COLUMNS).where(ITEMS.c.id == bindparam("item_id")).with_for_update(skip_locked=True)


@cache
def complete_statement(dynamic: bool) -> Select[Any]:
    """Every open item's load, sorted: the least-loaded item, waiting for its lock when it is held."""
    leases = _leases()
    load = ITEMS.c.done_count + func.coalesce(leases.c.n, 0)
    best = (select(ITEMS.c.id).outerjoin(leases, leases.c.item_id == ITEMS.c.id)
            .where(*_open_items(dynamic), load < _target(dynamic))
            .order_by(load, ITEMS.c.position).limit(_ONE)
            .with_for_update(of=ITEMS))
    return _whole_row(best)


@dataclass(frozen=True)
class Pick:
    """What `pick_statement` found in one round trip."""

    open_lease_id: int | None  # the annotator's open lease in this project: resume it, nothing was locked
    item: Row[Any] | None  # the best item's columns (ITEM_COLUMNS), locked; None: nothing left (or a lease is open)


@cache
def pick_statement(dynamic: bool) -> Select[Any]:
    """The common `next` in one statement: the annotator's open lease (its id), the first untouched item
    (locked; only when no lease is open, so that a resume locks nothing) and the best leased candidate.

    Three round trips before (open lease, untouched, leased); one row always comes back, its parts NULL
    where there is nothing.
    """
    a = ASSIGNMENTS.c
    mine_open = (a.user_id == _USER, a.project_id == _PROJECT, IS_LEASED)
    open_lease = select(a.id).where(*mine_open).limit(_ONE).scalar_subquery()
    untouched = _untouched_id(dynamic, ~exists().where(*mine_open)).scalar_subquery()
    leased = leased_statement(dynamic).subquery("leased")
    one = select(literal(1).label("one")).subquery("one")
    return (select(open_lease.label("open_lease_id"), *ITEM_COLUMNS, leased.c.id.label("leased_id"),
                   leased.c.load.label("leased_load"), leased.c.position.label("leased_position"))
            .select_from(one).outerjoin(ITEMS, ITEMS.c.id == untouched).outerjoin(leased, true()))


_OPEN_LEASE_ID = select(ASSIGNMENTS.c.id).where(ASSIGNMENTS.c.user_id == _USER, ASSIGNMENTS.c.project_id == _PROJECT,
                                                 IS_LEASED).limit(_ONE)


def pick(project_id: int, user_id: int, now: Any, k: int, dynamic: bool, ordinary: bool = True) -> Pick:
    """The annotator's open lease, else the least-loaded item for them, locked; usually one statement.

    `ordinary=False` (a quiz question is due): only the open lease is looked for, nothing is locked.
    """
    params = {"project_id": project_id, "user_id": user_id, "now": now, "k": k}
    if not ordinary:
        return Pick(execute(_OPEN_LEASE_ID, params).scalar(), None)
    row = execute(pick_statement(dynamic), params).one()
    if row.open_lease_id is not None:
        return Pick(row.open_lease_id, None)
    untouched = None if row.id is None else row  # the item's columns are named as in ITEM_COLUMNS
    leased = None if row.leased_id is None else (row.leased_id, row.leased_load, row.leased_position)
    return Pick(None, _best(untouched, leased, params, dynamic))


def _best(untouched: Row[Any] | None, leased: Any, params: dict[str, Any], dynamic: bool) -> Row[Any] | None:
    """The lower (load, position) of the locked untouched item and the leased candidate (id, load, position),
    the candidate locked now; the complete query when neither is to be had."""
    if leased is not None and (untouched is None or tuple(leased[1:]) < (untouched.done_count, untouched.position)):
        taken = execute(_LOCK_IF_FREE, {"item_id": leased[0]}).first()
        if taken is not None:
            return taken
    if untouched is not None:
        return untouched
    return execute(complete_statement(dynamic), params).first()
