"""The page an admin sees while a big project's figures are computed (annotator/figures/kept.py): it says so,
shows how far the computation has come, and turns into the asked page once the figures are there, without
reloading itself on a timer."""
from __future__ import annotations

import random
from datetime import timedelta

import pytest
from playwright.sync_api import expect
from sqlalchemy import select

from annotator.core.extensions import db
from annotator.core.models import KeptResult, Project
from annotator.engine import assignment as engine
from annotator.figures.kept import refresh
from annotator.figures.kept_figures import VOTES
from annotator.tasks import project_task

pytestmark = pytest.mark.browser


def _vote(project: Project, name: str, make_user) -> None:  # type: ignore[no-untyped-def]
    task, user, rng = project_task(project), make_user(name), random.Random(name)
    settings = task.settings_of(project)
    while (lease := engine.next_for(user, project)) is not None:
        engine.submit(lease.id, user, task.example_answer(task.public_item(lease.item, settings), rng))


def test_the_computing_page_becomes_the_dashboard_once_the_figures_are_there(app, kpa_project, make_user, page,
                                                                              login, fresh, monkeypatch):
    from annotator.figures import kept
    app.config.update(KEPT_RESULTS_FROM_VOTES=1, KEPT_RESULTS_REFRESH="request")
    make_user("boss", role="admin")
    project = kpa_project(k=3)
    project_id = project.id
    _vote(project, "a", make_user)
    refresh(project_id, VOTES)
    fresh()
    for row in db.session.scalars(select(KeptResult)):
        row.computed_at -= timedelta(minutes=10)  # older than the bound: never shown
    db.session.commit()
    _vote(db.session.get(Project, project_id), "b", make_user)
    app.config["KEPT_RESULTS_REFRESH"] = "thread"
    monkeypatch.setattr(kept, "start_refresh", lambda project_id, group: None)  # the test computes, below
    login(page, "boss")
    page.goto("/admin/projects/kpa/dashboard")
    expect(page.get_by_role("heading", name="Computing the figures")).to_be_visible()
    expect(page.get_by_role("status")).to_contain_text("52 votes are being computed")
    fresh()
    refresh(project_id, VOTES)
    expect(page.get_by_role("heading", name="Dashboard")).to_be_visible(timeout=10_000)
    assert page.url.endswith("/admin/projects/kpa/dashboard")
