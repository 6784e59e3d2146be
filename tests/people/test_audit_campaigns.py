"""The audit trail of the campaign tools: a gold set made (uploaded or from a project's gold), a leaderboard
submission scored, a dataset split drawn (on the page or by `flask stats --split-sizes`)."""
from __future__ import annotations

from annotator.engine import assignment as engine
from tests.people.conftest import events
from tests.web.conftest import csrf_token
from tests.web.test_dataset_stats_page import _draw
from tests.web.test_leaderboards import _create_kpa_board, _predictions, _submit


def test_uploading_a_gold_set_records_it_and_the_admin(boss):
    board = _create_kpa_board(boss)
    [event] = events("goldset.create")
    assert (event.actor_id, event.project) == (boss.user.id, None)
    assert event.detail == {"gold_set_id": board, "name": "KPA test topic 1", "task": "kpa2021",
                            "filename": "gold.zip", "from_project": False}


def test_a_gold_set_from_a_projects_gold_records_the_project(boss, kpa_project, make_user):
    project = kpa_project(k=1)
    ann = make_user("ann")
    while (lease := engine.next_for(ann, project)) is not None:
        engine.submit(lease.id, ann, {"matches": [lease.item.payload["key_points"][0]["id"]]})
    page = boss.get("/admin/projects/kpa").get_data(as_text=True)
    assert boss.post("/admin/leaderboards/from-project/kpa", data={"csrf_token": csrf_token(page)}).status_code == 302
    [event] = events("goldset.create")
    assert (event.actor_id, event.project, event.detail["from_project"]) == (boss.user.id, "kpa", True)


def test_a_scored_submission_records_the_board_team_and_system(boss):
    board = _create_kpa_board(boss)
    assert _submit(boss, board, "Oracle", _predictions("oracle")).status_code == 302
    [event] = events("leaderboard.submit")
    assert event.actor_id == boss.user.id
    assert {k: event.detail[k] for k in ("gold_set_id", "team", "system", "filename")} == {
        "gold_set_id": board, "team": "Oracle", "system": "Oracle-1", "filename": "predictions.p"}


def test_a_submission_that_cannot_be_scored_records_nothing(boss):
    board = _create_kpa_board(boss)
    _submit(boss, board, "Broken", b"not json", filename="broken.p")
    assert events("leaderboard.submit") == []


def test_drawing_a_split_on_the_page_records_seed_names_and_sizes(boss, kpa_project):
    kpa_project()
    _draw(boss, "kpa", "18,4,4", seed="3")
    [event] = events("split.draw")
    assert (event.actor_id, event.project) == (boss.user.id, "kpa")
    assert event.detail == {"seed": 3, "names": ["train", "dev", "test"], "sizes": [18, 4, 4]}


def test_drawing_a_split_with_flask_stats_records_the_command_line(app, kpa_project):
    kpa_project()
    result = app.test_cli_runner().invoke(args=["stats", "kpa", "--split-sizes", "18,4,4", "--seed", "1"])
    assert result.exit_code == 0, result.output
    [event] = events("split.draw")
    assert event.actor.startswith("command line") and event.detail["seed"] == 1


def test_a_refused_split_records_nothing(app, kpa_project):
    kpa_project()
    result = app.test_cli_runner().invoke(args=["stats", "kpa", "--split-sizes", "1,1", "--seed", "1"])
    assert result.exit_code != 0
    assert events("split.draw") == []


