"""Admin pages of a big project read kept figures (annotator/figures/kept.py) and show the same as when they
compute them on the request; stale ones say their age, and a page with none young enough waits for them.

For every registered HIT type (its sample data in tests/support/type_data.py, three annotators answering at random),
on SQLite: which engine stores the figures is tested in tests/unit/test_kept_results.py.
"""
from __future__ import annotations

import difflib
import random
import re
from datetime import timedelta

import pytest
from sqlalchemy import select

from annotator.core.extensions import db
from annotator.core.models import KeptResult, Project
from annotator.engine import assignment as engine
from annotator.figures import kept as kept_module
from annotator.figures.kept_figures import same
from annotator.figures.kept_memory import read_figures
from annotator.tasks import TASK_TYPES, project_task
from tests.conftest import load_project
from tests.support.type_data import type_data

CSRF = re.compile(r'(<input[^>]*csrf_token[^>]*value=")[^"]*"')  # a new token per page
PAGES = ("", "/dashboard", "/items/", "/items/?order=highest", "/items/?order=position", "/annotators",
         "/review/", "/ranking")


@pytest.fixture
def database_url(sqlite_database: str) -> str:
    return sqlite_database


def _vote(project: Project, names: tuple[str, ...], make_user, seed: int = 1) -> None:  # type: ignore[no-untyped-def]
    task = project_task(project)
    settings = task.settings_of(project)
    rng = random.Random(seed)
    for name in names:
        user = make_user(name)
        while (lease := engine.next_for(user, project)) is not None:
            engine.submit(lease.id, user, task.example_answer(task.public_item(lease.item, settings,
                                                                               lease.presentation), rng))


@pytest.fixture(params=sorted(TASK_TYPES))
def voted(request, app, make_user):  # type: ignore[no-untyped-def]
    data = type_data(request.param)
    project = load_project(data.format, data.path, "p", **{**data.options, "k": 3})
    _vote(project, ("a", "b", "c"), make_user)
    make_user("boss", role="admin")
    return project


def _pages(client) -> dict[str, tuple[int, str]]:  # type: ignore[no-untyped-def]
    out = {}
    for page in PAGES:
        response = client.get(f"/admin/projects/p{page}")
        out[page] = (response.status_code, CSRF.sub(r'\1"', response.get_data(as_text=True)))
    return out


def test_every_page_shows_the_same_figures_kept_as_computed_on_the_request(app, login, voted):
    """One test per type: setting up the votes is what takes the time."""
    client = login("boss")
    computed = _pages(client)
    app.config.update(KEPT_RESULTS_FROM_VOTES=1, KEPT_RESULTS_REFRESH="request")
    first = _pages(client)   # computed and stored
    kept = _pages(client)    # read from what was stored
    again = _pages(client)   # from what this process read (figures/kept_memory.py)
    db.session.remove()
    assert db.session.scalar(select(db.func.count()).select_from(KeptResult)) >= 4
    assert [p for p in PAGES if computed[p][0] == 200] == [p for p in PAGES if kept[p][0] == 200]
    assert {p for p in PAGES if computed[p][0] == 200} >= {"", "/dashboard", "/items/", "/annotators"}
    # Every page leaves the figures it was lent as they were read: what the process remembers equals the rows.
    remembered = read_figures().values()
    assert {key[1] for key, _ in remembered} >= {"summary", "dashboard", "items", "annotators"}
    for key, value in remembered:
        assert same(value, kept_module._load(db.session.get(KeptResult, key[0]))[0]), key[1]
    for page in PAGES:
        for other in (first, kept, again):
            assert computed[page][0] == other[page][0], page
            assert computed[page][1] == other[page][1], (page, "\n".join(difflib.unified_diff(
                computed[page][1].splitlines(), other[page][1].splitlines(), lineterm="", n=1)))
    assert "[PASS] kept figures:" in app.test_cli_runner().invoke(args=["check", "--project", "p"]).output


@pytest.fixture
def big(app, make_user, kpa_project):  # type: ignore[no-untyped-def]
    """The KPA excerpt with three annotators' votes, its figures kept, then one more vote."""
    app.config.update(KEPT_RESULTS_FROM_VOTES=1, KEPT_RESULTS_REFRESH="request")
    make_user("boss", role="admin")
    project = kpa_project(k=3)
    _vote(project, ("a", "b"), make_user)
    return project


def test_a_page_of_stale_figures_says_how_old_they_are(app, login, make_user, big, monkeypatch):
    from annotator.figures import kept
    client = login("boss")
    client.get("/admin/projects/kpa")
    app.config["KEPT_RESULTS_REFRESH"] = "thread"
    monkeypatch.setattr(kept, "start_refresh", lambda project_id, group: None)
    _vote(db.session.get(Project, big.id), ("c",), make_user)
    html = client.get("/admin/projects/kpa").get_data(as_text=True)
    assert re.search(r"Figures as of \d\d:\d\d:\d\d UTC, 26 votes since;\s+newer ones are being computed "
                     r"\(figures shown are never older than 120 s\)", html), html


def test_a_page_without_figures_young_enough_says_they_are_computed(app, login, make_user, big, monkeypatch):
    from annotator.figures import kept
    client = login("boss")
    client.get("/admin/projects/kpa/dashboard")
    row = db.session.scalars(select(KeptResult).where(KeptResult.name == "dashboard")).one()
    row.computed_at -= timedelta(minutes=5)
    db.session.commit()
    app.config["KEPT_RESULTS_REFRESH"] = "thread"
    monkeypatch.setattr(kept, "start_refresh", lambda project_id, group: None)
    _vote(db.session.get(Project, big.id), ("c",), make_user)
    response = client.get("/admin/projects/kpa/dashboard")
    html = response.get_data(as_text=True)
    assert response.status_code == 202
    assert 'data-url="/admin/projects/kpa/dashboard"' in html and "computing.js" in html and "<progress" in html
    assert "this project's 78 votes are being computed" in html and "last time" in html
