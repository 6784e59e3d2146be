"""Which item comes next when leased and untouched items compete (annotator/engine/picking.py), on both engines.

The rule is the engine's: fewest active assignments (submitted votes plus unexpired leases), then
the lowest position. picking.py finds it with two cheap statements instead of sorting every open
item, so these tests pin the cases where the two halves meet: a leased item against an untouched
one. Votes are set on the rows directly (`done_count`), which is all that picking reads.
"""
from __future__ import annotations

import pytest
from sqlalchemy import select, update

from annotator.core.extensions import db
from annotator.core.models import Assignment, Item
from annotator.engine import assignment as engine
from annotator.engine import picking


def _votes(project, counts: dict[str, int], default: int) -> None:  # type: ignore[no-untyped-def]
    """Give every item of the project `default` votes, and the items named in `counts` theirs."""
    db.session.execute(update(Item).where(Item.project_id == project.id).values(done_count=default))
    for external_id, votes in counts.items():
        db.session.execute(update(Item).where(Item.project_id == project.id, Item.external_id == external_id)
                           .values(done_count=votes))
    db.session.commit()


def _ids(project) -> list[str]:  # type: ignore[no-untyped-def]
    return list(db.session.scalars(select(Item.external_id).where(Item.project_id == project.id)
                                   .order_by(Item.position)))


def test_a_leased_item_with_fewer_active_assignments_beats_untouched_items_with_more_votes(kpa_project, make_user):
    project = kpa_project(k=3)
    first = _ids(project)[0]
    _votes(project, {first: 0}, default=2)
    assert engine.next_for(make_user("a"), project).item.external_id == first  # now 0 votes + 1 lease
    assert engine.next_for(make_user("b"), project).item.external_id == first  # 1 active beats 2 votes


def test_an_untouched_item_beats_a_leased_item_with_as_many_votes(kpa_project, make_user):
    project = kpa_project(k=3)
    ids = _ids(project)
    assert engine.next_for(make_user("a"), project).item.external_id == ids[0]
    assert engine.next_for(make_user("b"), project).item.external_id == ids[1]


def test_equal_loads_go_by_position_whether_leased_or_not(kpa_project, make_user):
    project = kpa_project(k=3)
    ids = _ids(project)
    _votes(project, {ids[1]: 0}, default=1)
    assert engine.next_for(make_user("a"), project).item.external_id == ids[1]  # load 0 -> 1 (leased)
    assert engine.next_for(make_user("b"), project).item.external_id == ids[0]  # untouched, load 1, first
    # ids[0] now has load 2; ids[1] (leased, load 1) comes before ids[2] (untouched, load 1) by position
    assert engine.next_for(make_user("c"), project).item.external_id == ids[1]


def test_a_leased_item_whose_slots_are_all_taken_is_passed_over(kpa_project, make_user):
    project = kpa_project(k=2)
    ids = _ids(project)
    _votes(project, {ids[0]: 1}, default=1)
    engine.next_for(make_user("a"), project)  # ids[0]: 1 vote + 1 lease = k
    assert engine.next_for(make_user("b"), project).item.external_id == ids[1]


def test_an_item_the_annotator_had_is_never_offered_even_when_least_loaded(kpa_project, make_user):
    project, a = kpa_project(k=3), make_user("a")
    ids = _ids(project)
    lease = engine.next_for(a, project)
    engine.submit(lease.id, a, {"matches": []})
    _votes(project, {ids[0]: 0}, default=2)  # ids[0] looks least loaded, but a had it
    assert engine.next_for(a, project).item.external_id == ids[1]


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)  # SQLite: the transaction is exclusive
def test_a_lease_committed_after_the_pick_read_its_snapshot_is_counted_before_leasing(kpa_project, make_user,
                                                                                     monkeypatch):
    """PostgreSQL reads the pick in the statement's snapshot and locks the item afterwards, so a lease
    committed in between is not in what the pick saw. The INSERT recounts in its own snapshot and refuses
    the item when that lease took its last slot; `next` then picks again (in a fresh snapshot, which
    counts that lease) and goes on to another item."""
    project = kpa_project(k=1)
    ids = _ids(project)
    engine.next_for(make_user("a"), project)  # ids[0]: its one slot is a's lease now
    taken = db.session.scalars(select(Item).where(Item.project_id == project.id, Item.external_id == ids[0])).one()
    stale = picking.Pick(open_lease_id=None, item=taken)  # what a pick from before a's commit would find
    picks = iter([stale])  # the first pick is the stale one, the next ones are real
    real_pick = engine.pick
    monkeypatch.setattr(engine, "pick", lambda *args: next(picks, None) or real_pick(*args))
    b = engine.next_for(make_user("b"), project)
    assert b.item.external_id == ids[1]
    taken_id, b_item_id = taken.id, b.item_id
    db.session.remove()  # what was stored, as a fresh session reads it
    leased = db.session.scalars(select(Assignment.item_id).where(Assignment.project_id == project.id)).all()
    assert sorted(leased) == sorted([taken_id, b_item_id])  # one lease each: ids[0] was not leased twice
