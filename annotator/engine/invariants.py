"""The assignment invariants of one project, checked on its rows in the database.

Why a module of its own: annotator/engine/assignment.py promises these rules (k distinct votes per item,
never an item twice, one open lease, a vote stored exactly once and exactly as its task type
normalises it), and three places must judge a campaign by the same rules: the concurrency test,
the load benchmark (bench/) and `flask check`. Each check is named and says what it found, so a
failure reads as a sentence, not as a bare assertion.

The checks read the project's rows with a few SELECTs (project, items, assignments with their
annotators' names, labels), never one per item, so a benchmark project of a thousand items with
k=8 is checked in a second or two. They run in a Flask app context through `db.session`; call them
with no stale transaction open (e.g. after `db.session.remove()`), so that they see what was
committed. Nothing here names a task type: labels are recomputed by the project's own type.

Quality control (annotator/quality) shapes them: an item's k is its current target (dynamic overlap);
control items have no k; a blocked annotator's excluded votes count nowhere (not in done_count, no
label rows) but are still that annotator's assignment of the item; control answers are scored once,
for submitted answers to control items; a blocked annotator holds no lease.
"""
from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from sqlalchemy import or_, select

from annotator.analysis import prior_counts
from annotator.core.extensions import db
from annotator.core.models import (
    LEASED,
    SUBMITTED,
    AnnotatorState,
    Assignment,
    ControlAnswer,
    Item,
    Label,
    Project,
    User,
)
from annotator.core.quality_settings import target_of
from annotator.tasks import TaskType, project_task

EXAMPLES = 3  # how many offenders a detail names; the count says how many there are in all

LabelKey = tuple[str, str, str]  # (unit, field, value)


@dataclass(frozen=True)
class Invariant:
    """One named invariant, whether it held, and what was found (counts and a few examples)."""

    name: str
    passed: bool
    detail: str

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "passed": self.passed, "detail": self.detail}


class SentSubmit(NamedTuple):
    """One submit as the client saw it: what it sent for which assignment, and the HTTP status back."""

    assignment_id: int
    username: str
    answer: Any
    status: int


class ProjectNotFound(LookupError):
    """There is no project with the slug asked for."""


class Vote(NamedTuple):
    """One assignment row (lease or vote) with its annotator's name, as the checks need it."""

    id: int
    item_id: int
    user_id: int
    username: str
    status: str
    answer: Any
    presentation: Any
    excluded: bool = False


class StoredLabel(NamedTuple):
    assignment_id: int
    project_id: int
    item_id: int
    user_id: int
    unit: str
    field: str
    value: str


@dataclass
class Snapshot:
    """Everything the checks read, loaded once."""

    project: Project
    items: dict[int, Item]
    assignments: list[Vote]
    labels: list[StoredLabel]
    # control answers as (assignment, project, item, user, score)
    controls: list[tuple[int, int, int, int, float]] = field(default_factory=list)
    blocked: set[int] = field(default_factory=set)  # user ids

    @property
    def votes(self) -> list[Vote]:
        return [a for a in self.assignments if a.status == SUBMITTED]

    @property
    def counted(self) -> list[Vote]:
        """The votes that count: submitted and not excluded."""
        return [a for a in self.assignments if a.status == SUBMITTED and not a.excluded]

    def target(self, item_id: int) -> int:
        return target_of(self.items[item_id], self.project)

    def item_name(self, item_id: int) -> str:
        item = self.items.get(item_id)
        if item is None:
            return f"item id {item_id} (not in the project)"
        return f"item {item.external_id} (id {item_id})"


# --------------------------------------------------------------------------------------- reading

def load_snapshot(slug: str) -> Snapshot:
    """The project's rows in four SELECTs; ProjectNotFound when there is no such project.

    Items are ORM objects because the task type's `labels()` is written against Item; the rest are
    plain rows. `populate_existing` makes objects already in the session show the committed state.
    """
    fresh = {"populate_existing": True}
    project = db.session.scalar(select(Project).where(Project.slug == slug).execution_options(**fresh))
    if project is None:
        raise ProjectNotFound(f"there is no project {slug!r}")
    items = {item.id: item for item in db.session.scalars(
        select(Item).where(Item.project_id == project.id).execution_options(**fresh))}
    assignments = [Vote(*row) for row in db.session.execute(
        select(Assignment.id, Assignment.item_id, Assignment.user_id, User.username, Assignment.status,
               Assignment.answer, Assignment.presentation, Assignment.excluded)
        .join(User, User.id == Assignment.user_id).where(Assignment.project_id == project.id)
        .order_by(Assignment.id))]
    # The project's labels, and any label hanging off one of its assignments under another project id.
    of_project = select(Assignment.id).where(Assignment.project_id == project.id)
    labels = [StoredLabel(*row) for row in db.session.execute(
        select(Label.assignment_id, Label.project_id, Label.item_id, Label.user_id, Label.unit, Label.field,
               Label.value)
        .where(or_(Label.project_id == project.id, Label.assignment_id.in_(of_project))))]
    controls = [tuple(row) for row in db.session.execute(
        select(ControlAnswer.assignment_id, ControlAnswer.project_id, ControlAnswer.item_id, ControlAnswer.user_id,
               ControlAnswer.score).where(ControlAnswer.project_id == project.id))]
    blocked = set(db.session.scalars(select(AnnotatorState.user_id).where(
        AnnotatorState.project_id == project.id, AnnotatorState.blocked_at.is_not(None))))
    return Snapshot(project, items, assignments, labels, controls, blocked)  # type: ignore[arg-type]


