"""Erasing a person: what identifies them goes, their work stays under a pseudonym unless the admin deletes it.

Who: an account by name, or a crowd worker by Prolific or MTurk worker id (their account "<platform>:<id>").
Erasure renames the account to a random pseudonym ("erased-<hex>"), removes its password hash and API tokens,
disables it and ends its sessions; clears the worker id of its CrowdWorker row (a returning worker gets a new
account: people/crowd_entry.py, so the erasure stays done) and scrubs its study sessions'
ids (session_key, details), keeping when they started and ended so the HIT counts stay; renames it where it
acted in the audit trail; and deletes the failed logins typed with its name (people/login_counters.py).

The order: first, in one transaction, the account is locked out under its name (disabled, sessions ended, API
tokens deleted, open HITs released), so no new vote can come in. With `delete_votes` the person's assignments
go next, with their label rows and control answers, quiz results and quality states. Like an exclusion
(quality/blocking.py), each vote is deleted in its own transaction under its item's lock (the engine's rule: a
transaction locks one item) and a counted vote decrements done_count, so an item back under k is offered to
other annotators; a vote already excluded was decremented then, and is not again. The deletion repeats until
no assignment of the person remains (a submit already under way when the lock-out committed lands late).
Last, the identity is scrubbed: if the run stops before, the account is still found by its name or worker id
and erasing it again finishes the job. An account already erased is refused (NothingToErase). The gold and
agreement this changes are shown first (`preview`), computed by the same functions as the admin pages, on
the votes that would remain.
"""
from __future__ import annotations

import secrets
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from sqlalchemy import Select, delete, func, select, update

from annotator.analysis import prior_counts
from annotator.analysis.results import labels_frame, project_agreement
from annotator.core.audit import record
from annotator.core.database import write_transaction
from annotator.core.extensions import db
from annotator.core.models import (
    CROWD_SEPARATOR,
    EXPIRED,
    LEASED,
    SUBMITTED,
    AnnotatorState,
    ApiToken,
    Assignment,
    AuditEvent,
    ControlAnswer,
    CrowdSession,
    CrowdWorker,
    Item,
    Label,
    Project,
    QuizResult,
    User,
)
from annotator.figures.kept import results_changed
from annotator.figures.kept_gold import gold_frame
from annotator.people.accounts import ERASED_PREFIX
from annotator.people.erasure_on_disk import ALL_TABLES, IDENTITY_TABLES, OnDisk, clear_from_disk
from annotator.people.erasure_preview import labels_without
from annotator.people.login_counters import clear_login_counters

if TYPE_CHECKING:
    import pandas as pd
    from sqlalchemy.engine import CursorResult

PSEUDONYM_PREFIX = ERASED_PREFIX  # no account is created with such a name (accounts.py)


Agreement = list[tuple[str, str, str, str, str]]  # field; Fleiss' kappa before, after; Krippendorff's alpha too


class ErasureError(ValueError):
    """A person who cannot be erased (unknown, an admin); the message says why."""


class NothingToErase(ErasureError):
    """No such person, or an account erased already: erasing again would do nothing."""


@dataclass(frozen=True)
class GoldChange:
    item: str
    before: str  # the item's gold rows as text ("" when it had none)
    after: str


@dataclass(frozen=True)
class ProjectChange:
    """What deleting the person's votes would change in one project."""

    slug: str
    name: str
    votes: int                      # the person's submitted votes (excluded ones included)
    gold: list[GoldChange]          # the items whose gold would change
    agreement: Agreement


@dataclass(frozen=True)
class Preview:
    user_id: int
    username: str
    projects: list[ProjectChange]
    crowd_sessions: int
    tokens: int

    @property
    def votes(self) -> int:
        return sum(p.votes for p in self.projects)


@dataclass(frozen=True)
class Erased:
    pseudonym: str
    votes_kept: int
    votes_deleted: int
    projects: list[str]
    crowd_sessions: int
    tokens: int
    login_counters_cleared: bool
    on_disk: OnDisk  # the old row versions out of the database's files (people/erasure_on_disk.py)


def find_person(account: str | None = None, prolific: str | None = None, mturk: str | None = None) -> User:
    """The account to erase, named by exactly one of: its user name, a Prolific ID, an MTurk worker ID."""
    given = [(kind, value.strip()) for kind, value in (("account", account), ("prolific", prolific),
                                                       ("mturk", mturk)) if value and value.strip()]
    if len(given) != 1:
        raise ErasureError("name exactly one person: an account, a Prolific ID or an MTurk worker ID")
    kind, value = given[0]
    if kind == "account":
        user = _one_user(select(User).where(User.username == value))
    else:
        user = _one_user(select(User).join(CrowdWorker, CrowdWorker.user_id == User.id)
                         .where(CrowdWorker.platform == kind, CrowdWorker.worker_id == value))
        if user is None:  # the worker row gone but not the name: an erasure that stopped halfway
            user = _one_user(select(User).where(User.username == f"{kind}{CROWD_SEPARATOR}{value}"))
    if user is None:
        raise NothingToErase(f"there is no such {'account' if kind == 'account' else kind + ' worker'}")
    if user.is_admin:
        raise ErasureError("this is an admin account: make it an annotator account first")
    if is_erased(user):
        raise NothingToErase(f"this account is already erased (it is {user.username}): nothing to do")
    return user


