"""The adjudication list of a big campaign, a page at a time (RuArg-2022 stance and premises, k = 3).

The project: the RuArg-2022 train excerpt with votes of a crowd of six drawn at random (bench/synthetic.py, the
builder of the benchmark projects), copied until it holds 8,000 labels: about 450 sentences, most of which the
"at least m of n agree" rule leaves undecided, so more than one page of them.
"""
from __future__ import annotations

import re

import pytest
from sqlalchemy import select

from annotator.core.extensions import db
from annotator.core.models import Adjudication, Item, Project, User
from annotator.figures.kept_gold import gold_frame
from annotator.tasks import project_task
from annotator.web.review import PER_PAGE
from bench import synthetic
from tests.conftest import DATA, all_rows, load_project, put_back, stored


@pytest.fixture(scope="module")
def built() -> dict[str, dict[str, list[dict]]]:
    """Per engine: every row of the voted project, as the first test of this process to need it built it."""
    return {}


@pytest.fixture
def project(app, built):  # type: ignore[no-untyped-def]
    """The voted project in the test's (empty) database. It is built once per engine and process, and later tests
    get its rows put back as they were, ids included (the votes are seeded, so a build would store the same
    again): the tests only read it, but for the adjudications one of them adds, which the next test's emptied
    database no longer holds."""
    engine = db.engine.dialect.name
    if engine in built:
        put_back(built[engine])
    else:
        project = load_project("ruarg2022", DATA / "ruarg2022" / "train_excerpt.tsv", "ru", k=3)
        synthetic.add_votes(project, labels=8000, k=3, crowd_size=6, seed=7)
        built[engine] = all_rows()
    return stored(Project, slug="ru")


@pytest.fixture
def admin(make_user, login):  # type: ignore[no-untyped-def]
    make_user("boss", role="admin")
    return login("boss")


def _undecided(project: Project) -> list[str]:
    return project_task(project).undecided(gold_frame(project))


def _listed(html: str, section: str) -> tuple[int, list[str]]:
    """(the list's start number, the item ids it links to) of one section of the page."""
    part = re.search(rf'<section class="card" id="{section}">(.*?)</section>', html, re.S).group(1)
    start = re.search(r'<ol class="item-links" start="(\d+)">', part)
    return (int(start.group(1)) if start else 0), re.findall(r'href="/admin/projects/ru/review/([^"?]+)"', part)


def test_every_item_to_decide_is_on_exactly_one_page_in_order(project, admin):
    expected = _undecided(project)
    assert len(expected) > PER_PAGE  # else this project does not test paging
    seen, starts, page = [], [], 1
    while True:
        html = admin.get(f"/admin/projects/ru/review/?page={page}").get_data(as_text=True)
        start, ids = _listed(html, "undecided")
        assert f"To decide ({len(expected)})" in html and len(ids) <= PER_PAGE
        seen += ids
        starts.append(start)
        if 'rel="next"' not in html:
            break
        page += 1
    assert seen == expected
    assert starts == [1 + n * PER_PAGE for n in range(page)]  # the numbers go on from page to page
    assert page == -(-len(expected) // PER_PAGE) and f"Page {page} of {page}" in html


def test_a_page_past_the_last_or_before_the_first_is_not_found(project, admin):
    pages = -(-len(_undecided(project)) // PER_PAGE)
    assert admin.get(f"/admin/projects/ru/review/?page={pages}").status_code == 200
    response = admin.get(f"/admin/projects/ru/review/?page={pages + 1}")
    assert response.status_code == 404 and f"This list has {pages} pages." in response.get_data(as_text=True)
    assert admin.get("/admin/projects/ru/review/?page=0").status_code == 404
    assert admin.get("/admin/projects/ru/review/?decided_page=2").status_code == 404  # nothing decided yet


def test_decided_items_leave_the_list_to_decide_and_page_on_their_own(project, admin):
    undecided = _undecided(project)
    boss = stored(User, username="boss")
    decided = undecided[:PER_PAGE + 3]
    ids = dict(db.session.execute(select(Item.external_id, Item.id).where(Item.external_id.in_(decided))).all())
    answer = {"claims": {claim: {"stance": -1, "premise": -1} for claim in ("masks", "quarantine", "vaccines")}}
    db.session.add_all(Adjudication(project_id=project.id, item_id=ids[i], user_id=boss.id, answer=answer)
                       for i in decided)
    db.session.commit()

    html = admin.get("/admin/projects/ru/review/?decided_page=2&page=2").get_data(as_text=True)
    start, shown = _listed(html, "decided")
    assert f"Decided by an admin ({len(decided)})" in html
    assert (start, shown) == (PER_PAGE + 1, decided[PER_PAGE:])
    start, left = _listed(html, "undecided")
    assert f"To decide ({len(undecided) - len(decided)})" in html
    assert (start, left) == (PER_PAGE + 1, undecided[len(decided):][PER_PAGE:2 * PER_PAGE])
    # each list's pager keeps the other list's page
    assert 'href="/admin/projects/ru/review/?page=1&amp;decided_page=2"' in html
    assert 'href="/admin/projects/ru/review/?decided_page=1&amp;page=2"' in html
