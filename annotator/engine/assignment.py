"""Who labels what next: leases, submits and their invariants. All concurrency lives here.

The rules (see shared/design.md):
  * every item is done by k distinct annotators, never twice by one
    (unique (item, user) on assignments);
  * an annotator has at most one open lease per project, resumed on reload
    (partial unique index on (user, project) where status = 'leased');
  * a lease expires after the project's lease time and its slot is offered again;
  * the next item is the one with the fewest active assignments (submitted votes plus
    unexpired leases), then the lowest position; with a stopping rule, the least certain one under the
    rule (routing.py), ties broken in an order of the annotator's own;
  * a submit after expiry is accepted while the item still has a free slot, i.e. submitted
    votes plus other annotators' unexpired leases are below k, so a lease that is still running is
    never refused; otherwise it is refused with a clear message. Expiry is judged when the submit holds
    the item's lock, not when its request began: a `next` that held the lock meanwhile may have given
    the slot away;
  * submitting twice stores one vote: the first answer is kept and a repeat returns it;
  * how the item is shown (the task type's `presentation`, e.g. which system is "A") is drawn once
    per assignment and kept with it, so a resumed lease shows the same and the answer is read in it;
  * k is an item's current target: `items.target` while dynamic overlap is on and raised it, or a stopping
    rule lowered it to the votes of an item it stopped (stopping.py: its open leases are released then, and
    their late submits refused), else the project's k;
  * control items (annotator/quality) have no k: any annotator may get one once, at the project's
    control rate and only while ordinary work is left for them; a blocked annotator or one who failed
    the quiz gets nothing (ScreenedOut); a blocked annotator's excluded votes stop counting.

How they hold under concurrency: every write that depends on an item's count locks that item's
row first (PostgreSQL: SELECT ... FOR UPDATE, SKIP LOCKED when picking so that concurrent
annotators spread over items, see picking.py; a submit's UPDATE of the count; SQLite: BEGIN
IMMEDIATE makes the whole transaction exclusive), and then recounts with a fresh statement (for a
new lease the recount is a condition of the INSERT itself, see _insert_if_free). Each transaction
locks at most one item, so there is no lock-order deadlock. Constraint violations from races between one
annotator's own requests are caught and the request retried, which then finds the winner's row.

One path for each request, in the order of the rules:
  * `next` (_lease): quality screening (blocked, failed quiz) -> the open lease, resumed (renewed when it
    expired and its slot is still free, else marked expired) -> what to lease: a quiz question, else the
    least-loaded item (picking.py) or, at the control rate, a control item instead -> INSERT if the item
    still has a free slot; when a concurrent lease took it meanwhile, pick again.
  * `submit`: count the vote (which locks the item and reads the assignment) -> refuse, or answer a
    repeat -> check the answer -> UPDATE the assignment where it is still as read (status, lease time and
    end) -> INSERT its labels
    (one multi-row INSERT) -> quality control after the vote. The same statements on both engines.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Protocol

from sqlalchemy import Integer, Row, Text, bindparam, func, insert, select, update
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.exc import IntegrityError
from sqlalchemy.sql.dml import ReturningInsert
from sqlalchemy.sql.elements import Label as LabelledColumn

from annotator.core.database import write_transaction
from annotator.core.extensions import db
from annotator.core.models import EXPIRED, LEASED, SUBMITTED, Assignment, Label, Project, User, utcnow
from annotator.core.quality_settings import quality_settings, stops_early, target_of
from annotator.core.statements import ASSIGNMENTS, ITEM_COLUMNS, ITEMS, execute
from annotator.engine import routing, stopping
from annotator.engine.picking import IS_LEASED, pick
from annotator.quality import blocking, controls, overlap, qualification
from annotator.quality.controls import ControlOutcome
from annotator.quality.state import QUIZ, Stop, phase, quiz_failed, state_of
from annotator.tasks import project_task
from annotator.tasks.base import HitItem

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


class EngineItem(HitItem, Protocol):
    """What the engine reads of an item: an `Item` entity, or a row of core/statements.ITEM_COLUMNS."""

    @property
    def id(self) -> int: ...
    @property
    def done_count(self) -> int: ...
    @property
    def is_control(self) -> bool: ...
    @property
    def target(self) -> int | None: ...


class StoredVote(Protocol):
    """A submitted assignment as `submit` reports it: the `Vote` it stored, or the `Assignment` of a repeat."""

    @property
    def id(self) -> int: ...
    @property
    def item_id(self) -> int: ...
    @property
    def user_id(self) -> int: ...
    @property
    def answer(self) -> dict[str, Any] | None: ...
    @property
    def submitted_at(self) -> datetime | None: ...
    @property
    def presentation(self) -> dict[str, Any] | None: ...


@dataclass(frozen=True)
class Vote:
    """A vote as this submit stored it (a `StoredVote`): what it wrote, with the ids its count read."""

    id: int
    project_id: int
    item_id: int
    user_id: int
    answer: dict[str, Any]
    submitted_at: datetime
    presentation: dict[str, Any] | None
    seconds_spent: float
    status: str = SUBMITTED


@dataclass(frozen=True)
class Lease:
    """An open lease as `next` hands it out: the assignment's id and times, and the item as shown.

    Not an entity: a new lease is written by one INSERT ... RETURNING its id (an ORM flush would cost
    more than the rest of `next`), so there is no `Assignment` object to hand out.
    """

    id: int
    project_id: int
    user_id: int
    item: EngineItem
    leased_at: datetime
    expires_at: datetime
    presentation: dict[str, Any] | None

    @property
    def item_id(self) -> int:
        return self.item.id

    @classmethod
    def of(cls, assignment: Assignment) -> Lease:
        """The lease of a loaded Assignment entity (its item is loaded through the relationship)."""
        return cls(assignment.id, assignment.project_id, assignment.user_id, assignment.item,
                   assignment.leased_at, assignment.expires_at, assignment.presentation)


@dataclass(frozen=True)
class SubmitResult:
    assignment: StoredVote
    created: bool  # False when this repeats an earlier submit: nothing new was stored
    control: ControlOutcome | None = None  # set when the item was a control item
    blocked: str | None = None  # why this submit got the annotator blocked


_A = ASSIGNMENTS.c
_FREE_SLOTS = select(ITEMS.c.done_count, ITEMS.c.target,
                     select(func.count()).where(_A.item_id == bindparam("item_id"), IS_LEASED,
                                                _A.expires_at > bindparam("now"),
                                                _A.id != bindparam("exclude")).scalar_subquery().label("leased")
                     ).where(ITEMS.c.id == bindparam("item_id"))


def _free_slots(item: EngineItem, project: Project, now: datetime, exclude: int | None = None) -> int:
    """The item's target minus submitted votes minus other unexpired leases, all read by one fresh statement.

    Fresh: the caller holds the item's lock, but the row it has may have been read in an older
    snapshot (PostgreSQL's pick reads the row outside the sub-select that locked it).
    A control item always has a slot.
    """
    if item.is_control:
        return 1
    now_row = execute(_FREE_SLOTS, {"item_id": item.id, "now": now,
                                    "exclude": -1 if exclude is None else exclude}).one()
    return target_of(now_row, project) - int(now_row.done_count) - int(now_row.leased)


_LOCK_ITEM = select(*ITEM_COLUMNS).where(ITEMS.c.id == bindparam("item_id")).with_for_update()


def _lock_item(item_id: int) -> Row[Any]:
    """The item's current row, locked until commit (PostgreSQL; SQLite is already exclusive)."""
    return execute(_LOCK_ITEM, {"item_id": item_id}).one()


_OPEN_LEASE = (select(Assignment).where(Assignment.user_id == bindparam("user_id"),
                                        Assignment.project_id == bindparam("project_id"), IS_LEASED)
               .execution_options(populate_existing=True))


def _open_lease(user: User, project: Project) -> Assignment | None:
    return db.session.scalars(_OPEN_LEASE, {"user_id": user.id, "project_id": project.id}).first()


def _resume(user: User, project: Project, now: datetime) -> Lease | None:
    """The annotator's open lease, handed out again (a reload resumes the same HIT); renewed when it
    expired while its item still has a free slot. None when it expired and its slot went to someone
    else meanwhile (then it is marked expired), or when it is no longer open."""
    current = _open_lease(user, project)
    if current is None:  # a parallel request of this annotator submitted it meanwhile
        return None
    if current.expires_at > now:
        return Lease.of(current)
    item = _lock_item(current.item_id)
    if _free_slots(item, project, now, exclude=current.id) > 0:
        current.leased_at, current.expires_at = now, now + timedelta(minutes=project.lease_minutes)
        return Lease(current.id, project.id, user.id, item, current.leased_at, current.expires_at,
                     current.presentation)
    current.status = EXPIRED
    db.session.flush()
    return None


def _lease(user: User, project: Project, now: datetime) -> Lease | None:
    """Screening, then the open lease, then a new one (the module docstring's order)."""
    q = quality_settings(project)  # on the project row: no query
    step = phase(user, project, q) if q.screening else None  # one row read, only with a quiz or blocking
    if isinstance(step, Stop):
        raise ScreenedOut(step.reason, step.blocked)
    control_drawn = q.control_rate > 0 and _CONTROL_DRAW.random() < q.control_rate  # once per `next`
    routed = stops_early(project)  # a stopping rule: the least certain item next (routing.py)
    targets = q.dynamic or routed  # items' own targets count (a stopped item's is its votes)
    for _ in range(PICK_ATTEMPTS):
        # One statement: the open lease's id, else (not in the quiz) the least-loaded or least certain item, locked.
        found = (routing.pick(project.id, user.id, now, project.k) if routed and step != QUIZ
                 else pick(project.id, user.id, now, project.k, targets, step != QUIZ))
        if found.open_lease_id is not None:
            resumed = _resume(user, project, now)
            if resumed is not None:
                return resumed
            continue  # it is closed now: pick again
        if step == QUIZ:
            item = _quiz_item(user, project)
            if item is None:  # no question left and the quiz is passed (else ScreenedOut): ordinary work
                step = None
                continue
        elif found.item is None:
            # A parallel request of this annotator may have leased the last free item while we
            # waited for its lock: then that lease is this annotator's HIT, not "nothing left".
            return _resume(user, project, now)
        else:
            item = found.item
            if control_drawn:
                item = controls.pick(user, project) or item  # a control only while ordinary work is left
        leased = _insert_if_free(user, project, item, now, targets)
        if leased is not None:
            return leased
        # The item's last slot went to a lease committed after the pick's snapshot: pick again, with a
        # fresh snapshot that counts it.
    return None


def _insert_statement(dynamic: bool, recount: bool) -> ReturningInsert[tuple[int]]:
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
        leases = (select(func.count()).where(_A.item_id == item_id, IS_LEASED,
                                             _A.expires_at > bindparam("now")).scalar_subquery())
        values = values.where(done + leases < needed)
    return insert(ASSIGNMENTS).from_select(columns, values).returning(_A.id)


_INSERT_IF_FREE = {(dynamic, recount): _insert_statement(dynamic, recount)
                   for dynamic in (False, True) for recount in (False, True)}


def presentation_rng(project: str, item: str, annotator: str) -> random.Random:
    """The generator of how one item is shown to one annotator (e.g. which system is "A").

    Seeded by the project's slug, the item's id in its file and the annotator's name (a text seed, hashed by
    SHA-512, so the same in every process and run, and in another database the project was moved or restored to):
    a lease given again to the same annotator shows the item the same way, a test or an audit can say which side
    an annotator saw, and across annotators the draws are as balanced as independent coin flips.
    """
    return random.Random(f"presentation:{project}:{item}:{annotator}")


def _insert_if_free(user: User, project: Project, item: EngineItem, now: datetime, dynamic: bool) -> Lease | None:
    """Lease the locked item to the annotator, unless its free slots went to concurrent leases meanwhile.

    Recounted on PostgreSQL only, and not for a control item (no k); SQLite's transaction is exclusive.
    """
    recount = not item.is_control and db.session.get_bind().dialect.name != "sqlite"
    task = project_task(project)
    shown = (task.presentation(item, presentation_rng(project.slug, item.external_id, user.username))
             if task.draws_presentation
             else None)
    expires = now + timedelta(minutes=project.lease_minutes)
    lease_id = execute(_INSERT_IF_FREE[dynamic, recount], {
        "project_id": project.id, "item_id": item.id, "user_id": user.id, "status": LEASED, "leased_at": now,
        "expires_at": expires, "presentation": shown, "now": now, "k": project.k}).scalar()
    return None if lease_id is None else Lease(lease_id, project.id, user.id, item, now, expires, shown)


def _quiz_item(user: User, project: Project) -> Row[Any] | None:
    """The next quiz question; when no control item is left, the attempt is judged on what it has."""
    item = controls.pick(user, project)
    if item is None and not qualification.judge(user.id, project, quality_settings(project)):
        raise ScreenedOut(quiz_failed(user.id, project.id, quality_settings(project)), blocked=False)
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


def _of_assignment(name: str) -> LabelledColumn[Any]:
    return select(_A[name]).where(_A.id == bindparam("assignment_id")).scalar_subquery().label(f"assignment_{name}")


# The vote is counted first: this UPDATE takes the item's lock (a parallel submit of the same HIT waits
# here) and returns the item's current row and the assignment (its columns named assignment_*), in one
# statement. When the submit turns out to be refused or a repeat, the transaction is rolled back, count
# and all. The assignment's columns come from subqueries, which PostgreSQL evaluates in the statement's
# snapshot: taken before any wait for the lock, they may miss what the lock's holder changed (a parallel
# submit of the same HIT, an owner's `next` renewing or expiring it). So the vote is written only where
# the assignment is still as read (`_MARK`); otherwise the submit starts over and reads it anew.
_SUBMIT_COUNT = (update(ITEMS).where(ITEMS.c.id == select(_A.item_id).where(_A.id == bindparam("assignment_id"))
                                     .scalar_subquery())
                 .values(done_count=ITEMS.c.done_count + 1)
                 .returning(*ITEM_COLUMNS, *(_of_assignment(name) for name in (
                     "project_id", "user_id", "status", "leased_at", "expires_at", "presentation"))))


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
                if counted.assignment_user_id != user.id:
                    raise NotYourAssignment(f"assignment {assignment_id} belongs to another annotator")
                if counted.assignment_status == SUBMITTED:
                    raise _Repeat
                project = db.session.get_one(Project, counted.assignment_project_id)  # the identity map's, if loaded
                # Whether the lease ran out is judged at a time read now that the item is held, not when the
                # request began: while this submit waited for the item's lock, the holder may have leased the slot
                # the lease's end freed (a `next` counts only unexpired leases), and both votes would count.
                held = max(now, utcnow())
                vote, control, blocked = _store_vote(assignment_id, counted, project, user, answer, now, held)
            break
        except _Repeat:
            stored = db.session.get_one(Assignment, assignment_id, populate_existing=True)
            return SubmitResult(stored, created=False)
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


def _store_vote(assignment_id: int, counted: Row[Any], project: Project, user: User, answer: dict,
                now: datetime, held: datetime) -> tuple[Vote, ControlOutcome | None, str | None]:
    """Check the answer and store it with its labels; the item's count is already raised (and locked).

    `counted` is `_SUBMIT_COUNT`'s row: the item's columns, and the assignment's as assignment_*. `now` is the
    vote's time; `held`, read once the item was locked, the time its lease is judged at.
    """
    item = counted
    task = project_task(project)
    settings = task.settings_of(project)
    presentation = counted.assignment_presentation
    answer, labels = task.checked(item, answer, settings, presentation)  # AnswerError if invalid or refused
    # This vote is in done_count already, so the item had a slot for it when one is still "free" at -1 ...
    if (counted.assignment_status == EXPIRED or counted.assignment_expires_at <= held) and \
            _free_slots(item, project, held, exclude=assignment_id) < 0:  # ... never refused for a control item
        if item.target is not None and item.target < project.k and stops_early(project):
            raise LeaseGone(stopping.STOPPED_MESSAGE)  # the item stopped early and released this lease
        raise LeaseGone("Your time for this HIT ran out and other annotators have completed it "
                        "meanwhile, so this answer was not stored. Please take the next HIT.")
    vote = _write_vote(assignment_id, counted, answer, now, labels)
    if not item.is_control and stops_early(project):  # the project's stopping rule, on the votes now stored
        stopping.after_vote(item.id, project, item.done_count, now, item.target, item.payload,
                            [(label.field, label.unit, label.value) for label in labels])
    return (vote, *_quality_after_submit(vote, item, project, answer, item.done_count, now))


# The assignment marked submitted with its answer, only where it is still as `_SUBMIT_COUNT` read it. It
# returns the id alone, to tell whether it matched: everything else of the vote is what this submit wrote or
# `_SUBMIT_COUNT` read, so the response needs no column read back.
_MARK = (update(ASSIGNMENTS)
         .where(_A.id == bindparam("assignment_id"), _A.status == bindparam("read_status"),
                _A.leased_at == bindparam("read_leased_at"), _A.expires_at == bindparam("read_expires_at"))
         .values(status=SUBMITTED, answer=bindparam("vote_answer", type_=_A.answer.type),
                 submitted_at=bindparam("vote_submitted_at", type_=_A.submitted_at.type),
                 seconds_spent=bindparam("vote_seconds_spent", type_=_A.seconds_spent.type))
         .returning(_A.id))
# With RETURNING, SQLAlchemy sends the label rows as one multi-row INSERT (insertmanyvalues) on both engines,
# where psycopg would otherwise run one INSERT per label in a pipeline.
_LABELS = insert(Label.__table__).returning(Label.__table__.c.id)
# PostgreSQL: the same rows from three arrays (unnest) and the vote's four ids, so that the statement has seven
# parameters whatever the number of labels. As one VALUES list it had seven per label, and psycopg converts the
# placeholders of a statement of more than 50 parameters in Python on every run, uncached: 2.4 us a parameter, a
# third of a millisecond for a vote of 20 words' labels, 17 ms for 1,000
# (bench/results/2026-11-29-labels-from-arrays.md).
_ROWS = (func.unnest(bindparam("units", type_=ARRAY(Text)), bindparam("fields", type_=ARRAY(Text)),
                     bindparam("values", type_=ARRAY(Text)))
         .table_valued("unit", "field", "value").render_derived("given"))
_LABELS_FROM_ARRAYS = insert(Label.__table__).from_select(
    ["assignment_id", "project_id", "item_id", "user_id", "unit", "field", "value"],
    select(bindparam("assignment_id", type_=Integer), bindparam("project_id", type_=Integer),
           bindparam("item_id", type_=Integer), bindparam("user_id", type_=Integer),
           _ROWS.c.unit, _ROWS.c.field, _ROWS.c.value))


def _write_vote(assignment_id: int, counted: Row[Any], answer: dict, now: datetime, labels: list) -> Vote:
    """Mark the assignment submitted with its answer and insert its label rows, in Core (no ORM flush):
    an UPDATE, written only where the assignment's status, lease time and end are still as read (else
    `_Changed`), then one INSERT of all the labels."""
    seconds = max((now - counted.assignment_leased_at).total_seconds(), 0.0)
    marked = execute(_MARK, {
        "assignment_id": assignment_id, "read_status": counted.assignment_status,
        "read_leased_at": counted.assignment_leased_at, "read_expires_at": counted.assignment_expires_at,
        "vote_answer": answer, "vote_submitted_at": now,
        "vote_seconds_spent": seconds}).first()
    if marked is None:
        raise _Changed  # the read was older than the assignment's last change: start over
    vote = Vote(assignment_id, counted.assignment_project_id, counted.id, counted.assignment_user_id, answer, now,
                counted.assignment_presentation, seconds)
    if labels and db.engine.dialect.name == "postgresql":
        execute(_LABELS_FROM_ARRAYS, {"assignment_id": vote.id, "project_id": vote.project_id, "item_id": vote.item_id,
                                      "user_id": vote.user_id, "units": [label.unit for label in labels],
                                      "fields": [label.field for label in labels],
                                      "values": [label.value for label in labels]})
    elif labels:
        execute(_LABELS, [{"assignment_id": vote.id, "project_id": vote.project_id, "item_id": vote.item_id,
                           "user_id": vote.user_id, "unit": label.unit, "field": label.field, "value": label.value}
                          for label in labels])
    return vote


def _quality_after_submit(assignment: StoredVote, item: EngineItem, project: Project, answer: dict, votes_now: int,
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
    elif q.dynamic and not stops_early(project):  # a stopping rule decides the items' votes itself
        overlap.update_target(item, project, q, votes_now)
    blocked = None
    if q.blocking and (item.is_control or q.block_min_median_seconds > 0 or q.blocking_on_votes):
        blocked = blocking.evaluate(assignment.user_id, project, q, item.is_control, now, state)
    return control, blocked
