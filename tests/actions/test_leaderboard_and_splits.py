"""A dataset split drawn, and a gold set made from a project's gold: kept with their events, or refused with nothing
kept. (Uploads and scored submissions through the page: tests/web/test_leaderboards.py, people/test_audit_campaigns.)"""
from __future__ import annotations

import pytest
from sqlalchemy import func, select

from annotator.actions.leaderboard import gold_set_from_project
from annotator.actions.splits import draw_split
from annotator.campaigns.splits import SplitError, assigned_split
from annotator.core.errors import FormatError
from annotator.core.extensions import db
from annotator.core.models import GoldSet, Project
from tests.actions.conftest import trail
from tests.conftest import stored


def test_a_drawn_split_is_kept_and_the_same_seed_draws_it_again(kpa_project, admin):
    project = kpa_project()
    draw_split(project, (18, 4, 4), 3, admin)
    first = assigned_split(stored(Project, slug="kpa"))
    draw_split(stored(Project, slug="kpa"), (18, 4, 4), 3, admin)
    again = assigned_split(stored(Project, slug="kpa"))
    assert first is not None and again is not None and first.items == again.items
    assert list(first.items.values()).count("test") == 4 and len(first.items) == 26
    assert trail()[-1] == ("split.draw", "kpa", {"seed": 3, "names": ["train", "dev", "test"], "sizes": [18, 4, 4]})


def test_sizes_that_do_not_add_up_keep_the_earlier_split(kpa_project, admin):
    project = kpa_project()
    draw_split(project, (18, 4, 4), 3, admin)
    kept = assigned_split(stored(Project, slug="kpa"))
    with pytest.raises(SplitError):
        draw_split(stored(Project, slug="kpa"), (1, 1), 3, admin)
    assert assigned_split(stored(Project, slug="kpa")) == kept
    assert [action for action, _, _ in trail()].count("split.draw") == 1


def test_a_project_with_no_complete_item_makes_no_gold_set(kpa_project, admin):
    project = kpa_project()
    with pytest.raises(FormatError):
        gold_set_from_project(project, admin)
    db.session.remove()
    assert db.session.scalar(select(func.count(GoldSet.id))) == 0
    assert "goldset.create" not in [action for action, _, _ in trail()]
