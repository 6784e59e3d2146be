"""Settings actions: the settings form and the quality settings, saved with their event, or refused (a value that
does not fit, a change of k to confirm first) with nothing changed."""
from __future__ import annotations

import pytest

from annotator.actions.settings import ToConfirm, change_project_settings, change_quality_settings
from annotator.campaigns.settings import ProjectFields
from annotator.core.models import Project
from annotator.core.options import OptionError
from tests.actions.conftest import trail
from tests.conftest import DATA, load_project, stored
from tests.quality.conftest import answer_next

CHECK_SETTINGS = {"map_variant": "plain-ap"}


def _check_project() -> Project:
    """A KPA-2021 Track-2 check project (declared, of match_check.yaml): its mAP variant is a project setting (the
    bridge's kept setting), its rules are its definition's."""
    return load_project("kpa2021-check", DATA / "kpa2021_track2", "kpa", split="test", name="kpa", k=3)


def _events(action: str) -> list[dict]:
    return [detail for name, _, detail in trail() if name == action]


def test_the_settings_form_is_saved_with_the_names_of_the_settings_it_holds(app, admin):
    project = _check_project()
    change_project_settings(project, ProjectFields("Key points", 4, 20, "Read twice."), CHECK_SETTINGS, None, admin)
    saved = stored(Project, slug="kpa")
    assert (saved.name, saved.k, saved.lease_minutes, saved.guidelines) == ("Key points", 4, 20, "Read twice.")
    assert saved.settings["map_variant"] == "plain-ap"
    assert _events("project.settings") == [{"k": 4, "lease_minutes": 20, "settings": ["map_variant"]}]


def test_a_setting_that_does_not_fit_changes_nothing_and_records_nothing(app, admin):
    project = _check_project()
    with pytest.raises(OptionError, match="map_variant"):
        change_project_settings(project, ProjectFields("Key points", 4, 20, ""), {"map_variant": "most"}, None, admin)
    saved = stored(Project, slug="kpa")
    assert (saved.name, saved.k) == ("kpa", 3) and _events("project.settings") == []


def test_raising_k_over_complete_items_is_to_be_confirmed_and_changes_nothing(kpa_project, make_user, admin):
    project = kpa_project(k=1)
    answer_next(make_user("ann"), project, {"matches": []})
    with pytest.raises(ToConfirm) as unconfirmed:
        change_project_settings(stored(Project, slug="kpa"), ProjectFields("kpa", 2, 30, ""), {}, None, admin)
    change = unconfirmed.value.change
    assert (change.old, change.new, change.to_pending) == (1, 2, 1)
    assert stored(Project, slug="kpa").k == 1 and _events("project.settings") == []


def test_raising_k_once_confirmed_is_saved(kpa_project, make_user, admin):
    project = kpa_project(k=1)
    answer_next(make_user("ann"), project, {"matches": []})
    change_project_settings(stored(Project, slug="kpa"), ProjectFields("kpa", 2, 30, ""), {}, 2, admin)
    assert stored(Project, slug="kpa").k == 2 and len(_events("project.settings")) == 1


def test_quality_settings_are_saved_and_recorded_as_stored(kpa_project, admin):
    project = kpa_project()
    change_quality_settings(project, {"control_rate": "0.25", "quiz_items": "2"}, None, admin)
    quality = stored(Project, slug="kpa").quality
    assert (quality["control_rate"], quality["quiz_items"]) == (0.25, 2)
    assert _events("quality.settings") == [quality]


def test_a_quality_setting_that_does_not_fit_changes_nothing(kpa_project, admin):
    project = kpa_project()
    with pytest.raises(OptionError, match="control_rate"):
        change_quality_settings(project, {"control_rate": "1.5"}, None, admin)
    assert not (stored(Project, slug="kpa").quality or {}).get("control_rate") and _events("quality.settings") == []