def _one_user(query: Select[User]) -> User | None:
    found: User | None = db.session.scalar(query)
    return found


def _vote_counts(user_id: int) -> dict[int, int]:
    """Project id -> the person's submitted votes there (excluded ones included)."""
    return dict(db.session.execute(select(Assignment.project_id, func.count()).where(
        Assignment.user_id == user_id, Assignment.status == SUBMITTED).group_by(Assignment.project_id)).all())


def preview(user: User, delete_votes: bool = True) -> Preview:
    """What erasing `user` would change: per project their votes and, when they are to be deleted, the items whose
    gold would change and the agreement before and after (votes kept under a pseudonym change neither)."""
    changes = []
    for project_id, votes in sorted(_vote_counts(user.id).items()):
        project = db.session.get_one(Project, project_id)
        if not delete_votes:
            changes.append(ProjectChange(project.slug, project.name, votes, [], []))
            continue
        before = labels_frame(project)
        after = labels_without(project, user.id)
        changes.append(ProjectChange(project.slug, project.name, votes, gold_changes(project, before, after),
                                     agreement_change(project, before, after)))
    sessions = db.session.scalar(select(func.count()).select_from(CrowdSession).where(CrowdSession.user_id == user.id))
    tokens = db.session.scalar(select(func.count()).select_from(ApiToken).where(ApiToken.user_id == user.id))
    return Preview(user.id, user.username, changes, int(sessions or 0), int(tokens or 0))


def gold_by_item(frame: pd.DataFrame) -> dict[str, str]:
    """Item -> its gold rows as one text (column=value, rows sorted): gold frames differ by task type, this does not."""
    if frame.empty or "item" not in frame.columns:
        return {}
    rest = [c for c in frame.columns if c != "item"]
    return {str(item): "; ".join(sorted(" ".join(f"{c}={row[c]}" for c in rest) for _, row in rows.iterrows()))
            for item, rows in frame.groupby("item", sort=False)}


def gold_changes(project: Project, before: pd.DataFrame, after: pd.DataFrame) -> list[GoldChange]:
    """The items whose gold differs between the two label frames (gaining or losing gold included)."""
    old, new = gold_by_item(gold_frame(project, before)), gold_by_item(gold_frame(project, after))
    return [GoldChange(item, old.get(item, ""), new.get(item, ""))
            for item in sorted(old.keys() | new.keys()) if old.get(item, "") != new.get(item, "")]


def agreement_change(project: Project, before: pd.DataFrame, after: pd.DataFrame) -> Agreement:
    old = {a.field: a for a in project_agreement(project, before)}
    new = {a.field: a for a in project_agreement(project, after)}
    return [(name, _kappa(old.get(name), "fleiss_kappa"), _kappa(new.get(name), "fleiss_kappa"),
             _kappa(old.get(name), "krippendorff_alpha"), _kappa(new.get(name), "krippendorff_alpha"))
            for name in sorted(old.keys() | new.keys())]


def _kappa(agreement: Any, name: str) -> str:
    return getattr(agreement, name).text() if agreement is not None else "–"


def is_erased(user: User) -> bool:
    """Whether the account was erased already: a pseudonym, no password, disabled, no worker id."""
    return (user.username.startswith(PSEUDONYM_PREFIX) and user.password_hash is None and not user.active
            and db.session.scalar(select(func.count()).select_from(CrowdWorker)
                                  .where(CrowdWorker.user_id == user.id, CrowdWorker.worker_id.is_not(None))) == 0)


def erase(user: User, delete_votes: bool = False) -> Erased:
    """Erase the person (see the module's docstring); returns what was done, without their identity.

    First, in one transaction, the account is locked out (disabled, its sessions ended, its tokens deleted, its
    open HITs released) under its name, so no new vote comes in and a run that stops is resumed by that name;
    then its votes are deleted, if asked, until none remains; then its identity is scrubbed."""
    if is_erased(user):
        raise NothingToErase(f"this account is already erased (it is {user.username})")
    user_id, former = user.id, user.username
    counts = _vote_counts(user_id)
    db.session.commit()
    with write_transaction():
        tokens = lock_out(user_id)
    deleted = delete_all_votes(user_id) if delete_votes else 0
    with write_transaction():
        kept = sum(_vote_counts(user_id).values())
        pseudonym, sessions, more_tokens = scrub(user_id, counts, locked_out=True)
        tokens += more_tokens
        slugs = sorted(db.session.scalars(select(Project.slug).where(Project.id.in_(list(counts)))))
        detail = {"user_id": user_id, "pseudonym": pseudonym, "votes_kept": kept, "votes_deleted": deleted,
                  "projects": slugs, "crowd_sessions": sessions, "tokens": tokens}
        event = record("erase", detail={**detail, "login_counters_cleared": False})
    cleared = clear_login_counters(former)  # after the commit: outside the write transaction, never if rolled back
    if cleared:
        with write_transaction():
            db.session.execute(update(AuditEvent).where(AuditEvent.id == event.id)
                               .values(detail={**detail, "login_counters_cleared": True}))
    on_disk = clear_from_disk(ALL_TABLES if delete_votes else IDENTITY_TABLES)  # after every commit: VACUUM needs it
    return Erased(pseudonym, kept, deleted, slugs, sessions, tokens, cleared, on_disk)


