"""`next` finds an annotator's open lease and skips the items they had by index lookups whose cost does not
grow with the work they have done, in the plan PostgreSQL's server workers run: psycopg prepares the
statement, and PostgreSQL plans it once for every value of its parameters (the generic plan). What that plan
can use is fixed by how the statement is written: with 'leased' sent as a parameter it could not use the
partial index of open leases, and NOT IN hashed all of the annotator's items, so every `next` read all of
the annotator's assignments (bench/results/2026-11-27-pick-plan-and-speed-aim.md). The tables are analysed after the
annotator's work, as `refresh_statistics` and autovacuum do. On PostgreSQL alone: SQLite's plans of the same statement,
which the product never analyses, are measured by bench/profile_pairs.py (bench/README.md, "CPU per pair")."""
from __future__ import annotations

import re

import pytest
from sqlalchemy import func, select, text

from annotator.core.extensions import db
from annotator.core.models import Item, User, utcnow
from annotator.engine.picking import pick_statement
from bench import synthetic
from bench.plans import plan_lines

OPEN_LEASES = "uq_assignments_one_open_lease"  # the partial index WHERE status = 'leased'


pytestmark = pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)


@pytest.fixture
def pick_plan(kpa_project) -> str:  # type: ignore[no-untyped-def]
    """The pick's plan for an annotator who has answered about 700 HITs (bench/synthetic.py: three annotators
    vote on every item of the KPA-2021 excerpt's copies), with 100 untouched items left, the tables analysed."""
    project = kpa_project(k=3)
    synthetic.add_votes(project, labels=9000, k=3, crowd_size=3, seed=3)
    held = db.session.scalar(select(func.count()).select_from(Item).where(Item.project_id == project.id))
    synthetic.grow_items(project, held + 100)
    annotator = db.session.scalar(select(User.id).where(User.username == "crowd1"))
    db.session.commit()
    for table in ("items", "assignments"):
        db.session.execute(text(f"ANALYZE {table}"))
    params = {"project_id": project.id, "user_id": annotator, "now": utcnow(), "k": project.k}
    return "\n".join(plan_lines(db.session.connection(), pick_statement(False), params))


def _assignment_lookups(plan: str) -> list[tuple[str, str]]:
    """(index, condition) of each read of the assignments table; a sequential scan has no index."""
    return [(index or "", condition) for index, condition in
            re.findall(r"Scan(?: using (\w+))? on assignments.*\n\s*(?:Index Cond|Filter): (.*)", plan)]


def test_the_annotators_open_lease_is_not_looked_for_among_all_their_assignments(pick_plan):
    by_user = [(index, condition) for index, condition in _assignment_lookups(pick_plan) if "user_id" in condition]
    assert by_user, pick_plan
    history = [lookup for lookup in by_user if "item_id" not in lookup[1] and lookup[0] != OPEN_LEASES]
    assert not history, pick_plan


def test_the_items_they_had_are_probed_one_by_one_not_hashed(pick_plan):
    probes = [lookup for lookup in _assignment_lookups(pick_plan) if "item_id" in lookup[1] and "user_id" in lookup[1]]
    assert probes, pick_plan


def test_no_read_of_assignments_is_a_full_scan(pick_plan):
    assert all(index for index, _ in _assignment_lookups(pick_plan)), pick_plan

