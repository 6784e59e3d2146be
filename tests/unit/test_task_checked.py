"""`TaskType.checked`: the stored answer and the label rows of one vote from one check, as the engine's submit and the
vote import call it. A declared campaign that reads its items through a view (the emphasis files' words) reads each
item once for both, not once per call: the view of a sentence was built twice for each of its nine votes."""
from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import select

from annotator.core.extensions import db
from annotator.core.models import Assignment, Item, Project
from annotator.declared import item_view
from annotator.tasks import project_task
from annotator.tasks.base import AnswerError
from tests.conftest import DATA, load_project


@pytest.fixture
def emphasis(app):  # type: ignore[no-untyped-def]
    """The dev excerpt with its nine vote columns: a declared project whose spans read the words through a view."""
    load_project("emphasis2020", DATA / "emphasis2020" / "dev_excerpt.txt", "emph", with_votes=True)
    db.session.remove()
    project = db.session.scalars(select(Project).where(Project.slug == "emph")).one()
    votes = db.session.execute(select(Item, Assignment.answer).join(Assignment, Assignment.item_id == Item.id)
                               .where(Item.project_id == project.id).order_by(Assignment.id)).all()
    assert len(votes) >= 9
    return project_task(project), votes


def test_checked_gives_what_normalised_answer_and_labels_give_for_every_stored_vote(emphasis):  # type: ignore[no-untyped-def]
    task, votes = emphasis
    for item, answer in votes:
        stored, labels = task.checked(item, answer)
        assert stored == task.normalised_answer(item, answer)
        assert labels == task.labels(item, answer)
        assert stored == answer   # a stored vote checks back to itself


def test_a_refused_answer_gets_the_labels_message(emphasis):  # type: ignore[no-untyped-def]
    task, votes = emphasis
    item, answer = votes[0]
    wrong: dict[str, Any] = {key: "not a list of tags" for key in answer}
    with pytest.raises(AnswerError) as by_labels:
        task.labels(item, wrong)
    with pytest.raises(AnswerError) as by_checked:
        task.checked(item, wrong)
    assert str(by_checked.value) == str(by_labels.value)


def test_the_item_is_viewed_once_per_vote_and_again_for_another_item(emphasis, monkeypatch):  # type: ignore[no-untyped-def]
    task, votes = emphasis
    views: list[str] = []
    real = item_view.viewed

    def counted(definition, item):  # type: ignore[no-untyped-def]
        views.append(item.external_id)
        return real(definition, item)
    monkeypatch.setattr(item_view, "viewed", counted)
    first, second = votes[0][0], next(item for item, _ in votes if item.id != votes[0][0].id)
    for item in (first, first, second, first):
        task.checked(item, next(answer for i, answer in votes if i.id == item.id))
    assert views == [first.external_id, second.external_id, first.external_id]


def test_an_item_whose_payload_was_replaced_is_viewed_afresh(emphasis, monkeypatch):  # type: ignore[no-untyped-def]
    task, votes = emphasis
    item, answer = votes[0]
    task.checked(item, answer)
    seen: list[Any] = []
    real = item_view.viewed
    monkeypatch.setattr(item_view, "viewed", lambda definition, i: seen.append(i) or real(definition, i))
    item.payload = dict(item.payload)   # an edit assigns a new payload
    task.checked(item, answer)
    assert seen == [item]