def lock_out(user_id: int) -> int:
    """In the caller's transaction: the account can no longer act (disabled, sessions ended, API tokens deleted,
    its open HITs released), its name kept; returns the tokens deleted."""
    user = db.session.get_one(User, user_id, populate_existing=True)
    user.active, user.must_change_password = False, False
    user.end_sessions()
    db.session.execute(update(Assignment).where(Assignment.user_id == user_id, Assignment.status == LEASED)
                       .values(status=EXPIRED).execution_options(synchronize_session=False))  # slots freed
    return _rows(delete(ApiToken).where(ApiToken.user_id == user_id))


def scrub(user_id: int, projects: Iterable[int] = (), locked_out: bool = False) -> tuple[str, int, int]:
    """In the caller's transaction: replace what identifies the account (see the module's docstring) and drop the
    kept figures of `projects`; returns the pseudonym, the study sessions scrubbed and the API tokens removed.
    `locked_out`: `lock_out` was done already (its sessions are not ended twice)."""
    tokens = 0 if locked_out else lock_out(user_id)
    user = db.session.get_one(User, user_id, populate_existing=True)
    pseudonym = PSEUDONYM_PREFIX + secrets.token_hex(6)
    user.username, user.password_hash, user.active, user.must_change_password = pseudonym, None, False, False
    tokens += _rows(delete(ApiToken).where(ApiToken.user_id == user_id))
    for row in db.session.scalars(select(CrowdWorker).where(CrowdWorker.user_id == user_id,
                                                            CrowdWorker.worker_id.is_not(None))):
        row.worker_id = None
    db.session.flush()
    sessions = _rows(update(CrowdSession).where(CrowdSession.user_id == user_id)
                     .values(session_key=PSEUDONYM_PREFIX + func.cast(CrowdSession.id, db.String), details={}))
    db.session.execute(update(AuditEvent).where(AuditEvent.actor_id == user_id).values(actor=pseudonym))
    for project_id in projects:
        results_changed(project_id)  # kept figures may name the person (e.g. the annotators' table)
    return pseudonym, sessions, tokens


def vote_projects(user_id: int) -> list[int]:
    """The projects where the account has submitted votes."""
    return list(_vote_counts(user_id))


def _rows(statement: Any) -> int:
    """Rows an UPDATE or DELETE changed (its result is a CursorResult)."""
    result = cast("CursorResult[Any]", db.session.execute(statement.execution_options(synchronize_session=False)))
    return int(result.rowcount or 0)


def delete_all_votes(user_id: int) -> int:
    """Delete every assignment of the (locked-out) person, pass after pass until none remains (a vote whose
    request was under way when the account was locked out lands after the first pass's listing); then their quiz
    results and quality states. Returns the counted votes deleted."""
    deleted = 0
    while True:
        rows = db.session.execute(select(Assignment.id, Assignment.item_id)
                                  .where(Assignment.user_id == user_id)).all()
        db.session.commit()
        if not rows:
            break
        deleted += sum(_delete_votes(rows))
    with write_transaction():
        db.session.execute(delete(QuizResult).where(QuizResult.user_id == user_id))
        db.session.execute(delete(AnnotatorState).where(AnnotatorState.user_id == user_id))
    return deleted


def _delete_votes(rows: Iterable[tuple[int, int]]) -> Iterator[int]:
    """Delete these (assignment, item) rows, one per transaction under its item's lock; yields 1 per counted
    vote deleted (submitted and not excluded: the ones done_count holds)."""
    for assignment_id, item_id in rows:
        with write_transaction():
            item = db.session.scalars(select(Item).where(Item.id == item_id).with_for_update()
                                      .execution_options(populate_existing=True)).one()
            vote = db.session.get(Assignment, assignment_id, populate_existing=True)
            if vote is None:
                continue
            counted = vote.status == SUBMITTED and not vote.excluded
            if counted:
                item.done_count = Item.done_count - 1
                # Now, not only at the end (scrub): a later vote would bring the item's count back, and kept gold
                # folded forward would still hold this one (figures/kept_gold.py).
                results_changed(vote.project_id)
            if counted:   # its labels leave a prior per group's counts with it (analysis/prior_counts.py)
                prior_counts.take_out(assignment_id, item, db.session.get_one(Project, vote.project_id))
            db.session.execute(delete(Label).where(Label.assignment_id == assignment_id))
            db.session.execute(delete(ControlAnswer).where(ControlAnswer.assignment_id == assignment_id))
            db.session.delete(vote)
        yield int(counted)
