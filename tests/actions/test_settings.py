"""Settings actions: the settings form and the quality settings, saved with their event, or refused (a value that
does not fit, a change of k to confirm first) with nothing changed."""
from __future__ import annotations

import pytest

from annotator.actions.settings import ToConfirm, change_project_settings, change_quality_settings
from annotator.campaigns.settings import ProjectFields
from annotator.core.models import Project
from annotator.core.options import OptionError
from annotator.engine import assignment as engine
from annotator.figures.kept_gold import gold_frame
from annotator.tasks import project_task
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


# --- the gold rules' parameters (declared/rule_settings.py): the definition's, changed at any time ----------------

def _ticked(project: Project, make_user, ticking: int, n: int = 5) -> None:  # type: ignore[no-untyped-def]
    """`ticking` of n annotators tick every argument's first key point, the others none: its share is ticking / n."""
    for j in range(n):
        user = make_user(f"ann{j}")
        while (lease := engine.next_for(user, stored(Project, slug=project.slug))) is not None:
            first = lease.item.payload["key_points"][0]["id"]
            engine.submit(lease.id, user, {"matches": [first] if j < ticking else []})


def _first_key_point_gold(slug: str) -> set[str]:
    project = stored(Project, slug=slug)
    firsts = {item.payload["key_points"][0]["id"] for item in project.items}
    gold = gold_frame(project)
    return set(gold.loc[gold["unit"].isin(firsts), "gold"].astype(str))


def test_a_kpa_matchs_thresholds_change_after_its_votes_and_its_gold_follows(kpa_project, make_user, admin):
    """3 of 5 tick each first key point: a match at ArgKP's 0.6; undecided once the positive threshold is 0.7."""
    project = kpa_project(k=5)
    _ticked(project, make_user, ticking=3)
    assert _first_key_point_gold("kpa") == {"1"}
    change_project_settings(stored(Project, slug="kpa"), ProjectFields("kpa", 5, 30, ""),
                            {"gold_matches_positive": "0.7"}, None, admin)
    saved = stored(Project, slug="kpa")
    assert saved.definition["questions"][0]["gold"] == {"rule": "share", "positive": 0.7, "negative": 0.15}
    assert _first_key_point_gold("kpa") == {"undecided"}
    assert _events("project.settings")[-1]["gold_rules"] == {"gold_matches_positive": {"from": 0.6, "to": 0.7}}


def test_thresholds_the_wrong_way_round_change_nothing_and_say_why(kpa_project, admin):
    project = kpa_project()
    before = stored(Project, slug="kpa")
    before = (before.definition, before.name)
    project = stored(Project, slug="kpa")
    with pytest.raises(OptionError, match=r"negative \(0\.7\) must be below positive \(0\.6\)"):
        change_project_settings(project, ProjectFields("Renamed", 3, 30, ""), {"gold_matches_negative": "0.7"}, None,
                                admin)
    saved = stored(Project, slug="kpa")
    assert (saved.definition, saved.name) == before and _events("project.settings") == []


def test_a_threshold_out_of_its_range_is_refused_by_name(kpa_project, admin):
    project = kpa_project()
    with pytest.raises(OptionError, match="gold_matches_positive"):
        change_project_settings(project, ProjectFields("kpa", 3, 30, ""), {"gold_matches_positive": "1.5"}, None,
                                admin)
    assert stored(Project, slug="kpa").definition["questions"][0]["gold"]["positive"] == 0.6


def test_the_checks_tie_changes_its_majority_and_a_setting_left_as_it_is_records_no_rule(app, admin):
    project = _check_project()
    assert project_task_rules(project) == {"gold_verdict_ties": "no"}
    change_project_settings(project, ProjectFields("kpa", 3, 30, ""), {"gold_verdict_ties": "no"}, None, admin)
    assert "gold_rules" not in _events("project.settings")[-1]
    change_project_settings(stored(Project, slug="kpa"), ProjectFields("kpa", 3, 30, ""),
                            {"gold_verdict_ties": "yes"}, None, admin)
    gold = stored(Project, slug="kpa").definition["questions"][0]["gold"]
    assert gold["ties"] == "yes" and gold["groups"] == {"no": ["no", "faulty"]}   # the rest of the rule as it was


def test_a_ruarg_stage_offers_each_agree_rule_and_changes_the_one_given(app, admin):
    project = load_project("ruarg2022", DATA / "ruarg2022" / "train_excerpt.tsv", "ru", k=3)
    rules = project_task_rules(project)
    assert {name: value for name, value in rules.items() if name.endswith("_m")} == {
        "gold_relevance_m": 2, "gold_stance_m": 2, "gold_premise_m": 2}
    change_project_settings(project, ProjectFields("ru", 3, 30, ""), {"gold_premise_m": "3"}, None, admin)
    assert project_task_rules(stored(Project, slug="ru"))["gold_premise_m"] == 3
    assert project_task_rules(stored(Project, slug="ru"))["gold_stance_m"] == 2


def test_m_above_the_definitions_k_is_refused(app, admin):
    project = load_project("ruarg2022", DATA / "ruarg2022" / "train_excerpt.tsv", "ru", k=3)
    with pytest.raises(OptionError, match="gold rules cannot be saved"):
        change_project_settings(project, ProjectFields("ru", 3, 30, ""), {"gold_stance_m": "4"}, None, admin)
    assert project_task_rules(stored(Project, slug="ru"))["gold_stance_m"] == 2


def project_task_rules(project: Project) -> dict:
    return project_task(project).rule_values()
