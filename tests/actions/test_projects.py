"""A project as a whole: archived or open again, who may annotate it, deleted while it has no votes."""
from __future__ import annotations

import pytest

from annotator.actions.projects import ProjectRefused, delete_project, set_archived, set_audience
from annotator.core.models import Item, Project
from tests.actions.conftest import trail
from tests.conftest import stored
from tests.quality.conftest import answer_next


def test_archiving_closes_the_project_and_records_it(kpa_project, admin):
    set_archived(kpa_project(), True, admin)
    assert stored(Project, slug="kpa").archived
    assert trail()[-1] == ("project.archive", "kpa", {"archived": True})


def test_the_audience_keeps_the_chosen_accounts_and_leaves_out_ids_of_none(kpa_project, make_user, admin):
    ann, bea = make_user("ann"), make_user("bea")
    set_audience(kpa_project(), "listed", [bea.id, ann.id, 999], admin)
    project = stored(Project, slug="kpa")
    assert (project.audience, sorted(u.username for u in project.annotators)) == ("listed", ["ann", "bea"])
    assert trail()[-1] == ("project.audience", "kpa", {"audience": "listed", "user_ids": sorted([ann.id, bea.id])})


def test_a_project_without_votes_is_deleted_with_its_items_and_its_name_recorded(kpa_project, admin):
    project = kpa_project()
    project_id, name, task_type = project.id, project.name, project.task_type
    delete_project(project, admin)
    assert stored(Project, slug="kpa") is None and stored(Item, project_id=project_id, external_id="arg_1_0") is None
    assert trail()[-1] == ("project.delete", "kpa", {"name": name, "task_type": task_type})


def test_a_project_with_votes_is_not_deleted_and_nothing_is_recorded(kpa_project, make_user, admin):
    project = kpa_project()
    answer_next(make_user("ann"), project, {"matches": []})
    with pytest.raises(ProjectRefused, match="has votes. Archive it instead"):
        delete_project(stored(Project, slug="kpa"), admin)
    assert stored(Project, slug="kpa") is not None
    assert [action for action, _, _ in trail()] == ["import"]
