"""Who labels what next: leases, submits and their invariants. All concurrency lives here.

The rules (see shared/design.md):
  * every item is done by k distinct annotators, never twice by one
    (unique (item, user) on assignments);
  * an annotator has at most one open lease per project, resumed on reload
    (partial unique index on (user, project) where status = 'leased');
  * a lease expires after the project's lease time and its slot is offered again;
  * the next item is the one with the fewest active assignments (submitted votes plus
    unexpired leases), then the lowest position;
  * a submit after expiry is accepted while the item still has a free slot, i.e. submitted
    votes plus other annotators' unexpired leases are below k, so a lease that is still running is
    never refused; otherwise it is refused with a clear message;
  * submitting twice stores one vote: the first answer is kept and a repeat returns it;
  * how the item is shown (the task type's `presentation`, e.g. which system is "A") is drawn once
    per assignment and kept with it, so a resumed lease shows the same and the answer is read in it;
  * k is an item's current target: `items.target` while dynamic overlap is on and raised it, else the
    project's k;
  * control items (annotator/quality) have no k: any annotator may get one once, at the project's
    control rate and only while ordinary work is left for them; a blocked annotator or one who failed
    the quiz gets nothing (ScreenedOut); a blocked annotator's excluded votes stop counting.

How they hold under concurrency: every write that depends on an item's count locks that item's
row first (PostgreSQL: SELECT ... FOR UPDATE, SKIP LOCKED when picking so that concurrent
annotators spread over items, see picking.py; a submit's UPDATE of the count; SQLite: BEGIN
IMMEDIATE makes the whole transaction exclusive), and then recounts with a fresh statement (for a
new lease the recount is a condition of the INSERT itself, see _insert_if_free). Each transaction
locks at most one item, so there is no lock-order deadlock. Constraint violations from races between one annotator's own requests
are caught and the request retried, which then finds the winner's row.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import Integer, Text, bindparam, func, insert, select, update
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.exc import IntegrityError

from annotator.core.database import write_transaction
from annotator.core.extensions import db
from annotator.core.models import EXPIRED, LEASED, SUBMITTED, Assignment, Label, Project, User, utcnow
from annotator.engine.picking import least_loaded, pick
from annotator.engine.rows import ASSIGNMENTS, ITEM_COLUMNS, ITEMS, ItemRow, Lease, Vote, execute
from annotator.quality import blocking, controls, overlap, qualification
from annotator.quality.controls import ControlOutcome
from annotator.quality.settings import Quality, quality_settings, target_of
from annotator.quality.state import QUIZ, Stop, phase, state_of
from annotator.tasks import settings_with_defaults, task_type

PICK_ATTEMPTS = 50
_CONTROL_DRAW = random.Random()  # its own stream: drawing controls must not shift the presentations' draws
RACE_RETRIES = 3


class AssignmentError(Exception):
    """A request the engine refuses; `status` is the HTTP status the web layer answers with."""

    status = 400


class AssignmentNotFound(AssignmentError):
    status = 404


class NotYourAssignment(AssignmentError):
    status = 403


class LeaseGone(AssignmentError):
    status = 409


class SubmitRaced(AssignmentError):
    """The assignment kept changing under the submit (RACE_RETRIES times): nothing was stored; the client
    may send it again, and a repeat of a vote that did get stored is answered as a repeat."""

    status = 409


class ScreenedOut(AssignmentError):
    """The annotator may not work on this project (quality control); `blocked` tells which way."""

    status = 403

    def __init__(self, message: str, blocked: bool) -> None:
        super().__init__(message)
        self.blocked = blocked


@dataclass(frozen=True)
class SubmitResult:
    assignment: Vote
    created: bool  # False when this repeats an earlier submit: nothing new was stored
    control: ControlOutcome | None = None  # set when the item was a control item
    blocked: str | None = None  # why this submit got the annotator blocked


_A = ASSIGNMENTS.c
_FREE_SLOTS = select(ITEMS.c.done_count, ITEMS.c.target,
                     select(func.count()).where(_A.item_id == bindparam("item_id"), _A.status == LEASED,
                                                _A.expires_at > bindparam("now"),
                                                _A.id != bindparam("exclude")).scalar_subquery()
                     ).where(ITEMS.c.id == bindparam("item_id"))


def _free_slots(item: ItemRow, project: Project, now: datetime, exclude: int | None = None) -> int:
    """The item's target minus submitted votes minus other unexpired leases, all read by one fresh statement.

    Fresh: the caller holds the item's lock, but the row it has may have been read in an older
    snapshot (PostgreSQL's candidate query reads the row outside the sub-select that locked it).
    A control item always has a slot.
    """
    if item.is_control:
        return 1
    done, target, leased = execute(_FREE_SLOTS, {"item_id": item.id, "now": now,
                                                 "exclude": -1 if exclude is None else exclude}).one()
    return target_of(item._replace(target=target), project) - done - leased


_LOCK_ITEM = select(*ITEM_COLUMNS).where(ITEMS.c.id == bindparam("item_id")).with_for_update()


def _lock_item(item_id: int) -> ItemRow:
    """The item's current row, locked until commit (PostgreSQL; SQLite is already exclusive)."""
    return ItemRow._make(execute(_LOCK_ITEM, {"item_id": item_id}).one())


def _pick_item(user: User, project: Project, now: datetime, dynamic: bool) -> ItemRow | None:
    """Lock the least-loaded item this annotator has not had and that still has a free slot (picking.py).

    On PostgreSQL the candidate's lease count was read in the statement's snapshot, which may
    predate a lease committed just before we got the lock, so the free slots are counted again;
    on SQLite the whole transaction is exclusive (BEGIN IMMEDIATE) and the count is already current.
    """
    recount = db.session.get_bind().dialect.name != "sqlite"
    for _ in range(PICK_ATTEMPTS):
        item = least_loaded(project.id, user.id, now, project.k, dynamic)
        if item is None:
            return None
        if not recount or _free_slots(item, project, now) > 0:
            return item
    return None


_OPEN_LEASE = (select(Assignment).where(Assignment.user_id == bindparam("user_id"),
                                        Assignment.project_id == bindparam("project_id"), Assignment.status == LEASED)
               .execution_options(populate_existing=True))


def _open_lease(user: User, project: Project) -> Assignment | None:
    return db.session.scalars(_OPEN_LEASE, {"user_id": user.id, "project_id": project.id}).first()


def _resumed(user: User, project: Project) -> Lease | None:
    """The annotator's open lease, as `next` hands it out again."""
    current = _open_lease(user, project)
    return None if current is None else Lease.of(current)


def _lease(user: User, project: Project, now: datetime) -> Lease | None:
    q = quality_settings(project)  # on the project row: no query
    step = phase(user, project, q) if q.screening else None  # one row read, only with a quiz or blocking
    if isinstance(step, Stop):
        raise ScreenedOut(step.reason, step.blocked)
    control_drawn = q.control_rate > 0 and _CONTROL_DRAW.random() < q.control_rate
    if step != QUIZ:
        found = pick(project.id, user.id, now, project.k, q.dynamic)  # usually the only read
        if found.open_lease_id is None:
            if found.item is None:  # unless a parallel request of this annotator leased the last item
                return _resumed(user, project)
            control = controls.pick(user, project) if control_drawn else None  # only while ordinary work is left
            if control is not None:
                return _insert_if_free(user, project, control, now, q.dynamic, recount=False)  # controls have no k
            leased = _insert_if_free(user, project, found.item, now, q.dynamic)
            if leased is not None:
                return leased
    return _lease_step_by_step(user, project, now, q, step, control_drawn)


def _lease_step_by_step(user: User, project: Project, now: datetime, q: Quality, step: str | None,
                        control_drawn: bool) -> Lease | None:
    """Resume the open lease or lease a new item, one read at a time: the path of a resume, a quiz
    question, or an item whose last slot went to a concurrent lease."""
    current = _open_lease(user, project)
    if current is not None:
        if current.expires_at > now:
            return Lease.of(current)  # a reload resumes the same HIT
        item = _lock_item(current.item_id)
        if _free_slots(item, project, now, exclude=current.id) > 0:
            current.leased_at, current.expires_at = now, now + timedelta(minutes=project.lease_minutes)
            return Lease(current.id, project.id, user.id, item, current.leased_at, current.expires_at,
                         current.presentation)
        current.status = EXPIRED  # its slot went to someone else meanwhile
        db.session.flush()
    item = _quiz_item(user, project, q) if step == QUIZ else None
    if item is None:
        item = _pick_item(user, project, now, q.dynamic)
        if item is not None and control_drawn:
            item = controls.pick(user, project) or item  # a control only while ordinary work is left
    if item is None:
        # A parallel request of this annotator may have leased the last free item while we
        # waited for its lock: then that lease is this annotator's HIT, not "nothing left".
        return _resumed(user, project)
    return _insert_if_free(user, project, item, now, q.dynamic, recount=False)  # counted by _pick_item


def _insert_statement(dynamic: bool, recount: bool):  # type: ignore[no-untyped-def]
    """INSERT the lease ... SELECT its values WHERE the item still has a free slot, RETURNING its id.

    The recount (PostgreSQL) runs in the INSERT's own snapshot, taken after the item's lock, so it
    sees every lease committed before: the check and the write of `_free_slots` + INSERT in one round trip.
    """
    columns = ("project_id", "item_id", "user_id", "status", "leased_at", "expires_at", "presentation")
    values = select(*(bindparam(name, type_=ASSIGNMENTS.c[name].type) for name in columns))
    if recount:
        item_id = bindparam("item_id", type_=Integer)
        target = func.coalesce(ITEMS.c.target, bindparam("k")) if dynamic else bindparam("k")
        done = select(ITEMS.c.done_count).where(ITEMS.c.id == item_id).scalar_subquery()
        needed = select(target).where(ITEMS.c.id == item_id).scalar_subquery()
        leases = (select(func.count()).where(_A.item_id == item_id, _A.status == LEASED,
                                             _A.expires_at > bindparam("now")).scalar_subquery())
        values = values.where(done + leases < needed)
    return insert(ASSIGNMENTS).from_select(columns, values).returning(_A.id)


_INSERT_IF_FREE = {(dynamic, recount): _insert_statement(dynamic, recount)
                   for dynamic in (False, True) for recount in (False, True)}


def _insert_if_free(user: User, project: Project, item: ItemRow, now: datetime, dynamic: bool,
                    recount: bool = True) -> Lease | None:
    """Lease the locked item to the annotator, unless its free slots went to concurrent leases meanwhile."""
    recount = recount and db.session.get_bind().dialect.name != "sqlite"  # SQLite: the transaction is exclusive
    shown = task_type(project.task_type).presentation(item, random)  # e.g. which system is "A"
    expires = now + timedelta(minutes=project.lease_minutes)
    lease_id = execute(_INSERT_IF_FREE[dynamic, recount], {
        "project_id": project.id, "item_id": item.id, "user_id": user.id, "status": LEASED, "leased_at": now,
        "expires_at": expires, "presentation": shown, "now": now, "k": project.k}).scalar()
    return None if lease_id is None else Lease(lease_id, project.id, user.id, item, now, expires, shown)


def _quiz_item(user: User, project: Project, q: Quality) -> ItemRow | None:
    """The next quiz question; when no control item is left, the attempt is judged on what it has."""
    item = controls.pick(user, project)
    if item is None and not qualification.judge(user.id, project, q):
        raise ScreenedOut("You did not pass this project's qualification quiz, so it has no HITs for you. "
                          "The organisers can let you try again.", blocked=False)
    return item


def next_for(user: User, project: Project, now: datetime | None = None) -> Lease | None:
    """The annotator's open lease, else a new lease on the best item; None when nothing is left."""
    for attempt in range(RACE_RETRIES):
        try:
            with write_transaction():
                return _lease(user, project, now or utcnow())
        except IntegrityError:
            if attempt == RACE_RETRIES - 1:  # the same annotator's parallel request won each time
                raise
    return None


@dataclass(frozen=True)
class _Leased:
    """The assignment being answered, as `_SUBMIT_COUNT` read it."""

    id: int
    project_id: int
    user_id: int
    status: str
    leased_at: datetime
    expires_at: datetime
    presentation: dict | None


def _of_assignment(name: str):  # type: ignore[no-untyped-def]
    return select(_A[name]).where(_A.id == bindparam("assignment_id")).scalar_subquery().label(f"assignment_{name}")


# The vote is counted first: this UPDATE takes the item's lock (a parallel submit of the same HIT waits
# here) and returns the item's current row and the assignment, in one statement. When the submit turns
# out to be refused or a repeat, the transaction is rolled back, count and all.
# The assignment's columns come from subqueries, which PostgreSQL evaluates in the statement's snapshot:
# taken before any wait for the lock, they may miss what the lock's holder changed (a parallel submit
# of the same HIT, an owner's `next` renewing or expiring it). So the vote is written only where the
# assignment is still as read (`_write_vote`); otherwise the submit starts over and reads it anew.
_SUBMIT_COUNT = (update(ITEMS).where(ITEMS.c.id == select(_A.item_id).where(_A.id == bindparam("assignment_id"))
                                     .scalar_subquery())
                 .values(done_count=ITEMS.c.done_count + 1)
                 .returning(*ITEM_COLUMNS, *(_of_assignment(name) for name in _Leased.__dataclass_fields__
                                             if name != "id")))
_ITEM_PART = slice(0, len(ITEM_COLUMNS))
_ASSIGNMENT_PART = slice(len(ITEM_COLUMNS), None)


class _Repeat(Exception):
    """A submit of an assignment already submitted: roll back the count, answer with the stored vote."""


class _Changed(Exception):
    """The assignment changed between the read and the write: roll back and submit again."""


def submit(assignment_id: int, user: User, answer: dict, now: datetime | None = None) -> SubmitResult:
    """Store the answer as this assignment's vote, exactly once."""
    now = now or utcnow()
    for attempt in range(RACE_RETRIES):
        try:
            with write_transaction():
                counted = execute(_SUBMIT_COUNT, {"assignment_id": assignment_id}).first()
                if counted is None:
                    raise AssignmentNotFound(f"there is no assignment {assignment_id}")
                leased = _Leased(assignment_id, *counted[_ASSIGNMENT_PART])
                if leased.user_id != user.id:
                    raise NotYourAssignment(f"assignment {assignment_id} belongs to another annotator")
                if leased.status == SUBMITTED:
                    raise _Repeat
                project = db.session.get(Project, leased.project_id)  # the identity map's, if loaded
                vote, control, blocked = _store_vote(leased, ItemRow._make(counted[_ITEM_PART]), project, user,
                                                     answer, now)
            break
        except _Repeat:
            stored = db.session.get(Assignment, assignment_id, populate_existing=True)
            return SubmitResult(Vote.of(stored), created=False)
        except _Changed:
            if attempt == RACE_RETRIES - 1:
                raise SubmitRaced(f"assignment {assignment_id} changed while the answer was being stored, "
                                  f"{RACE_RETRIES} times; nothing was stored: send it again") from None
    q = quality_settings(project)
    if q.blocking and q.blocked_votes == "exclude" and (blocked is not None or blocking.is_blocked(user.id, project)):
        # Also when another request blocked the annotator after this one read their state: that request's
        # exclusion may have listed their votes before this vote was committed (this read comes after).
        blocking.exclude_votes(user.id, project)
    return SubmitResult(vote, True, control, blocked)


def _store_vote(assignment: _Leased, item: ItemRow, project: Project, user: User, answer: dict,
                now: datetime) -> tuple[Vote, ControlOutcome | None, str | None]:
    """Check the answer and store it with its labels; the item's count is already raised (and locked)."""
    task = task_type(project.task_type)
    settings = settings_with_defaults(task, project.settings)
    labels = task.labels(item, answer, settings, assignment.presentation)  # AnswerError if invalid
    answer = task.normalised_answer(item, answer, settings, assignment.presentation)  # AnswerError if refused
    # This vote is in done_count already, so the item had a slot for it when one is still "free" at -1 ...
    if (assignment.status == EXPIRED or assignment.expires_at <= now) and \
            _free_slots(item, project, now, exclude=assignment.id) < 0:  # ... never refused for a control item
        raise LeaseGone("Your time for this HIT ran out and other annotators have completed it "
                        "meanwhile, so this answer was not stored. Please take the next HIT.")
    vote = _write_vote(assignment, item, project, user, answer, now, labels)
    return (vote, *_quality_after_submit(assignment, item, project, answer, item.done_count, now))


_LABEL_COLUMNS = ("assignment_id", "project_id", "item_id", "user_id", "unit", "field", "value")


def _mark_statement():  # type: ignore[no-untyped-def]
    """The assignment marked submitted with its answer, only where it is still as `_SUBMIT_COUNT` read it."""
    return (update(ASSIGNMENTS)
            .where(_A.id == bindparam("vote_assignment_id"), _A.status == bindparam("read_status"),
                   _A.leased_at == bindparam("read_leased_at"))
            .values(status=bindparam("vote_status"), answer=bindparam("vote_answer", type_=_A.answer.type),
                    submitted_at=bindparam("vote_submitted_at", type_=_A.submitted_at.type),
                    seconds_spent=bindparam("vote_seconds_spent", type_=_A.seconds_spent.type)))


def _vote_statement_postgresql():  # type: ignore[no-untyped-def]
    """One statement for PostgreSQL: the assignment marked (a data-modifying CTE) and, only if it was, its
    label rows inserted from three arrays; it answers how many assignments were marked (1, or 0 when the
    assignment changed). Built once: its shape does not depend on the number of labels, so it is
    compiled once and prepared by the driver (a multi-row VALUES was compiled on every vote)."""
    vote = _mark_statement().returning(_A.id).cte("vote")
    texts = ARRAY(Text)
    rows = select(bindparam("vote_assignment_id", type_=Integer), bindparam("vote_project_id", type_=Integer),
                  bindparam("vote_item_id", type_=Integer), bindparam("vote_user_id", type_=Integer),
                  func.unnest(bindparam("units", type_=texts)), func.unnest(bindparam("fields", type_=texts)),
                  func.unnest(bindparam("values", type_=texts))).select_from(vote)
    labels = insert(Label).from_select(_LABEL_COLUMNS, rows).cte("labels")
    return select(func.count()).select_from(vote).add_cte(labels)


_VOTE_POSTGRESQL = _vote_statement_postgresql()
_MARK = _mark_statement()


def _write_vote(assignment: _Leased, item: ItemRow, project: Project, user: User, answer: dict, now: datetime,
                labels: list) -> Vote:
    """Mark the assignment submitted with its answer and insert its label rows, in Core (no ORM flush).

    On PostgreSQL in one statement (`_VOTE_POSTGRESQL`), elsewhere an UPDATE and an executemany INSERT.
    Written only where the assignment's status and lease time are still as read (else `_Changed`).
    Returns what was stored, so the response needs no query.
    """
    stored = {"status": SUBMITTED, "answer": answer, "submitted_at": now,
              "seconds_spent": max((now - assignment.leased_at).total_seconds(), 0.0)}
    as_read = {"read_status": assignment.status, "read_leased_at": assignment.leased_at}
    connection = db.session.connection()
    if connection.dialect.name == "postgresql":
        marked = execute(_VOTE_POSTGRESQL, {
            **{f"vote_{name}": value for name, value in stored.items()}, **as_read,
            "vote_assignment_id": assignment.id, "vote_project_id": project.id, "vote_item_id": item.id,
            "vote_user_id": user.id, "units": [label.unit for label in labels],
            "fields": [label.field for label in labels], "values": [label.value for label in labels]}).scalar()
    else:
        marked = execute(_MARK, {**{f"vote_{name}": value for name, value in stored.items()}, **as_read,
                                 "vote_assignment_id": assignment.id}).rowcount
        if marked == 1 and labels:
            connection.execute(insert(Label), [
                dict(zip(_LABEL_COLUMNS, (assignment.id, project.id, item.id, user.id, label.unit, label.field,
                                          label.value))) for label in labels])
    if marked != 1:
        raise _Changed  # the read was older than the assignment's last change: start over
    return Vote(assignment.id, item.id, user.id, **stored)


def _quality_after_submit(assignment: _Leased, item: ItemRow, project: Project, answer: dict, votes_now: int,
                          now: datetime) -> tuple[ControlOutcome | None, str | None]:
    """Inside the submit, under the item's lock: score a control answer (and the quiz), raise the item's
    target when dynamic overlap is unsure, block by the project's rules. Nothing at all when all is off."""
    q = quality_settings(project)
    state = state_of(assignment.user_id, project.id) if q.blocking else None  # read once: refusal and evaluate
    refused = blocking.refusal(state)  # block() ended a blocked annotator's lease: a late submit of it does not count
    if refused is not None:
        raise ScreenedOut(refused, blocked=True)
    control = None
    if item.is_control:
        control = controls.record(assignment, item, project, answer, q)
        if control.quiz_attempt is not None:
            qualification.after_answer(assignment.user_id, project, control.quiz_attempt, q)
    elif q.dynamic:
        overlap.update_target(item, project, q, votes_now)
    blocked = None
    if q.blocking and (item.is_control or q.block_min_median_seconds > 0):
        blocked = blocking.evaluate(assignment.user_id, project, q, item.is_control, now, state)
    return control, blocked
