"""The annotator model's label and posterior of each item on the items, adjudication and Dawid-Skene pages.

The campaign is tests/data/dawid_skene/independent_models.json's (60 items, 3 answers, 5 votes each from 7
annotators, two of them spammers; 12 control items with known answers), loaded as a declared campaign of one choice
question and voted through the engine. What each page must show is that file's Dawid-Skene seeded with the known
answers, computed by a second implementation written with plain loops (make_independent.py beside it), not by the
product's code.
"""
from __future__ import annotations

import json
import re
from datetime import timedelta

import pytest
from sqlalchemy import select

from annotator.core.extensions import db
from annotator.core.models import Assignment, Item, Project, User, utcnow
from annotator.engine import assignment as engine
from annotator.figures import kept_figures
from tests.conftest import DATA, all_rows, put_back
from tests.declared_projects import make_declared_project

MODEL = json.loads((DATA / "dawid_skene" / "independent_models.json").read_text(encoding="utf-8"))
SEEDED = MODEL["dawid_skene_seeded"]
DEFINITION = """
name: Sentiment of short texts
k: 5
show:
  - {field: text, as: text, label: Text}
questions:
  - {id: sentiment, kind: choice, prompt: "Which sentiment?", options: [neg, neu, pos], gold: {rule: majority}}
"""
SLUG = "sentiment"


def expected(unit: str) -> tuple[str, str]:
    """(the independent model's label of the unit, its posterior as the pages print it)."""
    label = SEEDED["labels"][unit]
    return label, f"{SEEDED['posteriors'][unit][MODEL['classes'].index(label)]:.3f}"


def _vote(project: Project, user: User, external_id: str, value: str) -> None:
    """A vote on a chosen item (the engine would pick the item itself), submitted through the engine."""
    item = db.session.scalar(select(Item).where(Item.project_id == project.id, Item.external_id == external_id))
    lease = Assignment(project_id=project.id, item_id=item.id, user_id=user.id,
                       expires_at=utcnow() + timedelta(minutes=5))
    db.session.add(lease)
    db.session.commit()
    engine.submit(lease.id, user, {"sentiment": value})


@pytest.fixture
def campaign(app, make_user, run_shared):  # type: ignore[no-untyped-def]
    """The campaign voted, made once per engine in the run and put back for later tests (as tests/unit/
    test_kept_results.py's project)."""
    def make() -> dict[str, list[dict]]:
        units = sorted({unit for unit, _, _ in MODEL["votes"]})
        project = make_declared_project(SLUG, DEFINITION, [{"id": u, "text": f"Text {u}"} for u in units], k=5)
        for item in db.session.scalars(select(Item).where(Item.project_id == project.id)):
            if item.external_id in MODEL["known"]:
                item.is_control, item.reference = True, {"sentiment": MODEL["known"][item.external_id]}
        db.session.commit()
        users = {name: make_user(name) for name in sorted({coder for _, coder, _ in MODEL["votes"]})}
        make_user("boss", role="admin")
        for unit, coder, value in MODEL["votes"]:
            _vote(project, users[coder], unit, value)
        return all_rows()

    rows, made_now = run_shared.get_or_make(f"model-posteriors-{db.engine.dialect.name}", make)
    if not made_now:
        put_back(rows)
    return db.session.scalar(select(Project).where(Project.slug == SLUG))


def _item_block(html: str, external_id: str) -> str:
    start = html.index(f'id="item-{external_id}"')
    end = html.find('class="card item"', start)
    return html[start:end if end != -1 else len(html)]


def _model_cells(block: str) -> list[tuple[str, str]]:
    return re.findall(r'class="model-label">([^<]*)</strong>\s*<span class="num model-posterior">([^<]*)</span>',
                      block)


def test_the_items_page_shows_each_items_label_and_posterior_of_the_seeded_model(campaign, login) -> None:
    html = login("boss").get(f"/admin/projects/{SLUG}/items/?order=position&page=2").get_data(as_text=True)
    shown = re.findall(r'id="item-(u\d\d)"', html)
    assert shown == [f"u{n}" for n in range(26, 51)]
    for unit in shown:
        assert _model_cells(_item_block(html, unit)) == [expected(unit)], unit
    assert "shown to admins only" in html


def test_a_control_item_seeds_the_model_and_shows_no_posterior_of_its_own(campaign, login) -> None:
    html = login("boss").get(f"/admin/projects/{SLUG}/items/?order=position").get_data(as_text=True)
    assert _model_cells(_item_block(html, "u03")) == []          # a control item: its answer is known
    assert _model_cells(_item_block(html, "u13")) == [expected("u13")]


def test_the_adjudication_page_shows_the_items_label_and_posterior(campaign, login) -> None:
    client = login("boss")
    # u23's votes split 2-2-1 (neg, neg, pos, pos, neu): the majority rule leaves it undecided
    assert sorted(v for u, _, v in MODEL["votes"] if u == "u23") == ["neg", "neg", "neu", "pos", "pos"]
    assert "u23" in client.get(f"/admin/projects/{SLUG}/review/").get_data(as_text=True)
    html = client.get(f"/admin/projects/{SLUG}/review/u23").get_data(as_text=True)
    assert _model_cells(html) == [expected("u23")]


def test_the_dawid_skene_page_is_the_seeded_model(campaign, login) -> None:
    html = login("boss").get(f"/admin/projects/{SLUG}/dawid-skene").get_data(as_text=True)
    assert "with the known answers of 12 control units" in html
    rows = re.findall(r'<tr(?: class="flagged")?><td>(u\d\d) / sentiment</td><td>([^<]*)</td>\s*'
                      r'<td class="num">([^<]*)</td>', html)
    assert len(rows) == 48
    assert {unit: (label, posterior) for unit, label, posterior in rows} == \
        {unit: expected(unit) for unit in SEEDED["labels"] if unit not in MODEL["known"]}


def test_a_big_projects_pages_read_the_kept_model_until_a_vote_comes(app, campaign, login, make_user,
                                                                      monkeypatch) -> None:
    app.config.update(KEPT_RESULTS_FROM_VOTES=1, KEPT_RESULTS_REFRESH="request")
    client = login("boss")
    assert _model_cells(_item_block(client.get(f"/admin/projects/{SLUG}/items/?order=position")
                                    .get_data(as_text=True), "u13")) == [expected("u13")]
    computed = []
    real = kept_figures.project_model
    monkeypatch.setattr(kept_figures, "project_model", lambda *a, **k: computed.append(1) or real(*a, **k))
    html = client.get(f"/admin/projects/{SLUG}/items/?order=position").get_data(as_text=True)
    assert _model_cells(_item_block(html, "u13")) == [expected("u13")] and computed == []   # read as kept
    item = db.session.scalar(select(Item).where(Item.external_id == "u13"))
    item.target = 6       # one vote more for u13: the kept model no longer holds
    db.session.commit()
    _vote(db.session.scalar(select(Project).where(Project.slug == SLUG)), make_user("late"), "u13", "pos")
    client.get(f"/admin/projects/{SLUG}/items/?order=position")
    assert computed == [1]


@pytest.mark.parametrize("page", ["items/", "review/u23", "dawid-skene"])
def test_an_annotator_gets_403_on_the_pages_that_show_the_model(campaign, login, page) -> None:
    response = login("w1").get(f"/admin/projects/{SLUG}/{page}")
    assert response.status_code == 403
    assert "model-posterior" not in response.get_data(as_text=True)