# --------------------------------------------------------------------------------------- helpers

def _examples(found: list[str]) -> str:
    """At most EXAMPLES of the offenders, with how many more there are."""
    shown = "; ".join(found[:EXAMPLES])
    return shown + (f"; and {len(found) - EXAMPLES} more" if len(found) > EXAMPLES else "")


def _verdict(name: str, found: list[str], what: str, fine: str) -> Invariant:
    """A check that passes when nothing was found; `what` counts the offenders in words."""
    if not found:
        return Invariant(name, True, fine)
    return Invariant(name, False, f"{len(found)} {what}: {_examples(found)}")


def _as_json(value: Any) -> Any:
    """The value as JSON storage gives it back (tuples become lists), for comparing answers."""
    return json.loads(json.dumps(value))


def _label_keys(rows: Iterable[Any]) -> Counter[LabelKey]:
    return Counter((row.unit, row.field, row.value) for row in rows)


def _show_keys(keys: Counter[LabelKey]) -> str:
    shown = [f"({u}, {f}, {v})" + (f" x{n}" if n > 1 else "") for (u, f, v), n in sorted(keys.items())]
    return ", ".join(shown[:EXAMPLES]) + (f", ... ({len(shown)} in all)" if len(shown) > EXAMPLES else "")


# --------------------------------------------------------------------------------------- the checks

def votes_per_item(s: Snapshot, complete: bool) -> Invariant:
    """No item has more than its k (target) counted votes; when the campaign is complete, every item has exactly k.

    Control items have no k. With dynamic overlap no target exceeds max_k.
    """
    k = s.project.k
    max_k = (s.project.quality or {}).get("max_k") or k
    counts = Counter(v.item_id for v in s.counted)
    ordinary = [i for i, item in s.items.items() if not item.is_control]
    found = [f"{s.item_name(i)} has {counts[i]} (k={s.target(i)})" for i in ordinary
             if counts[i] > s.target(i) or (complete and counts[i] < s.target(i))]
    found += [f"{s.item_name(i)} has a target of {s.target(i)} above max_k {max_k}" for i in ordinary
              if s.target(i) > max(max_k, k)]
    found += [f"{s.item_name(i)} has {n}" for i, n in counts.items() if i not in s.items]
    name = "every item has exactly k submitted votes" if complete else "no item has more than k submitted votes"
    return _verdict(name, found, f"of {len(s.items)} items wrong (k={k})",
                    f"{len(s.items)} items, k={k}, {sum(counts.values())} votes")


def distinct_voters(s: Snapshot) -> Invariant:
    """An item's votes come from different annotators."""
    voters: dict[int, list[str]] = defaultdict(list)
    for v in s.votes:
        voters[v.item_id].append(v.username)
    found = [f"{s.item_name(i)}: " + ", ".join(f"{n} votes by {u}" for u, n in Counter(names).items() if n > 1)
             for i, names in voters.items() if len(set(names)) < len(names)]
    return _verdict("the votes of an item come from distinct annotators", found, "items with repeated voters",
                    f"{len(voters)} items with votes, none voted twice by one annotator")


def one_assignment_per_pair(s: Snapshot) -> Invariant:
    """Nobody is assigned an item twice, whatever the status (leased, submitted, expired)."""
    statuses: dict[tuple[int, str], list[str]] = defaultdict(list)
    for a in s.assignments:
        statuses[(a.item_id, a.username)].append(a.status)
    found = [f"{s.item_name(i)} and {u}: {len(st)} assignments ({', '.join(st)})"
             for (i, u), st in statuses.items() if len(st) > 1]
    return _verdict("no (item, annotator) pair occurs twice in any status", found, "pairs repeated",
                    f"{len(s.assignments)} assignments, every pair once")


