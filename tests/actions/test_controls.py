"""Control-item actions: each changes the items, records `controls.change` and drops the kept figures, or, refused,
changes nothing. The page and `flask controls` call the same actions, so their events are the same."""
from __future__ import annotations

import io

import pytest

from annotator.actions import controls
from annotator.core.extensions import db
from annotator.core.models import Item
from annotator.quality.bulk_controls import read_control_file
from annotator.quality.controls import ControlRefused
from tests.actions.conftest import controls as controls_of
from tests.actions.conftest import generation, item, start_generation, trail
from tests.conftest import stored
from tests.web.conftest import csrf_token


def changes() -> list[dict]:
    """The details of the `controls.change` events, oldest first, read in a fresh session."""
    return [detail for action, _, detail in trail() if action == "controls.change"]


def test_making_an_item_a_control_keeps_its_reference_as_the_known_answer(kpa_project, admin):
    project = kpa_project()
    reference = item(project, "arg_1_0").reference
    controls.make_control(project, item(project, "arg_1_0"), admin)
    control = stored(Item, project_id=project.id, external_id="arg_1_0")
    assert control.is_control and control.reference == reference and reference is not None


def test_making_an_item_a_control_drops_the_kept_figures(kpa_project, admin):
    project = kpa_project()
    start_generation(project, 5)
    controls.make_control(project, item(project, "arg_1_0"), admin)
    assert generation("kpa") == 6


def test_making_an_item_ordinary_again_records_it_and_drops_the_kept_figures(kpa_project, admin):
    project = kpa_project()
    controls.make_control(project, item(project, "arg_1_0"), admin)
    start_generation(project, 5)
    controls.make_ordinary(project, item(project, "arg_1_0"), admin)
    assert controls_of("kpa") == set() and generation("kpa") == 6
    assert trail()[-1] == ("controls.change", "kpa", {"item": "arg_1_0", "control": False})


def test_an_item_without_a_known_answer_is_refused_and_nothing_is_recorded(kpa_project, admin):
    project = kpa_project()
    target = item(project, "arg_1_0")
    target.reference = None
    db.session.commit()
    start_generation(project, 5)
    with pytest.raises(ControlRefused, match="arg_1_0 has no reference answer and no decided gold"):
        controls.make_control(project, item(project, "arg_1_0"), admin)
    assert controls_of("kpa") == set() and generation("kpa") == 5 and changes() == []


def test_a_file_of_items_becomes_controls_with_its_count_recorded(kpa_project, admin):
    project = kpa_project()
    lines = read_control_file("item\narg_1_0\narg_1_1\n", "controls.csv")
    assert controls.add_controls(project, lines, "controls.csv", admin) == 2
    assert controls_of("kpa") == {"arg_1_0", "arg_1_1"}
    assert trail()[-1] == ("controls.change", "kpa", {"action": "add", "items": 2})


def test_a_file_naming_an_unknown_item_changes_nothing_and_records_nothing(kpa_project, admin):
    project = kpa_project()
    lines = read_control_file("item\narg_1_0\nnope\n", "controls.csv")
    with pytest.raises(ControlRefused, match="controls.csv line 3, field item"):
        controls.add_controls(project, lines, "controls.csv", admin)
    assert controls_of("kpa") == set() and changes() == []


def test_a_draw_records_its_seed(kpa_project, admin):
    project = kpa_project()
    drawn = controls.draw_controls(project, 3, 11, admin)
    assert controls_of("kpa") == set(drawn) and len(drawn) == 3
    assert trail()[-1] == ("controls.change", "kpa", {"action": "draw", "items": 3, "seed": 11})


def test_a_draw_of_more_items_than_have_a_known_answer_changes_nothing(kpa_project, admin):
    project = kpa_project()
    with pytest.raises(ControlRefused, match="field n: only 26 ordinary items"):
        controls.draw_controls(project, 27, 11, admin)
    assert controls_of("kpa") == set() and changes() == []


def test_removing_every_control_says_so_in_its_event(kpa_project, admin):
    project = kpa_project()
    controls.add_controls(project, read_control_file("item\narg_1_0\narg_1_1\n", "c.csv"), "c.csv", admin)
    start_generation(project, 5)
    assert controls.remove_controls(project, None, "", admin) == 2
    assert controls_of("kpa") == set() and generation("kpa") == 6
    assert trail()[-1] == ("controls.change", "kpa", {"action": "remove-all", "items": 2})


def test_the_pages_draw_records_the_seed_as_the_command_does(kpa_project, boss):
    kpa_project()
    url = "/admin/projects/kpa"
    token = csrf_token(boss.get(url).get_data(as_text=True))
    assert boss.post(f"{url}/controls", data={"csrf_token": token, "action": "draw", "n": "2",
                                              "seed": "7"}).status_code == 302
    assert trail()[-1] == ("controls.change", "kpa", {"action": "draw", "items": 2, "seed": 7})


def test_the_commands_remove_all_records_remove_all_as_the_page_does(app, kpa_project, tmp_path):
    kpa_project()
    (tmp_path / "c.csv").write_text("item\narg_1_0\n", encoding="utf-8")
    runner = app.test_cli_runner()
    assert runner.invoke(args=["controls", "add", str(tmp_path / "c.csv"), "--project", "kpa"]).exit_code == 0
    result = runner.invoke(args=["controls", "remove", "--all", "--project", "kpa"])
    assert result.exit_code == 0, result.output
    assert trail()[-1] == ("controls.change", "kpa", {"action": "remove-all", "items": 1})


def test_a_refused_file_on_the_page_is_said_and_changes_nothing(kpa_project, boss):
    kpa_project()
    url = "/admin/projects/kpa"
    token = csrf_token(boss.get(url).get_data(as_text=True))
    response = boss.post(f"{url}/controls", content_type="multipart/form-data", data={
        "csrf_token": token, "action": "add", "file": (io.BytesIO(b"item\nnope\n"), "controls.csv")})
    assert response.status_code == 302
    page = boss.get(response.headers["Location"]).get_data(as_text=True)
    assert "Control items not changed: controls.csv line 2, field item" in page
    assert controls_of("kpa") == set() and changes() == []
