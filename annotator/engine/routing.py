"""Which item an annotator gets next in a campaign with a stopping rule: the least certain one they may take, where
a vote is worth most (design: "Votes where they change the answer"; docs/declared-stopping.md, "Routing").

Without a stopping rule every item takes k votes whatever they say, so the order only spreads the work, and the
pick of picking.py (least loaded, then position) stays as it was, statement for statement. With one, each vote
writes the item's certainty under the rule (engine/stopping.py, core/stopping.certainty: for `decided` the share of
the votes left that could all go against the gold without changing it, for `confidence` the model's posterior of
the gold; 2 once the item takes no more votes), and this module's pick serves

  1. an item with no vote yet (done_count 0, certainty NULL: its gold is not even defined), lowest position
     first, along ix_items_pick; else
  2. a voted item, least certain first, along the partial index ix_items_route (project_id, certainty, position);

never an item the annotator had, a control item, or one whose votes and unexpired leases reach its target.

Co-assignment. Agreement, Dawid-Skene and the one-coin model compare annotators only through the items they
shared, so the pick must not split the annotators into groups that never share one. A pick that orders ties by
position alone does: with 12 annotators asking in a fixed round-robin order, today's least-loaded pick gives 2 to
6 groups on many campaign sizes (10 items with k = 5: two groups of six, tests/unit/test_routing.py). So each walk
takes a window of the best few candidates (`WINDOW`) in index order, and among them the pick goes to the least
certain, then the least leased, then the first in an order of items that differs per annotator: (item id times
a number drawn from the annotator's id) modulo a prime. Different annotators take ties in different orders,
as a random draw among ties would, which no fixed asking order can line up into separate groups; a test checks
the graph on the sizes where position order splits it.

Locks as in picking.py: the window is read without locks, the winner locked FOR UPDATE SKIP LOCKED (PostgreSQL),
so concurrent annotators spread over the window; when every candidate of both walks is locked or none is left,
the complete statement sorts every open item and waits for a lock instead of skipping. Cost: two index walks that
stop within the window, plus per candidate an anti-join probe (had it) and a count of its leases. An item with votes
but no certainty (votes counted before the campaign had a rule) is in neither walk: the complete statement serves
it once both walks find nothing, and its next vote writes its certainty.
"""
from __future__ import annotations

from functools import cache
from typing import Any

from sqlalchemy import Select, bindparam, exists, func, literal, literal_column, select

from annotator.core.statements import ASSIGNMENTS, ITEM_COLUMNS, ITEMS, execute
from annotator.engine.picking import IS_LEASED, Pick, _leases, _not_mine_nor_control, _target

WINDOW = 8          # candidates per walk among which the annotator's own order breaks ties
_PRIME = 1_000_003  # with ids and user ids below it the products stay far inside 64 bits on both engines
_WINDOW: Any = literal_column(str(WINDOW))
_ONE: Any = literal_column("1")
_ZERO: Any = literal_column("0")
_PROJECT: Any = bindparam("project_id")
_USER: Any = bindparam("user_id")
_NOW: Any = bindparam("now")
_UNSURE = literal(-1.0)   # an item without a certainty sorts before every voted one (the complete statement)


def _mixed() -> Any:
    """The annotator's own order of items: (id mod p) * m mod p with m = 1 + (user * 7,777,777 mod p), a
    permutation of the residues (m is not divisible by the prime p) that differs per annotator; m is large, so the
    order is not the ids' own order even for small ids."""
    prime: Any = literal_column(str(_PRIME))
    factor = (_USER % prime) * literal_column("7777777") % prime + _ONE
    return (ITEMS.c.id % prime) * factor % prime


def _item_leases() -> Any:
    a = ASSIGNMENTS.c
    return (select(func.count()).where(a.item_id == ITEMS.c.id, IS_LEASED, a.expires_at > _NOW)
            .scalar_subquery())


def _window(voted: bool) -> Any:
    """The first WINDOW open items of one walk, in its index order; only when the annotator holds no open lease."""
    a = ASSIGNMENTS.c
    open_lease = exists().where(a.user_id == _USER, a.project_id == _PROJECT, IS_LEASED)
    # Unvoted: done_count = 0 as an index condition, so that once none is left the walk of ix_items_pick ends at
    # once instead of reading every voted item to find none with a NULL certainty.
    order = (ITEMS.c.certainty, ITEMS.c.position) if voted else (ITEMS.c.position,)
    which = ITEMS.c.certainty.is_not(None) if voted else (ITEMS.c.done_count == _ZERO) & ITEMS.c.certainty.is_(None)
    return (select(ITEMS.c.id)
            .where(ITEMS.c.project_id == _PROJECT, which,
                   ITEMS.c.done_count < _target(True), *_not_mine_nor_control(),
                   ITEMS.c.done_count + _item_leases() < _target(True), ~open_lease)
            .order_by(*order).limit(_WINDOW))


def _best_of_window(voted: bool) -> Any:
    """The window's winner, locked (SKIP LOCKED): least certain, least leased, then the annotator's own order."""
    return (select(ITEMS.c.id).where(ITEMS.c.id.in_(_window(voted)))
            .order_by(ITEMS.c.certainty, _item_leases(), _mixed(), ITEMS.c.position).limit(_ONE)
            .with_for_update(of=ITEMS, skip_locked=True).scalar_subquery())


@cache
def route_statement() -> Select[Any]:
    """The routed `next` in one statement: the annotator's open lease (its id), else the best item, locked: an
    unvoted one when there is one to be had, else the least certain voted one. One row always comes back."""
    a = ASSIGNMENTS.c
    open_lease = (select(a.id).where(a.user_id == _USER, a.project_id == _PROJECT, IS_LEASED).limit(_ONE)
                  .scalar_subquery())
    best = func.coalesce(_best_of_window(False), _best_of_window(True))
    one = select(literal(1).label("one")).subquery("one")
    return (select(open_lease.label("open_lease_id"), *ITEM_COLUMNS)
            .select_from(one).outerjoin(ITEMS, ITEMS.c.id == best))


@cache
def complete_route_statement() -> Select[Any]:
    """Every open item in routing order (unvoted first, then by certainty, load, position), waiting for the lock."""
    leases = _leases()
    load = ITEMS.c.done_count + func.coalesce(leases.c.n, 0)
    best = (select(ITEMS.c.id).outerjoin(leases, leases.c.item_id == ITEMS.c.id)
            .where(ITEMS.c.project_id == _PROJECT, *_not_mine_nor_control(), load < _target(True))
            .order_by(func.coalesce(ITEMS.c.certainty, _UNSURE), load, ITEMS.c.position).limit(_ONE)
            .with_for_update(of=ITEMS))
    return select(*ITEM_COLUMNS).where(ITEMS.c.id == best.scalar_subquery())


def pick(project_id: int, user_id: int, now: Any, k: int) -> Pick:
    """The annotator's open lease, else the least certain item for them, locked (picking.pick's contract)."""
    params = {"project_id": project_id, "user_id": user_id, "now": now, "k": k}
    row = execute(route_statement(), params).one()
    if row.open_lease_id is not None:
        return Pick(row.open_lease_id, None)
    if row.id is not None:
        return Pick(None, row)
    return Pick(None, execute(complete_route_statement(), params).first())
