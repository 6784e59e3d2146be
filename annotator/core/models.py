"""The data model: who labels (User, ApiToken), what (Project, Item), and the votes.

An Assignment is one annotator's lease on one item and, once submitted, that annotator's vote:
the answer JSON is kept whole on it for audit, and Label rows are its normalised view (one row
per unit and field) that gold, agreement and exports read in one query.
"""
from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from typing import Any

from flask import current_app, has_app_context
from flask_login import UserMixin
from sqlalchemy import (
    JSON,
    CheckConstraint,
    Column,
    DateTime,
    Float,
    ForeignKey,
    ForeignKeyConstraint,
    Index,
    Integer,
    LargeBinary,
    SmallInteger,
    String,
    Table,
    Text,
    UniqueConstraint,
    text,
)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import Mapped, mapped_column, relationship
from werkzeug.security import check_password_hash, generate_password_hash

from annotator.core.extensions import Model, db

# werkzeug's default: slow per hash by design, so that guessing passwords from stolen hashes is slow too
# (bench/results/2026-11-25-figures-from-docstrings.md)
STRONG_PASSWORD_HASH = "scrypt"


def password_hash_method() -> str:
    """How new password hashes are made: the app's PASSWORD_HASH_METHOD (config.py), scrypt by default.

    A setting so that the test suite, which makes and checks thousands of passwords, can use a cheap one;
    stored hashes name their method, so checking works whatever made them.
    """
    configured = current_app.config.get("PASSWORD_HASH_METHOD") if has_app_context() else None
    return configured or STRONG_PASSWORD_HASH


JSONType = JSON().with_variant(JSONB(), "postgresql")
# None stored as SQL NULL (not JSON 'null'), so "no value" can be asked for with IS NULL.
NullableJSON = JSON(none_as_null=True).with_variant(JSONB(none_as_null=True), "postgresql")

ROLES = ("admin", "annotator")
AUDIENCES = ("all", "listed")  # who may work on a project: every annotator, or those the admin lists
LEASED, SUBMITTED, EXPIRED = "leased", "submitted", "expired"
CROWD_PLATFORMS = ("prolific", "mturk")
CROWD_SEPARATOR = ":"  # crowd accounts are named "<platform>:<worker id>"; accounts.USERNAME refuses ':'


def utcnow() -> datetime:
    """Naive UTC: SQLite keeps no time zone, so both engines store and compare the same values."""
    return datetime.now(UTC).replace(tzinfo=None)


def token_digest(token: str) -> str:
    """API tokens are random, so a fast SHA-256 suffices and keeps every API call cheap."""
    return hashlib.sha256(token.encode()).hexdigest()


