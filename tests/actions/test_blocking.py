"""An admin's decisions about one annotator: unblock them, let them take the quiz again."""
from __future__ import annotations

from sqlalchemy import select

from annotator.actions.blocking import allow_retry, unblock
from annotator.core.extensions import db
from annotator.core.models import QUIZ_FAILED, QUIZ_PENDING, AnnotatorState
from annotator.quality.blocking import block
from annotator.quality.state import state_for_update
from tests.actions.conftest import trail


def _state(user_id: int) -> AnnotatorState:
    db.session.remove()
    return db.session.scalars(select(AnnotatorState).where(AnnotatorState.user_id == user_id)).one()


def test_unblocking_lets_the_annotator_work_and_exempts_them_from_the_rules(kpa_project, make_user, admin):
    project = kpa_project()
    ann = make_user("ann")
    block(ann.id, project, "accuracy 0.2 on 5 control items")
    db.session.commit()
    unblock(project, ann, admin)
    state = _state(ann.id)
    assert (state.blocked_at, state.blocked_reason, state.exempt) == (None, None, True)
    assert trail()[-1] == ("annotator.unblock", "kpa", {"user_id": ann.id})


def test_a_failed_annotator_may_take_the_quiz_again_as_a_new_attempt(kpa_project, make_user, admin):
    project = kpa_project()
    ann = make_user("ann")
    state = state_for_update(ann.id, project.id)
    state.quiz_status, attempt = QUIZ_FAILED, state.quiz_attempt
    db.session.commit()
    allow_retry(project, ann, admin)
    state = _state(ann.id)
    assert (state.quiz_status, state.quiz_attempt) == (QUIZ_PENDING, attempt + 1)
    assert trail()[-1] == ("annotator.retry_quiz", "kpa", {"user_id": ann.id})
