"""A control item of a ReCAM project imported with --declared is scored as a built-in cloze project's: 1 for the known
option, 0 for another, whatever the evidence and difficulty (the built-in scores the option only). The known answer
is the file's label, the item's reference in either project's terms; the answers are today's API shape, and the
declared project scores the answer it stores (the definition's)."""
from __future__ import annotations

import pytest
from sqlalchemy import select

from annotator.core.extensions import db
from annotator.core.models import Item, Project
from annotator.quality.controls import make_control
from annotator.tasks import project_task
from tests.conftest import DATA, load_project

DEV = DATA / "recam2021" / "Task_1_dev_excerpt.jsonl"   # item 0's label: 2


def _control(slug: str, **options: object) -> tuple[Project, Item]:
    project = load_project("recam2021", DEV, slug, **options)
    item = db.session.scalars(select(Item).where(Item.project_id == project.id, Item.external_id == "0")).one()
    make_control(item, project)
    db.session.commit()
    return project, item


@pytest.mark.parametrize("option, passage, difficulty, score", [
    (2, [0, 12], "easy", 1.0), (2, None, "hard", 1.0), (0, [0, 12], "easy", 0.0), (4, None, "medium", 0.0)])
def test_a_control_answer_scores_as_on_the_built_in(app, option, passage, difficulty, score):
    answer = {"option": option, "passage_span": passage, "question_span": None, "difficulty": difficulty}
    scores = []
    for project, item in (_control("built-in"), _control("declared", declared=True)):
        task = project_task(project)
        stored = task.normalised_answer(item, answer, task.settings_of(project))
        scores.append(task.control_score(item, stored, item.reference, task.settings_of(project)))
    assert scores == [score, score]
