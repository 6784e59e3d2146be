"""A project's crowd study: its link for a platform and who may take it, each saved with its event or refused
with nothing changed."""
from __future__ import annotations

import pytest

from annotator.actions.crowd_links import change_filters, save_link
from annotator.core.models import CrowdLink, Project
from annotator.core.options import OptionError
from annotator.people.crowd import CrowdError
from annotator.people.crowd_filters import crowd_settings
from tests.actions.conftest import trail
from tests.conftest import stored


def _crowd(slug: str) -> dict:
    """The crowd settings as stored on the project (those that differ from the defaults), read in a fresh session."""
    return (stored(Project, slug=slug).quality or {}).get("crowd") or {}


def test_a_new_link_is_kept_with_its_codes(kpa_project, admin):
    project = kpa_project()
    save_link(project, "prolific", 3, "DONE1", "OUT1", False, admin)
    link = stored(CrowdLink, project_id=project.id, platform="prolific")
    assert (link.hits, link.completion_code, link.screen_out_code, link.active) == (3, "DONE1", "OUT1", True)
    assert trail()[-1] == ("crowd.link", "kpa", {"platform": "prolific", "hits": 3, "new_secret": False})


def test_a_new_secret_replaces_the_links_secret(kpa_project, admin):
    project = kpa_project()
    save_link(project, "mturk", 3, "DONE1", "", False, admin)
    before = stored(CrowdLink, project_id=project.id, platform="mturk").nonce
    save_link(stored(Project, slug="kpa"), "mturk", 5, "DONE1", "", True, admin)
    link = stored(CrowdLink, project_id=project.id, platform="mturk")
    assert link.nonce != before and link.hits == 5


def test_a_code_that_does_not_fit_keeps_no_link_and_records_nothing(kpa_project, admin):
    project = kpa_project()
    with pytest.raises(CrowdError, match="completion code 'DONE 1' may have letters, digits"):
        save_link(project, "prolific", 3, "DONE 1", "", False, admin)
    assert stored(CrowdLink, project_id=project.id, platform="prolific") is None
    assert [action for action, _, _ in trail()] == ["import"]


def test_filters_given_change_and_the_others_stay(kpa_project, admin):
    project = kpa_project()
    change_filters(project, {"approval_rate_above": "95", "countries": ["US", "GB"]}, admin)
    change_filters(stored(Project, slug="kpa"), {"min_approved": "500"}, admin)
    assert _crowd("kpa") == {"approval_rate_above": 95, "countries": ["US", "GB"], "min_approved": 500}
    assert trail()[-1] == ("crowd.filters", "kpa", _crowd("kpa"))


def test_a_cleared_filter_is_back_to_its_default(kpa_project, admin):
    project = kpa_project()
    change_filters(project, {"approval_rate_above": "95", "min_approved": "500"}, admin)
    change_filters(stored(Project, slug="kpa"), {}, admin, clear=["approval_rate_above"])
    settings = crowd_settings(stored(Project, slug="kpa"))
    assert (settings["approval_rate_above"], settings["min_approved"]) == (None, 500)


def test_a_filter_that_does_not_fit_changes_nothing_and_records_nothing(kpa_project, admin):
    project = kpa_project()
    with pytest.raises(OptionError, match="approval_rate_above"):
        change_filters(project, {"approval_rate_above": "120"}, admin)
    assert _crowd("kpa") == {} and [action for action, _, _ in trail()] == ["import"]
