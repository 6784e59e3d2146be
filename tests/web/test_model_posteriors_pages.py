"""The annotator model's label and posterior of each item on the items, adjudication and Dawid-Skene pages.

On tests/support/model_campaign.py's campaign: what each page must show is the Dawid-Skene seeded with the known answers
that a second implementation computed (tests/data/dawid_skene/make_independent.py), not the product's code.
"""
from __future__ import annotations

import re

import pytest
from sqlalchemy import select

from annotator.core.extensions import db
from annotator.core.models import Item, Project
from annotator.figures import kept_figures
from tests.support.model_campaign import MODEL, SEEDED, SLUG, expected, vote, voted_campaign


@pytest.fixture
def campaign(app, make_user, run_shared):  # type: ignore[no-untyped-def]
    return voted_campaign(make_user, run_shared)


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
    vote(db.session.scalar(select(Project).where(Project.slug == SLUG)), make_user("late"), "u13", "pos")
    client.get(f"/admin/projects/{SLUG}/items/?order=position")
    assert computed == [1]


@pytest.mark.parametrize("page", ["items/", "review/u23", "dawid-skene"])
def test_an_annotator_gets_403_on_the_pages_that_show_the_model(campaign, login, page) -> None:
    response = login("w1").get(f"/admin/projects/{SLUG}/{page}")
    assert response.status_code == 403
    assert "model-posterior" not in response.get_data(as_text=True)