class User(UserMixin, Model):
    __tablename__ = "users"
    __table_args__ = (CheckConstraint("role IN ('admin', 'annotator')", name="role"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    username: Mapped[str] = mapped_column(String(80), unique=True)
    role: Mapped[str] = mapped_column(String(16), default="annotator")
    # NULL for accounts that cannot log in, e.g. the anonymous annotators of imported votes.
    password_hash: Mapped[str | None] = mapped_column(String(256))
    active: Mapped[bool] = mapped_column(default=True)
    # Set for accounts an admin created with a one-time password: the first login asks for a new one.
    must_change_password: Mapped[bool] = mapped_column(default=False, server_default=text("false"))
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    # Part of every session and remember-me cookie (get_id): bumping it (logout, password change)
    # makes every cookie issued before worthless, including copies replayed from elsewhere.
    session_version: Mapped[int] = mapped_column(Integer, default=0, server_default=text("0"))

    tokens: Mapped[list[ApiToken]] = relationship(back_populates="user", cascade="all, delete-orphan")

    @property
    def is_admin(self) -> bool:
        return self.role == "admin"

    @property
    def is_crowd(self) -> bool:
        """An account a crowd platform's link made (crowd.py): its name has a ':', which no other name may have."""
        return CROWD_SEPARATOR in self.username

    @property
    def is_active(self) -> bool:  # Flask-Login refuses inactive accounts
        return self.active

    def get_id(self) -> str:
        """What Flask-Login keeps in the session and the remember cookie: id and session version."""
        return f"{self.id}:{self.session_version}"

    def end_sessions(self) -> None:
        """Every session and remember-me cookie of this account stops working (the caller commits)."""
        self.session_version = (self.session_version or 0) + 1

    def set_password(self, password: str) -> None:
        self.password_hash = generate_password_hash(password, method=password_hash_method())

    def check_password(self, password: str) -> bool:
        if not self.password_hash:
            return False
        return check_password_hash(self.password_hash, password)

    def __repr__(self) -> str:
        return f"<User {self.username} ({self.role})>"


class ApiToken(Model):
    __tablename__ = "api_tokens"

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    digest: Mapped[str] = mapped_column(String(64), unique=True)
    note: Mapped[str] = mapped_column(String(120), default="", server_default="")  # what it is for
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)

    user: Mapped[User] = relationship(back_populates="tokens")


project_annotators = Table(
    "project_annotators", db.metadata,
    Column("project_id", ForeignKey("projects.id", ondelete="CASCADE"), primary_key=True),
    Column("user_id", ForeignKey("users.id", ondelete="CASCADE"), primary_key=True, index=True),
)


class Project(Model):
    __tablename__ = "projects"
    __table_args__ = (
        CheckConstraint("k >= 1", name="k_positive"),
        CheckConstraint("lease_minutes >= 1", name="lease_positive"),
        CheckConstraint("audience IN ('all', 'listed')", name="audience"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    slug: Mapped[str] = mapped_column(String(80), unique=True)
    name: Mapped[str] = mapped_column(String(200))
    task_type: Mapped[str] = mapped_column(String(40))
    k: Mapped[int] = mapped_column(Integer, default=8)
    lease_minutes: Mapped[int] = mapped_column(Integer, default=30)
    guidelines: Mapped[str] = mapped_column(Text, default="")
    # Task-type settings (e.g. the gold thresholds) and where the data came from (format, split).
    settings: Mapped[dict[str, Any]] = mapped_column(JSONType, default=dict)
    source: Mapped[dict[str, Any]] = mapped_column(JSONType, default=dict)
    # A declared campaign's checked definition (annotator/declared/definition.py); None for built-in types.
    definition: Mapped[dict[str, Any] | None] = mapped_column(JSONType, nullable=True, default=None)
    # Archived: closed and hidden from annotators, every vote kept.
    archived: Mapped[bool] = mapped_column(default=False, server_default=text("false"))
    audience: Mapped[str] = mapped_column(String(16), default="all", server_default="all")
    # Crowd quality control (control items, quiz, blocking, dynamic overlap): see annotator/quality.
    quality: Mapped[dict[str, Any]] = mapped_column(JSONType, default=dict, server_default=text("'{}'"))
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)

    # The annotators it is open to when audience is "listed".
    annotators: Mapped[list[User]] = relationship(secondary=project_annotators, order_by="User.username")
    items: Mapped[list[Item]] = relationship(back_populates="project", cascade="all, delete-orphan",
                                             order_by="Item.position")

    def __repr__(self) -> str:
        return f"<Project {self.slug} ({self.task_type})>"


class Item(Model):
    """One HIT's material; `payload` is whatever the task type needs to show it and check answers."""

    __tablename__ = "items"
    __table_args__ = (
        UniqueConstraint("project_id", "external_id", name="uq_items_project_external"),
        Index("ix_items_pick", "project_id", "done_count", "position"),
        # The routing's walk (engine/picking.py): a stopping project's voted items, least certain first. Partial:
        # only those items have a certainty, so a project without a stopping rule keeps no entry in it.
        Index("ix_items_route", "project_id", "certainty", "position",
              sqlite_where=text("certainty IS NOT NULL"), postgresql_where=text("certainty IS NOT NULL")),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("projects.id", ondelete="CASCADE"))
    external_id: Mapped[str] = mapped_column(String(200))
    position: Mapped[int] = mapped_column(Integer)
    payload: Mapped[dict[str, Any]] = mapped_column(JSONType)
    # The answer the source file gives (imported labels): never shown to annotators, never a vote.
    reference: Mapped[Any | None] = mapped_column(NullableJSON)
    # Submitted votes, kept on the row so picking the next item needs no count over all votes.
    done_count: Mapped[int] = mapped_column(Integer, default=0)
    # A control item: its `reference` is the known answer; served now and then, never in gold (quality/).
    is_control: Mapped[bool] = mapped_column(default=False, server_default=text("false"))
    # How many votes the item needs now (dynamic overlap raises it); NULL: the project's k.
    target: Mapped[int | None] = mapped_column(Integer)
    # When a stopping rule stopped the item before k votes (engine/stopping.py; its target is then its votes).
    stopped_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True, default=None)
    # With a stopping rule, how sure the item's gold is after its votes (core/stopping.certainty; 2 once it takes no
    # more votes), written with each vote: the routing serves the least sure first. NULL: no vote counted under a
    # rule yet, served before any voted item; always NULL without a stopping rule.
    certainty: Mapped[float | None] = mapped_column(Float, nullable=True, default=None)

    project: Mapped[Project] = relationship(back_populates="items")


class Assignment(Model):
    __tablename__ = "assignments"
    __table_args__ = (
        # Never twice by one annotator.
        UniqueConstraint("item_id", "user_id", name="uq_assignments_item_user"),
        # At most one open lease per annotator and project: concurrent `next` calls of one
        # annotator cannot both lease.
        Index("uq_assignments_one_open_lease", "user_id", "project_id", unique=True,
              sqlite_where=text("status = 'leased'"), postgresql_where=text("status = 'leased'")),
        Index("ix_assignments_active", "project_id", "status", "expires_at"),
        # The items an annotator had in a project (excluded by `next`), read index-only; also the users cascade.
        Index("ix_assignments_user_project", "user_id", "project_id", "item_id"),
        # What a label row repeats of its vote, as one key the label's foreign key refers to (see Label).
        Index("uq_assignments_vote", "id", "project_id", "item_id", "user_id", unique=True),
        CheckConstraint("status IN ('leased', 'submitted', 'expired')", name="status"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("projects.id", ondelete="CASCADE"))
    item_id: Mapped[int] = mapped_column(ForeignKey("items.id", ondelete="CASCADE"))
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    status: Mapped[str] = mapped_column(String(16), default=LEASED)
    leased_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(DateTime)
    submitted_at: Mapped[datetime | None] = mapped_column(DateTime)
    # Seconds from the (last) lease to the submit: the time the annotator had the HIT open.
    seconds_spent: Mapped[float | None]
    answer: Mapped[dict[str, Any] | None] = mapped_column(JSONType)
    # How this annotator was shown the item, drawn when leasing (e.g. which system is "A"): the
    # answer refers to it, so it is kept with the answer.
    presentation: Mapped[dict[str, Any] | None] = mapped_column(NullableJSON)
    # A vote of a blocked annotator that no longer counts: not in done_count, its label rows deleted,
    # the answer kept here for audit.
    excluded: Mapped[bool] = mapped_column(default=False, server_default=text("false"))

    item: Mapped[Item] = relationship()
    user: Mapped[User] = relationship()


class Label(Model):
    """One (unit, field, value) of a submitted answer, e.g. (kp_4_1, match, 1)."""

    __tablename__ = "labels"
    __table_args__ = (
        UniqueConstraint("assignment_id", "unit", "field", name="uq_labels_assignment_unit_field"),
        Index("ix_labels_project", "project_id"),
        Index("ix_labels_item", "item_id"),
        # One key for the vote the row belongs to: its project, item and annotator are its assignment's (a copy kept
        # for the queries that read labels alone), so one check of one assignment row covers all four columns and
        # that they agree. Four keys of their own (to assignments, projects, items, users) were three quarters of a
        # bulk import of votes on PostgreSQL and 1.7 ms of each 40-label vote (migration 0025 says the figures).
        ForeignKeyConstraint(["assignment_id", "project_id", "item_id", "user_id"],
                             ["assignments.id", "assignments.project_id", "assignments.item_id",
                              "assignments.user_id"], name="fk_labels_vote_assignments", ondelete="CASCADE",
                             onupdate="CASCADE"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    assignment_id: Mapped[int]
    project_id: Mapped[int]
    item_id: Mapped[int]
    user_id: Mapped[int]
    unit: Mapped[str] = mapped_column(String(200))
    field: Mapped[str] = mapped_column(String(80))
    value: Mapped[str] = mapped_column(Text)


class PriorCount(Model):
    """Votes given `value` on `unit` of `question` by the items of one group, in a project whose stopping rule
    learns a prior per group of items (`stopping: {confidence: P, prior_by: FIELD}`, docs/declared-stopping.md).

    Why a table: the rule reads its item's group's counts at every submit, under the item's lock; a count over the
    label rows of every item of the group would grow with the campaign. Each submit adds its vote's labels here in
    its own transaction (an UPSERT increment, analysis/prior_counts.py), an excluded or erased vote takes them out
    in the transaction that deletes its labels, and the row of group key '' holds the whole project's votes (an
    item whose field is blank belongs to no group). Only projects with `prior_by` have rows; labels stay the truth:
    `prior_counts.recount` rebuilds a project's rows from them.

    Each count is kept in `stripe`s (an item's votes in the stripe of its id modulo prior_counts.STRIPES), which a
    read sums: every submit of the project increments the project's rows, and on PostgreSQL an incremented row
    stays locked to the commit, so with one row per count the project's submits took turns at it.
    """

    __tablename__ = "prior_counts"
    __table_args__ = (
        # The submit's read is (project, group key in (the item's, '')): the key's columns first.
        UniqueConstraint("project_id", "group_key", "question", "unit", "value", "stripe", name="uq_prior_counts_key"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("projects.id", ondelete="CASCADE"))
    group_key: Mapped[str] = mapped_column(String(200))   # core/stopping.group_key of the item's field; '': all
    question: Mapped[str] = mapped_column(String(80))     # a label's field
    unit: Mapped[str] = mapped_column(String(200))        # a label's unit (a multi question's option)
    value: Mapped[str] = mapped_column(Text)
    stripe: Mapped[int] = mapped_column(SmallInteger, default=0)   # the item's id modulo prior_counts.STRIPES
    votes: Mapped[int] = mapped_column(Integer, default=0)


class GoldSet(Model):
    """Gold data a leaderboard scores against: uploaded, or a snapshot of a project's gold.

    The files are kept in the database (not on a disk of one host) so any worker on any host can
    score, and a snapshot keeps earlier scores comparable while the project collects more votes.
    """

    __tablename__ = "gold_sets"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    task: Mapped[str] = mapped_column(String(40))  # a scorer's name (shared_tasks/*/scorer.py)
    project_id: Mapped[int | None] = mapped_column(ForeignKey("projects.id", ondelete="SET NULL"))
    filename: Mapped[str] = mapped_column(String(255))  # a .zip when the scorer's gold is a folder
    # Deferred: lists and rankings never need the file, which is read only to score or download.
    content: Mapped[bytes] = mapped_column(LargeBinary, deferred=True)
    options: Mapped[dict[str, Any]] = mapped_column(JSONType, default=dict)  # split, variant, ...
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)

    submissions: Mapped[list[Submission]] = relationship(back_populates="gold_set",
                                                         cascade="all, delete-orphan")


class Submission(Model):
    """A team's system output, scored once against its gold set; the report is kept whole."""

    __tablename__ = "submissions"

    id: Mapped[int] = mapped_column(primary_key=True)
    gold_set_id: Mapped[int] = mapped_column(ForeignKey("gold_sets.id", ondelete="CASCADE"), index=True)
    team: Mapped[str] = mapped_column(String(120))
    system: Mapped[str] = mapped_column(String(120))
    filename: Mapped[str] = mapped_column(String(255))
    content: Mapped[bytes] = mapped_column(LargeBinary, deferred=True)  # read only to download
    metrics: Mapped[dict[str, Any]] = mapped_column(JSONType)
    report: Mapped[dict[str, Any]] = mapped_column(JSONType)  # detail, warnings, beside (ScoreReport)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)

    gold_set: Mapped[GoldSet] = relationship(back_populates="submissions")


class Adjudication(Model):
    """An admin's decision on an item the task's rule left undecided; it wins over the votes in gold.

    The answer has the shape of an annotator's answer and passed the task type's `labels` check, so the
    same code turns it into label rows. One per item: deciding again replaces it.
    """

    __tablename__ = "adjudications"

    id: Mapped[int] = mapped_column(primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("projects.id", ondelete="CASCADE"), index=True)
    item_id: Mapped[int] = mapped_column(ForeignKey("items.id", ondelete="CASCADE"), unique=True)
    user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    answer: Mapped[dict[str, Any]] = mapped_column(JSONType)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)

    item: Mapped[Item] = relationship()
    user: Mapped[User | None] = relationship()


class ProjectData(Model):
    """What an import brought besides items, kept for exports and reports (e.g. systems' whole outputs).

    Apart from Project so that the per-request project lookups never load it.
    """

    __tablename__ = "project_data"
    __table_args__ = (UniqueConstraint("project_id", "name", name="uq_project_data_project_name"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("projects.id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(String(120))
    content: Mapped[Any] = mapped_column(JSONType)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)


class ControlAnswer(Model):
    """An answer to a control item, scored against the known answer (0..1) by the task type.

    One row per such assignment, so an annotator's control accuracy is one AVG over this table.
    `quiz_attempt` is set for the answers of a qualification quiz (which attempt they belong to).
    """

    __tablename__ = "control_answers"
    __table_args__ = (Index("ix_control_answers_project_user", "project_id", "user_id"),)

    assignment_id: Mapped[int] = mapped_column(ForeignKey("assignments.id", ondelete="CASCADE"), primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("projects.id", ondelete="CASCADE"))
    item_id: Mapped[int] = mapped_column(ForeignKey("items.id", ondelete="CASCADE"))
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    score: Mapped[float] = mapped_column(Float)  # as migration 0007 made it (a bare float maps to Double)
    quiz_attempt: Mapped[int | None] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)


QUIZ_PENDING, QUIZ_PASSED, QUIZ_FAILED = "pending", "passed", "failed"


class AnnotatorState(Model):
    """Where one annotator stands in one project's quality control: quiz, blocked or not.

    A row exists only for annotators of projects with a quiz or blocking, written when something
    happens (a quiz answer, a block), so projects without them never read or write it.
    """

    __tablename__ = "annotator_states"
    __table_args__ = (CheckConstraint("quiz_status IN ('pending', 'passed', 'failed')", name="quiz_status"),)

    project_id: Mapped[int] = mapped_column(ForeignKey("projects.id", ondelete="CASCADE"), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True, index=True)
    quiz_status: Mapped[str] = mapped_column(String(16), default=QUIZ_PENDING, server_default=QUIZ_PENDING)
    quiz_attempt: Mapped[int] = mapped_column(Integer, default=1, server_default=text("1"))
    blocked_at: Mapped[datetime | None] = mapped_column(DateTime)
    blocked_reason: Mapped[str | None] = mapped_column(Text)
    # Set when an admin unblocks: the automatic rules leave this annotator alone from then on.
    exempt: Mapped[bool] = mapped_column(default=False, server_default=text("false"))


class QuizResult(Model):
    """One finished qualification attempt: its score and whether it passed (failures are kept on record)."""

    __tablename__ = "quiz_results"
    __table_args__ = (Index("ix_quiz_results_project_user", "project_id", "user_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("projects.id", ondelete="CASCADE"))
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    attempt: Mapped[int] = mapped_column(Integer)
    answered: Mapped[int] = mapped_column(Integer)
    score: Mapped[float] = mapped_column(Float)  # as migration 0007 made it (a bare float maps to Double)
    passed: Mapped[bool]
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)


class CrowdLink(Model):
    """A project's study link on a crowd platform: how many HITs make one study, and the codes it hands out.

    The entry URL's secret is derived from `nonce` and the app's SECRET_KEY (crowd.link_token), so the
    database alone does not give it away and a new nonce revokes every link given out before.
    """

    __tablename__ = "crowd_links"
    __table_args__ = (
        UniqueConstraint("project_id", "platform", name="uq_crowd_links_project_platform"),
        CheckConstraint("platform IN ('prolific', 'mturk')", name="platform"),
        CheckConstraint("hits >= 1", name="hits_positive"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("projects.id", ondelete="CASCADE"))
    platform: Mapped[str] = mapped_column(String(16))
    nonce: Mapped[str] = mapped_column(String(64))
    hits: Mapped[int] = mapped_column(Integer)
    completion_code: Mapped[str] = mapped_column(String(80))
    screen_out_code: Mapped[str] = mapped_column(String(80), default="")
    active: Mapped[bool] = mapped_column(default=True)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)

    project: Mapped[Project] = relationship()


class CrowdWorker(Model):
    """The account of one worker of one platform: the visits of that worker id log into it, and only it
    (people/crowd_entry.py says when a visit may).

    An erased worker's row keeps no worker id and nothing derived from it: a visit of the same worker id
    makes a new account, and the erased one stays what erasure left (a pseudonym nobody can log into)."""

    __tablename__ = "crowd_workers"
    __table_args__ = (UniqueConstraint("platform", "worker_id", name="uq_crowd_workers_platform_worker_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    platform: Mapped[str] = mapped_column(String(16))
    worker_id: Mapped[str | None] = mapped_column(String(64))
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), unique=True)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)

    user: Mapped[User] = relationship()


class CrowdSession(Model):
    """One study session of a worker (Prolific's SESSION_ID, MTurk's assignmentId): the HITs it counts are
    the ones submitted since it started; it ends completed or screened out."""

    __tablename__ = "crowd_sessions"
    __table_args__ = (UniqueConstraint("link_id", "session_key", name="uq_crowd_sessions_link_session_key"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    link_id: Mapped[int] = mapped_column(ForeignKey("crowd_links.id", ondelete="CASCADE"))
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    session_key: Mapped[str] = mapped_column(String(200))
    details: Mapped[dict[str, Any]] = mapped_column(JSONType, default=dict)  # study, hit, where to submit
    started_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    completed_at: Mapped[datetime | None] = mapped_column(DateTime)
    screened_out: Mapped[str | None] = mapped_column(String(500))  # why, when it was

    link: Mapped[CrowdLink] = relationship()


class CrowdAccountCreation(Model):
    """One crowd account a study link created: the per-link cap counts these rows, the per-address rate limit
    the recent ones (people/crowd_limits.py). In the database, not in a process, so every gunicorn worker
    and host counts the same. The address is kept only as a keyed hash, and only while the rate limit's
    window needs it: afterwards `address_key` is cleared and the row says no more than "an account, then"."""

    __tablename__ = "crowd_account_creations"
    __table_args__ = (Index("ix_crowd_account_creations_address_key_created_at", "address_key", "created_at"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    link_id: Mapped[int] = mapped_column(ForeignKey("crowd_links.id", ondelete="CASCADE"), index=True)
    address_key: Mapped[str | None] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)


class KeptState(Model):
    """Per project: which generation of its kept results is current, and who is computing the next.

    `generation` goes up whenever an admin changes what results are made of without a vote (an exclusion,
    an adjudication, settings): results computed before are dropped, and a computation that started before
    cannot store what it found (annotator/figures/kept.py). `claimed_until`: one process computes at a
    time, across hosts; a claim that was not released (a worker killed) lapses."""

    __tablename__ = "kept_states"

    project_id: Mapped[int] = mapped_column(ForeignKey("projects.id", ondelete="CASCADE"), primary_key=True)
    generation: Mapped[int] = mapped_column(Integer, default=0)
    claimed_until: Mapped[datetime | None] = mapped_column(DateTime)


class KeptResult(Model):
    """One page's figures of a big project, as computed from the votes counted by `stamp`: read instead of
    recomputing while the stamp still holds, or shown with their age within the bound (figures/kept.py).
    `payload` is signed with the app's secret key, so that a row written by anyone else is never unpickled."""

    __tablename__ = "kept_results"
    __table_args__ = (UniqueConstraint("project_id", "name", name="uq_kept_results_project_name"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("projects.id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(String(40))
    stamp: Mapped[str] = mapped_column(String(200))
    votes: Mapped[int] = mapped_column(Integer)  # submitted votes counted when the computation started
    computed_at: Mapped[datetime] = mapped_column(DateTime)  # when it started: the figures' "as of"
    seconds: Mapped[float] = mapped_column(Float)  # how long it took, for the next wait's estimate
    payload: Mapped[bytes] = mapped_column(LargeBinary)


class AuditEvent(Model):
    """One admin action that changed data (annotator/core/audit.py): who, when, what, in which project.

    Written in the transaction of the change itself, so a change rolled back leaves no event. No foreign
    keys: the record outlives the project or account it names. `detail` names annotators by account id only
    (the page shows their current name), so an erased person's identity is not kept here.
    """

    __tablename__ = "audit_events"
    __table_args__ = (Index("ix_audit_events_at", "at"), Index("ix_audit_events_project_at", "project", "at"),
                      Index("ix_audit_events_action_at", "action", "at"))

    id: Mapped[int] = mapped_column(primary_key=True)
    at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    actor_id: Mapped[int | None] = mapped_column(Integer)  # the admin's account; None on the command line
    actor: Mapped[str] = mapped_column(String(120))  # their name at the time, or "command line (<OS user>)"
    action: Mapped[str] = mapped_column(String(40))
    project: Mapped[str | None] = mapped_column(String(80))  # the project's slug at the time
    detail: Mapped[dict[str, Any]] = mapped_column(JSONType, default=dict)


class LoginFailure(Model):
    """One failed login, kept for the longest window of the login limits (people/login_counters.py).

    In the database rather than in a process, so that every worker and host counts the same failures and a
    restart forgets none. The typed name and the client's address are kept only as keyed hashes (HMAC-SHA256
    with SECRET_KEY): a password typed into the name field, or an address, is not written anywhere readable.
    """

    __tablename__ = "login_failures"
    __table_args__ = (Index("ix_login_failures_address_at", "address", "at"), Index("ix_login_failures_at", "at"),
                      Index("ix_login_failures_account", "account"))

    id: Mapped[int] = mapped_column(primary_key=True)
    account: Mapped[str] = mapped_column(String(64))  # the keyed hash of the name typed, as the limit folds it
    address: Mapped[str] = mapped_column(String(64))  # the keyed hash of the client's address (or IPv6 /64)
    at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
