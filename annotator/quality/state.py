"""Where an annotator stands in a project's quality control: working, in the quiz, failed it, blocked.

Read once per `next` and only in projects with a quiz or blocking (`Quality.screening`); the row
(models.AnnotatorState) is written only when something happens, so most annotators have none.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import Row, bindparam, select

from annotator.core.extensions import db
from annotator.core.models import QUIZ_FAILED, QUIZ_PENDING, AnnotatorState, Project, QuizResult, User
from annotator.core.quality_settings import Quality, quality_settings
from annotator.core.statements import execute

WORK, QUIZ = "work", "quiz"


@dataclass(frozen=True)
class Stop:
    """The annotator may not work on: `blocked` or failed the quiz, with the reason in words."""

    blocked: bool
    reason: str


_STATE = (select(AnnotatorState.quiz_status, AnnotatorState.quiz_attempt, AnnotatorState.blocked_at,
                 AnnotatorState.blocked_reason, AnnotatorState.exempt)
          .where(AnnotatorState.project_id == bindparam("project_id"), AnnotatorState.user_id == bindparam("user_id")))


def state_of(user_id: int, project_id: int) -> Row[Any] | None:
    """The annotator's state as stored (with this transaction's changes), to read; None: no row yet.

    A row of its columns, not the entity, read with Core on the session's connection (core/statements.execute):
    `next` (with a quiz or blocking) and `submit` (with blocking) each read it once per HIT, and as an
    entity query it was the costliest statement of their Python (bench/results/2026-11-24-hot-path-rounds.md, "The
    annotator's state on the driver's cursor"). The session is flushed first, as its autoflush would before a query of
    its own. `state_for_update` gives the entity.
    """
    db.session.flush()
    return execute(_STATE, {"project_id": project_id, "user_id": user_id}).first()


def state_for_update(user_id: int, project_id: int) -> AnnotatorState:
    """The annotator's state row, created (quiz pending, attempt 1) when there is none yet."""
    state = db.session.get(AnnotatorState, (project_id, user_id), populate_existing=True)
    if state is None:
        state = AnnotatorState(project_id=project_id, user_id=user_id, quiz_status=QUIZ_PENDING, quiz_attempt=1,
                               exempt=False)
        db.session.add(state)
        db.session.flush()
    return state


def phase(user: User, project: Project, q: Quality) -> str | Stop:
    """WORK, QUIZ, or why the annotator is stopped. Call only when `q.screening` (one row read)."""
    state = state_of(user.id, project.id)
    stop = _stop(state, q, user.id, project.id)
    if stop is not None:
        return stop
    if q.quiz and (state is None or state.quiz_status == QUIZ_PENDING):
        return QUIZ
    return WORK


def _stop(state: Row[Any] | None, q: Quality, user_id: int, project_id: int) -> Stop | None:
    if state is None:
        return None
    if state.blocked_at is not None:
        return Stop(True, "You have been blocked from this project: " + (state.blocked_reason or "quality control")
                    + ". Please contact the organisers if you think this is a mistake.")
    if q.quiz and state.quiz_status == QUIZ_FAILED:
        return Stop(False, quiz_failed(user_id, project_id, q))
    return None


def stop_of(user: User, project: Project) -> Stop | None:
    """Why the annotator is stopped in this project (blocked, failed the quiz), read only; None: not stopped."""
    q = quality_settings(project)
    return _stop(state_of(user.id, project.id), q, user.id, project.id) if q.screening else None


def quiz_failed(user_id: int, project_id: int, q: Quality) -> str:
    """Why a failed annotator has no HITs, with the last attempt's score and the pass mark (read only then)."""
    last = db.session.scalars(select(QuizResult).where(
        QuizResult.project_id == project_id, QuizResult.user_id == user_id, QuizResult.passed.is_(False))
        .order_by(QuizResult.attempt.desc(), QuizResult.id.desc()).limit(1)).first()
    score = "" if last is None else (f"your score was {last.score:.0%} over {last.answered} "
                                     f"question{'' if last.answered == 1 else 's'}; ")
    return (f"You did not pass this project's qualification quiz: {score}the pass mark is {q.quiz_pass_mark:.0%}. "
            "So it has no HITs for you; the organisers can let you try again.")


def screen_out(user: User, project: Project) -> str | None:
    stop = stop_of(user, project)
    return None if stop is None else stop.reason
