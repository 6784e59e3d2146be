"""Projects that several tests read as one set-up made them, made once per engine and test run, put back for the rest.

A comparison of a built-in project with a declared one (tests/web/test_shared_task_definitions*.py,
tests/web/test_bridge_kpa2021.py) imports the built-in project, makes the declared one and has the same annotators
vote on both, through the live engine or one bulk import; several tests then read the same pair (its gold, its
agreement, its exports). The first test of the run to need a set-up on an engine makes it and leaves every row it
stored for the others (`run_shared`, tests/conftest.py: one file per set-up and engine that the pytest-xdist workers
share); a later test gets those rows put back into its emptied database as they were, ids included (`put_back`).
The set-ups are deterministic (the answers are drawn from seeded generators, the items are the same files), so
building again would store the same; a test that changes the database (a lease, a vote, an export) changes its own
copy, which the next test's emptying removes.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from sqlalchemy import select

from annotator.core.extensions import db
from annotator.core.models import Project
from tests.conftest import all_rows, put_back


def kept_projects(shared: Any, key: str, build: Callable[[], Sequence[Project]]) -> tuple[Project, ...]:
    """The projects `build()` returns, in the test's database with every row the build stored: built here by the
    first test of the run to ask for `key` on this engine, put back for the others. Read in a fresh session."""
    def make() -> tuple[tuple[str, ...], dict[str, list[dict[str, Any]]]]:
        slugs = tuple(project.slug for project in build())
        return slugs, all_rows()

    (slugs, rows), made = shared.get_or_make(f"{key}-{db.engine.dialect.name}", make)
    if not made:
        put_back(rows)
    db.session.remove()
    return tuple(db.session.scalars(select(Project).where(Project.slug == slug)).one() for slug in slugs)
