"""An admin's decision on an item: checked like a vote, kept once per item, a replaced one drops the kept figures."""
from __future__ import annotations

import random
from typing import Any

import pytest
from sqlalchemy import select

from annotator.actions.adjudication import adjudicate
from annotator.core.extensions import db
from annotator.core.models import Adjudication, Project
from annotator.tasks import AnswerError, project_task
from tests.actions.conftest import generation, item, start_generation, trail
from tests.conftest import DATA, load_project


@pytest.fixture
def ruarg(app) -> Project:  # type: ignore[no-untyped-def]
    """The RuArg-2022 train excerpt (sentences with stance and premise questions per topic), k=3."""
    return load_project("ruarg2022", DATA / "ruarg2022" / "train_excerpt.tsv", "ru", k=3)


def _answer(project: Project, external_id: str, seed: int) -> dict[str, Any]:
    """A valid answer to the item as an annotator would send it (drawn by the type, seeded)."""
    task = project_task(project)
    return task.example_answer(task.public_item(item(project, external_id), task.settings_of(project)),
                               random.Random(seed))


def _decisions() -> list[tuple[int | None, dict]]:
    db.session.remove()
    return [(a.user_id, a.answer) for a in db.session.scalars(select(Adjudication).order_by(Adjudication.id))]


def test_a_decision_is_kept_with_who_made_it(ruarg, admin):
    answer = _answer(ruarg, "17024", 1)
    adjudicate(ruarg, item(ruarg, "17024"), answer, admin)
    assert _decisions() == [(admin[0], answer)]
    assert trail()[-1] == ("adjudicate", "ru", {"item": "17024", "replaced": False})


def test_deciding_again_replaces_the_decision_and_drops_the_kept_figures(ruarg, admin):
    first, second = _answer(ruarg, "17024", 1), _answer(ruarg, "17024", 2)
    assert first != second
    adjudicate(ruarg, item(ruarg, "17024"), first, admin)
    start_generation(ruarg, 5)
    adjudicate(ruarg, item(ruarg, "17024"), second, admin)
    assert _decisions() == [(admin[0], second)] and generation("ru") == 6
    assert trail()[-1] == ("adjudicate", "ru", {"item": "17024", "replaced": True})


def test_an_answer_the_type_refuses_keeps_nothing_and_records_nothing(ruarg, admin):
    with pytest.raises(AnswerError):
        adjudicate(ruarg, item(ruarg, "17024"), {"no such question": "yes"}, admin)
    assert _decisions() == [] and [a for a, _, _ in trail()] == ["import"]