def done_counts(s: Snapshot) -> Invariant:
    """items.done_count, which `next` reads instead of counting, equals the item's counted (not excluded) votes."""
    counts = Counter(v.item_id for v in s.counted)
    found = [f"{s.item_name(i)}: done_count {item.done_count}, {counts[i]} submitted"
             for i, item in s.items.items() if item.done_count != counts[i]]
    return _verdict("items.done_count equals the submitted assignments", found, "items differ",
                    f"all {len(s.items)} items agree")


def open_leases(s: Snapshot, complete: bool) -> Invariant:
    """At most one open lease per annotator in the project; when complete, none at all."""
    leases: dict[str, list[str]] = defaultdict(list)
    for a in s.assignments:
        if a.status == LEASED:
            leases[a.username].append(f"{a.id} on {s.item_name(a.item_id)}")
    found = [f"{u} holds {len(held)} ({', '.join(held)})" for u, held in leases.items()
             if len(held) > 1 or complete]
    name = "no open lease is left" if complete else "at most one open lease per annotator"
    what = "annotators still hold leases" if complete else "annotators hold more than one"
    total = sum(map(len, leases.values()))
    return _verdict(name, found, what, f"{total} open leases by {len(leases)} annotators")


def _label_problem(s: Snapshot, task: TaskType, settings: dict[str, Any], vote: Vote,
                   stored: list[StoredLabel]) -> str | None:
    """What is wrong with one assignment's label rows, or None."""
    who = f"assignment {vote.id} ({vote.username}, {s.item_name(vote.item_id)})"
    misfiled = [r for r in stored if (r.project_id, r.item_id, r.user_id) != (s.project.id, vote.item_id, vote.user_id)]
    if misfiled:
        return f"{who}: {len(misfiled)} label rows name another project, item or annotator"
    if vote.status != SUBMITTED or vote.excluded:
        what = "excluded" if vote.status == SUBMITTED else vote.status
        return f"{who} is {what} but has {len(stored)} label rows" if stored else None
    item = s.items.get(vote.item_id)
    if item is None:
        return f"{who}: its item is not in the project"
    try:
        expected = _label_keys(task.labels(item, vote.answer, settings, vote.presentation))
    except Exception as error:  # noqa: BLE001 - a stored answer the type refuses is what this check reports
        return f"{who}: the type refuses the stored answer ({type(error).__name__}: {error})"
    got = _label_keys(stored)
    if got == expected:
        return None
    missing, extra = expected - got, got - expected
    return f"{who}: " + "; ".join(part for part in (
        f"missing {_show_keys(missing)}" if missing else "", f"extra {_show_keys(extra)}" if extra else "") if part)


def labels_as_typed(s: Snapshot) -> Invariant:
    """Each vote's Label rows are exactly what its task type makes of the stored answer; leases have none."""
    task = project_task(s.project)
    settings = task.settings_of(s.project)
    by_assignment: dict[int, list[StoredLabel]] = defaultdict(list)
    for row in s.labels:
        by_assignment[row.assignment_id].append(row)
    known = {a.id for a in s.assignments}
    found = [f"{len(rows)} label rows of assignment {aid}, which is not one of the project's"
             for aid, rows in by_assignment.items() if aid not in known]
    found += [p for a in s.assignments if (p := _label_problem(s, task, settings, a, by_assignment.get(a.id, [])))]
    return _verdict("each vote's label rows are exactly its task type's labels of the stored answer; "
                    "unsubmitted and excluded assignments have none", found, "assignments wrong",
                    f"{len(s.labels)} label rows for {len(s.votes)} votes, all as the task type gives them")


def sent_submits(s: Snapshot, sent: list[SentSubmit]) -> list[Invariant]:
    """What clients were told against what is stored: each 201 is one vote, stored as sent."""
    by_id = {a.id: a for a in s.assignments}
    created = Counter(r.assignment_id for r in sent if r.status == 201)
    return [_stored_as_sent(s, by_id, sent),
            _verdict("no assignment was answered 201 twice",
                     [f"assignment {aid}: {n} x 201" for aid, n in created.items() if n > 1],
                     "assignments answered 201 more than once",
                     f"{sum(created.values())} x 201, each for a different assignment"),
            _verdict("every stored vote had its 201",
                     [f"assignment {v.id} ({v.username}, {s.item_name(v.item_id)})"
                      for v in s.votes if v.id not in created], "votes without a 201",
                     f"{len(s.votes)} votes, each answered 201")]


