"""A control item of a declared KPA-2021 match project whose known answer is the labels file's ({key point id: 1 / 0},
kept by every import as the dataset table reads it, and by migration 0023 on the projects it moved) is scored as
the built-in kp_match type scored it: the share of the labelled key points the answer gets right, ticked where
the label is 1 and not where it is 0. Without the bridge's `known_score` the declared engine could not read that
shape and scored every such control 0 ("(no known answer)"), which would have failed every annotator's quiz.

The excerpt's argument arg_1_1 is labelled with five key points, kp_1_1 the one match (tests/data/kpa2021)."""
from __future__ import annotations

import pytest
from sqlalchemy import select

from annotator.core.extensions import db
from annotator.core.models import ControlAnswer, Item, Project
from annotator.tasks import project_task
from tests.conftest import DATA, load_project
from tests.quality.conftest import make_controls, set_quality, vote_on

ARGUMENT = "arg_1_1"
KNOWN = {"kp_1_0": 0, "kp_1_1": 1, "kp_1_2": 0, "kp_1_3": 0, "kp_1_4": 0}


def _declared_with_a_control(slug: str = "kpa-declared") -> tuple[Project, Item]:
    project = load_project("kpa2021", DATA / "kpa2021", slug, split="test", k=3)
    [item] = make_controls(project, ARGUMENT)
    return project, item


@pytest.mark.parametrize(("ticked", "score"), [
    (["kp_1_1"], 1.0),               # the known match alone: all five right
    (["kp_1_1", "kp_1_3"], 0.8),     # one no match ticked too: four of five
    ([], 0.8),                       # none: the match missed, four of five
    (["kp_1_0", "kp_1_2"], 0.4),     # two no matches ticked and the match missed: two of five
])
def test_a_control_answer_scores_the_share_of_labelled_key_points_right(app, ticked, score):
    project, item = _declared_with_a_control()
    assert project.task_type == "custom" and item.reference == KNOWN
    task = project_task(project)
    stored = task.normalised_answer(item, {"matches": ticked}, task.settings_of(project))
    assert task.control_score(item, stored, item.reference, task.settings_of(project)) == pytest.approx(score)


def test_the_known_answer_is_said_in_the_key_points_words(app):
    project, item = _declared_with_a_control()
    text = next(kp["text"] for kp in item.payload["key_points"] if kp["id"] == "kp_1_1")
    assert project_task(project).show_reference(item, item.reference) == f"Matching key points: {text}"


def test_a_submitted_control_answer_is_stored_with_its_score(app, make_user):
    """Through the engine's submit, as a HIT page or the API submits it: the control answer row, read back in a
    fresh session, holds the built-in's score."""
    project, _ = _declared_with_a_control()
    set_quality(project, control_rate=0.0)
    annotator = make_user("control-annotator")
    result = vote_on(annotator, project, ARGUMENT, {"matches": ["kp_1_1", "kp_1_3"]})
    assert result is not None
    db.session.remove()
    stored = db.session.scalars(select(ControlAnswer).where(ControlAnswer.project_id == project.id)).all()
    assert [(row.user_id, row.score) for row in stored] == [(annotator.id, pytest.approx(0.8))]


def test_a_control_made_from_the_declared_gold_is_scored_by_the_definition(app):
    """A known answer in the definition's shape ({"matches": [...]}, a control made from a declared project's
    decided gold) is scored by the definition's overlap of the ticked sets, as before."""
    project, item = _declared_with_a_control()
    task = project_task(project)
    known = {"matches": ["kp_1_1"]}
    assert task.control_score(item, {"matches": ["kp_1_1", "kp_1_3"]}, known) == pytest.approx(0.5)
