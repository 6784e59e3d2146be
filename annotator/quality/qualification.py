"""The qualification quiz: the first `quiz_items` HITs of an annotator are control items, judged together.

The answers of attempt n are the control_answers rows with quiz_attempt = n. The attempt is judged
when its last answer comes in (or when no control item is left to ask, then on those answered; with
none answered at all there is nothing to hold against the annotator, who passes): mean score at least
`quiz_pass_mark` passes. Every judged attempt is a quiz_results row. An admin's retry opens attempt
n + 1, served from the control items the annotator has not had yet.
"""
from __future__ import annotations

from sqlalchemy import func, select

from annotator.core.extensions import db
from annotator.core.models import QUIZ_FAILED, QUIZ_PASSED, QUIZ_PENDING, ControlAnswer, Project, QuizResult, User
from annotator.core.quality_settings import Quality
from annotator.quality.state import state_for_update, state_of


def after_answer(user_id: int, project: Project, attempt: int, q: Quality) -> bool | None:
    """After a quiz answer: judge the attempt when it is full; True/False passed, None while it goes on."""
    answered, _ = _attempt(user_id, project.id, attempt)
    if answered < q.quiz_items:
        state_for_update(user_id, project.id)  # so the attempt is on record from its first answer
        return None
    return judge(user_id, project, q)


def judge(user_id: int, project: Project, q: Quality) -> bool:
    """Judge the annotator's current attempt on what it holds, record it, and set the state."""
    state = state_for_update(user_id, project.id)
    answered, score = _attempt(user_id, project.id, state.quiz_attempt)
    passed = answered == 0 or score >= q.quiz_pass_mark - 1e-9
    db.session.add(QuizResult(project_id=project.id, user_id=user_id, attempt=state.quiz_attempt, answered=answered,
                              score=score, passed=passed))
    state.quiz_status = QUIZ_PASSED if passed else QUIZ_FAILED
    db.session.flush()
    return passed


def allow_retry(user: User, project: Project) -> None:
    """Admin: let an annotator who failed take the quiz again (a new attempt; the failure stays on record)."""
    state = state_for_update(user.id, project.id)
    if state.quiz_status == QUIZ_FAILED:
        state.quiz_status = QUIZ_PENDING
        state.quiz_attempt += 1


def _attempt(user_id: int, project_id: int, attempt: int) -> tuple[int, float]:
    count, mean = db.session.execute(select(func.count(), func.avg(ControlAnswer.score)).where(
        ControlAnswer.project_id == project_id, ControlAnswer.user_id == user_id,
        ControlAnswer.quiz_attempt == attempt)).one()
    return int(count), float(mean or 0.0)


def status(user: User, project: Project) -> str | None:
    state = state_of(user.id, project.id)
    return None if state is None else state.quiz_status