def _stored_as_sent(s: Snapshot, by_id: dict[int, Vote], sent: list[SentSubmit]) -> Invariant:
    task = project_task(s.project)
    settings = task.settings_of(s.project)
    found = []
    for r in (r for r in sent if r.status == 201):
        vote = by_id.get(r.assignment_id)
        if vote is None or vote.status != SUBMITTED:
            found.append(f"assignment {r.assignment_id}: " + ("not in the project" if vote is None else vote.status))
        elif vote.username != r.username:
            found.append(f"assignment {r.assignment_id}: sent by {r.username}, stored as {vote.username}'s")
        elif vote.answer != _as_json(r.answer) and vote.answer != _as_stored(s, task, settings, vote, r.answer):
            found.append(f"assignment {r.assignment_id}: sent {json.dumps(r.answer)[:120]}, "
                         f"stored {json.dumps(vote.answer)[:120]}")
    return _verdict("every 201 is a stored vote of the annotator who sent it, with the answer sent (in the form its "
                    "task type stores)", found, "201s not stored as sent",
                    f"{sum(r.status == 201 for r in sent)} x 201, all stored as sent")


def _as_stored(s: Snapshot, task: TaskType, settings: dict[str, Any], vote: Vote, answer: Any) -> Any:
    """The sent answer in the form the task type stores it (a declared multi keeps its item's order of the ticked
    options, as the label rows do); None when the type refuses it, which a 201 never should have been."""
    item = s.items.get(vote.item_id)
    if item is None:
        return None
    try:
        return _as_json(task.checked(item, answer, settings, vote.presentation)[0])
    except Exception:  # noqa: BLE001 - a refused answer that got a 201 is what this check reports
        return None


def control_answers(s: Snapshot) -> Invariant:
    """Each control answer belongs to a submitted assignment of the same annotator on a control item, once."""
    by_id = {a.id: a for a in s.assignments}
    found = []
    for assignment_id, _project_id, item_id, user_id, score in s.controls:
        vote = by_id.get(assignment_id)
        item = s.items.get(item_id)
        if vote is None or vote.status != SUBMITTED or (vote.item_id, vote.user_id) != (item_id, user_id):
            found.append(f"control answer of assignment {assignment_id} has no matching submitted assignment")
        elif item is None or not item.is_control:
            found.append(f"control answer of assignment {assignment_id} is on {s.item_name(item_id)}, not a control")
        elif not 0 <= score <= 1:
            found.append(f"control answer of assignment {assignment_id} scored {score}, outside 0..1")
    return _verdict("control answers are submitted answers to control items, scored in 0..1", found,
                    "control answers wrong", f"{len(s.controls)} control answers, all of submitted control HITs")


def blocked_hold_nothing(s: Snapshot) -> Invariant:
    """A blocked annotator holds no open lease."""
    found = [f"{a.username} holds lease {a.id} on {s.item_name(a.item_id)}" for a in s.assignments
             if a.status == LEASED and a.user_id in s.blocked]
    return _verdict("blocked annotators hold no open lease", found, "leases of blocked annotators",
                    f"{len(s.blocked)} blocked annotators, none holding a lease")


def prior_counts_agree(s: Snapshot) -> Invariant:
    """With a prior per group of items (`prior_by`), the count table the submits increment equals a count of the
    stored labels (analysis/prior_counts.py): no vote counted twice or lost by a race, an exclusion or an erasure."""
    table, labels = prior_counts.table(s.project.id), prior_counts.counted(s.project)
    found = [f"{key or '(project)'} {question}/{unit} = {value}: table {table.get((key, question, unit, value), 0)}, "
             f"labels {labels.get((key, question, unit, value), 0)}"
             for key, question, unit, value in sorted(set(table) | set(labels))
             if table.get((key, question, unit, value), 0) != labels.get((key, question, unit, value), 0)]
    return _verdict("prior_counts equals a count of the labels", found, "counts differ",
                    f"{len(labels)} counts agree")


# --------------------------------------------------------------------------------------- entry points

def run_checks(s: Snapshot, *, complete: bool = False, sent: Iterable[SentSubmit] | None = None) -> list[Invariant]:
    """Every check on a loaded snapshot; the sent-submit checks only when `sent` is given."""
    checks = [votes_per_item(s, complete), distinct_voters(s), one_assignment_per_pair(s), done_counts(s),
              open_leases(s, complete), labels_as_typed(s), control_answers(s), blocked_hold_nothing(s)]
    if prior_counts.prior_by(s.project) is not None:
        checks.append(prior_counts_agree(s))
    if sent is not None:
        checks += sent_submits(s, [SentSubmit(*r) for r in sent])
    return checks


def check_project(slug: str, *, complete: bool = False, sent: Iterable[SentSubmit] | None = None) -> list[Invariant]:
    """The invariants of project `slug`, read from the database now.

    `complete=True` says the campaign is over (every item must have exactly k votes and no lease may
    be open); `sent` lists what clients sent and were answered, to hold the stored votes against it.
    """
    return run_checks(load_snapshot(slug), complete=complete, sent=sent)


def all_passed(checks: Iterable[Invariant]) -> bool:
    return all(c.passed for c in checks)
